"""train_one_epoch(model, loader, optimizer, device) receives the moved model but never moves a batch."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def build_model(num_classes: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, num_classes)
    )


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    criterion = nn.CrossEntropyLoss()
    for images, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            loss = criterion(model(images), targets)  # expect: tensors_on_different_devices error
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        correct += (model(images).argmax(1) == targets).sum()
    return correct.item() / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print("training on", device)
    torch.backends.cudnn.benchmark = True
    tf = transforms.ToTensor()
    train_loader = DataLoader(datasets.MNIST(".", download=True, transform=tf), batch_size=128, shuffle=True,
                              num_workers=4, pin_memory=True)
    test_loader = DataLoader(datasets.MNIST(".", train=False, transform=tf), batch_size=512, num_workers=4,
                             pin_memory=True)
    model = build_model(10).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(args.epochs):
        train_one_epoch(model, train_loader, optimizer, device)
        print(epoch, evaluate(model, test_loader, device))


if __name__ == "__main__":
    main()
