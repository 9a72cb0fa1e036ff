"""torchvision-reference style: train_one_epoch(model, loader, device) with autocast and GradScaler."""
import time

import torch
import torchvision
from torch import nn
from torch.utils.data import DataLoader


def train_one_epoch(model, criterion, optimizer, data_loader, device, epoch, scaler=None, print_freq=50):
    model.train()
    start = time.time()
    for i, (image, target) in enumerate(data_loader):
        image, target = image.to(device, non_blocking=True), target.to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", enabled=scaler is not None):
            output = model(image)
            loss = criterion(output, target)
        optimizer.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        if i % print_freq == 0:
            acc1 = (output.argmax(1) == target).float().mean()
            print(f"epoch {epoch} [{i}] loss {loss.item():.4f} acc@1 {acc1.item():.3f} {time.time() - start:.1f}s")


@torch.inference_mode()
def evaluate(model, criterion, data_loader, device):
    model.eval()
    losses = []
    for image, target in data_loader:
        image = image.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        losses.append(criterion(model(image), target))
    return torch.stack(losses).mean().item()


def load_data(traindir, valdir):
    tf = torchvision.transforms.Compose([torchvision.transforms.RandomResizedCrop(224),
                                         torchvision.transforms.ToTensor()])
    return torchvision.datasets.ImageFolder(traindir, tf), torchvision.datasets.ImageFolder(valdir, tf)


def main(data_path="/data/imagenet", epochs=90, amp=True):
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    dataset, dataset_test = load_data(f"{data_path}/train", f"{data_path}/val")
    data_loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=16, pin_memory=True,
                             persistent_workers=True)
    data_loader_test = DataLoader(dataset_test, batch_size=256, num_workers=16, pin_memory=True)
    model = torchvision.models.resnet50(weights=None)
    model.fc = nn.Linear(model.fc.in_features, 100)
    model.to(device)
    model = model.to(memory_format=torch.channels_last)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, weight_decay=2e-5)
    scaler = torch.amp.GradScaler("cuda") if amp else None
    for epoch in range(epochs):
        train_one_epoch(model, criterion, optimizer, data_loader, device, epoch, scaler)
        print(f"epoch {epoch}: val loss {evaluate(model, criterion, data_loader_test, device):.3f}")


if __name__ == "__main__":
    main()
