"""fairseq/detectron style: samples are nested dicts moved by a recursive helper before the step."""
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


def apply_to_sample(f, sample):
    if hasattr(sample, "__len__") and len(sample) == 0:
        return {}

    def _apply(x):
        if torch.is_tensor(x):
            return f(x)
        if isinstance(x, dict):
            return {key: _apply(value) for key, value in x.items()}
        if isinstance(x, list):
            return [_apply(x) for x in x]
        if isinstance(x, tuple):
            return tuple(_apply(x) for x in x)
        return x

    return _apply(sample)


def move_to_cuda(sample, device=None):
    device = device or torch.cuda.current_device()

    def _move_to_cuda(tensor):
        return tensor.to(device=device, non_blocking=True)

    return apply_to_sample(_move_to_cuda, sample)


class PairDataset(Dataset):
    def __init__(self, src, tgt):
        self.src, self.tgt = src, tgt

    def __len__(self):
        return len(self.src)

    def __getitem__(self, i):
        return {"id": i, "net_input": {"src_tokens": self.src[i]}, "target": self.tgt[i]}


class Encoder(nn.Module):
    def __init__(self, vocab=1000, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=1)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, src_tokens):
        h, _ = self.rnn(self.embed(src_tokens))
        return self.out(h)


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.cuda = torch.cuda.is_available()
        logger.info("cuda available: %s", self.cuda)
        self.model = model.cuda() if self.cuda else model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def _prepare_sample(self, sample):
        if self.cuda:
            sample = move_to_cuda(sample)
        return sample

    def train_step(self, sample):
        self.model.train()
        sample = self._prepare_sample(sample)
        with torch.autocast("cuda", dtype=torch.float16, enabled=self.cuda):
            logits = self.model(**sample["net_input"])
            loss = F.cross_entropy(logits.transpose(1, 2), sample["target"], ignore_index=1)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.detach(), "ntokens": sample["target"].numel()}


def collate(samples):
    return {
        "id": torch.tensor([s["id"] for s in samples]),
        "net_input": {"src_tokens": torch.stack([s["net_input"]["src_tokens"] for s in samples])},
        "target": torch.stack([s["target"] for s in samples]),
    }


def main():
    src = torch.randint(2, 1000, (5000, 40))
    dataset = PairDataset(src, src.roll(1, dims=1))
    loader = DataLoader(dataset, batch_size=32, shuffle=True, collate_fn=collate, num_workers=2, pin_memory=True)
    trainer = Trainer(Encoder())
    for epoch in range(5):
        logs = [trainer.train_step(sample) for sample in loader]
        mean = torch.stack([log["loss"] for log in logs]).mean()
        logger.info("epoch %d loss %.3f", epoch, mean.item())


if __name__ == "__main__":
    main()
