"""A script whose training step is a closure inside main(): the loader's collate_fn already moves batches
to f"cuda:{args.gpu}", the GPU is the user's choice (--gpu -1 for the CPU), logging is time-based."""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", type=int, default=0, help="GPU index, -1 for the CPU")
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()
    if args.gpu >= 0:
        device = torch.device(f"cuda:{args.gpu}")
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")

    def to_device(samples):
        xs, ys = zip(*samples, strict=True)
        return torch.stack(xs).to(device, non_blocking=True), torch.stack(ys).to(device, non_blocking=True)

    data = TensorDataset(torch.randn(50_000, 64), torch.randint(0, 10, (50_000,)))
    loader = DataLoader(data, batch_size=512, shuffle=True, collate_fn=to_device, drop_last=True)
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    noise_scale = torch.tensor(0.05, device=device)

    def step(x, y):
        x = x + noise_scale * torch.randn_like(x)
        with torch.autocast(device.type, dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss.detach()

    done, last_log = 0, time.monotonic()
    while done < args.steps:
        for x, y in loader:
            loss = step(x, y)
            done += 1
            if time.monotonic() - last_log > 10:
                print(f"step {done}: loss {loss.item():.4f}")
                last_log = time.monotonic()


if __name__ == "__main__":
    main()
