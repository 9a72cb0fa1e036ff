"""torchrun + DDP written the classic way: set_device(local_rank), .cuda(local_rank), a step function."""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TokenFile(Dataset):
    def __init__(self, path, seq_len=512):
        self.data = torch.load(path)
        self.seq_len = seq_len

    def __len__(self):
        return (len(self.data) - 1) // self.seq_len

    def __getitem__(self, i):
        chunk = self.data[i * self.seq_len:(i + 1) * self.seq_len + 1]
        return chunk[:-1], chunk[1:]


class LM(nn.Module):
    def __init__(self, vocab=32000, dim=512, layers=6):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, 8, 4 * dim, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=idx.device)
        return self.head(self.body(self.tok(idx), mask=mask, is_causal=True))


def train_step(model, optimizer, x, y):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="tokens.pt")
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")
    is_main = dist.get_rank() == 0

    dataset = TokenFile(args.data)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=4, pin_memory=True, drop_last=True)

    model = LM().cuda(local_rank)
    model = DistributedDataParallel(model, device_ids=[local_rank], output_device=local_rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(1, device=f"cuda:{local_rank}")
        for x, y in loader:
            x = x.cuda(local_rank, non_blocking=True)
            y = y.cuda(local_rank, non_blocking=True)
            total += train_step(model, optimizer, x, y)
        dist.all_reduce(total)
        if is_main:
            print(f"epoch {epoch}: mean loss {total.item() / (len(loader) * dist.get_world_size()):.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
