"""The device is chosen in a config dataclass and read as cfg.device everywhere; an EMA teacher for
self-distillation is a deepcopy of the moved student."""
import copy
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def default_device() -> str:
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


@dataclass
class TrainConfig:
    data_dir: str = "data"
    epochs: int = 100
    batch_size: int = 256
    lr: float = 5e-4
    ema_decay: float = 0.996
    device: str = field(default_factory=default_device)
    num_workers: int = 8


def build_loader(cfg: TrainConfig) -> DataLoader:
    aug = transforms.Compose([transforms.RandomResizedCrop(96), transforms.RandomHorizontalFlip(),
                              transforms.ToTensor()])
    ds = datasets.STL10(cfg.data_dir, split="unlabeled", download=True, transform=aug)
    return DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, num_workers=cfg.num_workers,
                      pin_memory=cfg.device == "cuda", drop_last=True)


@torch.no_grad()
def update_teacher(student: nn.Module, teacher: nn.Module, decay: float) -> None:
    for ps, pt in zip(student.parameters(), teacher.parameters(), strict=True):
        pt.mul_(decay).add_(ps.detach(), alpha=1 - decay)


def train(cfg: TrainConfig) -> None:
    print(f"config: {cfg}")
    torch.backends.cudnn.benchmark = True
    student = models.resnet18(num_classes=256).to(cfg.device)
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad = False
    center = torch.zeros(1, 256, device=cfg.device)
    optimizer = torch.optim.AdamW(student.parameters(), lr=cfg.lr)
    loader = build_loader(cfg)
    for epoch in range(cfg.epochs):
        for images, _ in loader:
            images = images.to(cfg.device, non_blocking=True)
            with torch.autocast(device_type=cfg.device, dtype=torch.bfloat16):
                s_out = student(images)
                with torch.no_grad():
                    t_out = teacher(images)
                loss = torch.sum(-F.softmax((t_out - center) / 0.04, dim=-1) * F.log_softmax(s_out / 0.1, dim=-1),
                                 dim=-1).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            update_teacher(student, teacher, cfg.ema_decay)
            center = center * 0.9 + t_out.float().mean(dim=0, keepdim=True) * 0.1
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    train(TrainConfig())
