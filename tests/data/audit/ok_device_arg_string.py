"""A CLI that takes --device (default "cuda"), builds torch.device(args.device) and threads it through."""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda", help="cuda, cuda:1, mps or cpu")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--amp", action="store_true")
    return p.parse_args()


def make_model(num_classes=10):
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(64, num_classes),
    )


def run_epoch(model, loader, optimizer, device, scaler, amp):
    model.train()
    running = torch.zeros((), device=device)
    start = time.perf_counter()
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        with torch.autocast(device_type=device.type, enabled=amp):
            loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        running += loss.detach()
    return running.item() / len(loader), time.perf_counter() - start


def main():
    args = get_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        assert torch.cuda.is_available(), "--device cuda given but CUDA is not available"
        torch.backends.cudnn.benchmark = True
    tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                             transforms.ToTensor()])
    train_set = datasets.CIFAR10("data", train=True, download=True, transform=tf)
    loader = DataLoader(train_set, batch_size=256, shuffle=True, num_workers=args.workers,
                        pin_memory=device.type == "cuda", drop_last=True)
    model = make_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    scaler = torch.amp.GradScaler(device.type, enabled=args.amp)
    for epoch in range(args.epochs):
        loss, secs = run_epoch(model, loader, optimizer, device, scaler, args.amp)
        print(f"epoch {epoch}: loss {loss:.3f} ({secs:.1f}s)")


if __name__ == "__main__":
    main()
