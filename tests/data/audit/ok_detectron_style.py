"""detectron2 style: a model whose forward() takes a list of dicts from the loader and moves the images
itself (self.device is a property of a buffer), driven by a SimpleTrainer with run_step(); batches are
lists of dicts (a trivial collate)."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class TinyDetector(nn.Module):
    def __init__(self, num_classes=80):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        self.cls_head = nn.Conv2d(64, num_classes, 1)
        self.register_buffer("pixel_mean", torch.tensor([103.53, 116.28, 123.675]).view(-1, 1, 1), False)
        self.register_buffer("pixel_std", torch.tensor([57.375, 57.12, 58.395]).view(-1, 1, 1), False)

    @property
    def device(self):
        return self.pixel_mean.device

    def preprocess_image(self, batched_inputs):
        images = [x["image"].to(self.device, non_blocking=True) for x in batched_inputs]
        return torch.stack([(x - self.pixel_mean) / self.pixel_std for x in images])

    def forward(self, batched_inputs):
        images = self.preprocess_image(batched_inputs)
        logits = self.cls_head(self.backbone(images)).mean((2, 3))
        if not self.training:
            return logits
        targets = torch.stack([x["label"] for x in batched_inputs]).to(self.device)
        return {"loss_cls": F.cross_entropy(logits, targets), "loss_reg": logits.pow(2).mean() * 1e-4}


class DetectionDataset(Dataset):
    def __init__(self, n=10_000):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"image": torch.rand(3, 256, 256) * 255, "label": torch.tensor(i % 80), "image_id": i}


def trivial_batch_collator(batch):
    return batch


class SimpleTrainer:
    def __init__(self, model, data_loader, optimizer):
        self.model = model
        self.data_loader = data_loader
        self._data_loader_iter = iter(data_loader)
        self.optimizer = optimizer
        self.iter = 0

    def run_step(self):
        start = time.perf_counter()
        data = next(self._data_loader_iter)
        data_time = time.perf_counter() - start
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss_dict = self.model(data)
        losses = sum(loss_dict.values())
        self.optimizer.zero_grad()
        losses.backward()
        self.optimizer.step()
        if self.iter % 20 == 0:
            metrics = {k: v.detach().cpu().item() for k, v in loss_dict.items()}
            print(f"iter {self.iter}: {metrics} data_time {data_time:.3f}")
        self.iter += 1

    def train(self, max_iter):
        self.model.train()
        while self.iter < max_iter:
            self.run_step()


if __name__ == "__main__":
    torch.backends.cudnn.benchmark = True
    model = TinyDetector().to(torch.device("cuda"))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    train_loader = DataLoader(DetectionDataset(), batch_size=16, shuffle=True, num_workers=4, pin_memory=True,
                              collate_fn=trivial_batch_collator)
    SimpleTrainer(model, train_loader, optimizer).train(max_iter=90_000)
