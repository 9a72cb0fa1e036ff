"""A small Trainer class: the device lives on self, batches go through a to_device() helper."""
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


def to_device(batch, device):
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch.to(device, non_blocking=True)


class SeqDataset(Dataset):
    def __init__(self, n=10_000, length=64):
        self.data = torch.randint(0, 1000, (n, length))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return {"tokens": self.data[i], "target": self.data[i].roll(-1)}


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, dim=256, max_len=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.register_buffer("positions", torch.arange(max_len))
        self.blocks = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        t = tokens.size(1)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tokens.device), diagonal=1)
        h = self.embed(tokens) + self.embed(self.positions[:t])[None]
        h = self.blocks(h, mask=mask)
        return self.head(h)


@dataclass
class Config:
    epochs: int = 5
    lr: float = 3e-4
    batch_size: int = 32


class Trainer:
    def __init__(self, model, train_set, config):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if self.device.type == "cpu":
            print("warning: no CUDA device, training on the CPU")
        self.model = model.to(self.device)
        self.config = config
        self.loader = DataLoader(train_set, batch_size=config.batch_size, shuffle=True, num_workers=4,
                                 pin_memory=True)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr)
        self.criterion = nn.CrossEntropyLoss()

    def train_step(self, batch):
        batch = to_device(batch, self.device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = self.model(batch["tokens"])
            loss = self.criterion(logits.flatten(0, 1), batch["target"].flatten())
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def fit(self):
        for epoch in range(self.config.epochs):
            total = torch.zeros((), device=self.device)
            for batch in self.loader:
                total += self.train_step(batch)
            print(f"epoch {epoch}: loss {total.item() / len(self.loader):.4f}")


if __name__ == "__main__":
    Trainer(TinyLM(), SeqDataset(), Config()).fit()
