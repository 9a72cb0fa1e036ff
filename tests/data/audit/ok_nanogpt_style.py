"""nanoGPT-style: batches sampled from a memmap and moved in get_batch(), an iteration-counted while loop."""
import math
import os
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

batch_size, block_size, max_iters, eval_interval, eval_iters = 12, 256, 5000, 250, 50
device = "cuda" if torch.cuda.is_available() else "cpu"
if device == "cpu":
    print("CUDA not available: this will be slow")
device_type = "cuda" if "cuda" in device else "cpu"
ptdtype = torch.bfloat16
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
torch.backends.cuda.matmul.allow_tf32 = True
data_dir = os.path.join("data", "shakespeare_char")


def get_batch(split):
    data = np.memmap(os.path.join(data_dir, f"{split}.bin"), dtype=np.uint16, mode="r")
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block_size].astype(np.int64)) for i in ix])
    if device_type == "cuda":
        x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
    else:
        x, y = x.to(device), y.to(device)
    return x, y


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        t = x.size(1)
        causal = torch.triu(torch.ones(t, t, device=x.device, dtype=torch.bool), 1)
        h = self.ln(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.mlp(self.ln(x))


class GPT(nn.Module):
    def __init__(self, vocab_size=65, n_embd=384, n_head=6, n_layer=6):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.pos = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.head(x)
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


@torch.no_grad()
def estimate_loss(model):
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                _, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


model = GPT()
model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
X, Y = get_batch("train")
iter_num = 0
while iter_num < max_iters:
    lr = 1e-3 * 0.5 * (1 + math.cos(math.pi * iter_num / max_iters))
    for group in optimizer.param_groups:
        group["lr"] = lr
    if iter_num % eval_interval == 0:
        losses = estimate_loss(model)
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    with ctx:
        logits, loss = model(X, Y)
    X, Y = get_batch("train")
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
