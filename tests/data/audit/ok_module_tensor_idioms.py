"""Modules that create tensors inside forward() the right way: buffers, device=x.device, new_*, *_like,
F.one_hot, 0-dim constants with dtype=, and a sinusoidal embedding computed on the input's device."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SinusoidalTimeEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        return torch.cat([args.sin(), args.cos()], dim=-1)


class RotaryCache(nn.Module):
    def __init__(self, head_dim, max_len=2048, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        t = torch.arange(max_len, dtype=inv_freq.dtype)
        freqs = torch.outer(t, inv_freq)
        self.register_buffer("cos", freqs.cos(), persistent=False)
        self.register_buffer("sin", freqs.sin(), persistent=False)

    def forward(self, x):
        t = x.shape[-2]
        return self.cos[:t].to(x.dtype), self.sin[:t].to(x.dtype)


class Denoiser(nn.Module):
    def __init__(self, channels=3, dim=64, num_classes=10, T=1000):
        super().__init__()
        self.num_classes = num_classes
        self.time = SinusoidalTimeEmbedding(dim)
        self.label = nn.Linear(num_classes, dim)
        self.inp = nn.Conv2d(channels, dim, 3, padding=1)  # expect: cudnn_benchmark_off info
        self.mid = nn.Sequential(nn.GroupNorm(8, dim), nn.SiLU(), nn.Conv2d(dim, dim, 3, padding=1))
        self.out = nn.Conv2d(dim, channels, 3, padding=1)
        betas = torch.linspace(1e-4, 0.02, T)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, x, t, y):
        cond = self.time(t) + self.label(F.one_hot(y, self.num_classes).float())
        h = self.inp(x) + cond[:, :, None, None]
        h = h + self.mid(h)
        zero = x.new_zeros(x.shape[0], 1, 1, 1)
        eps = torch.tensor(1e-5, dtype=x.dtype)
        scale = torch.full((), 0.5, dtype=h.dtype)
        return self.out(h) * scale / (self.temperature + eps) + zero

    def q_sample(self, x0, t):
        noise = torch.randn_like(x0)
        a = self.alphas_cumprod[t].sqrt()[:, None, None, None]
        s = (1 - self.alphas_cumprod[t]).sqrt()[:, None, None, None]
        return a * x0 + s * noise, noise


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, block_size):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        pos = torch.arange(T, device=x.device)
        att = att + torch.zeros_like(att) + 0.0 * pos[None, None, None, :]
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"device: {device}")
model = Denoiser().to(device)
attn = CausalSelfAttention(64, 4, 128).to(device)
optimizer = torch.optim.AdamW(list(model.parameters()) + list(attn.parameters()), lr=2e-4)
for step in range(10_000):
    x0 = torch.randn(32, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (32,), device=device)
    t = torch.randint(0, 1000, (32,), device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        xt, noise = model.q_sample(x0, t)
        loss = F.mse_loss(model(xt, t, y), noise)
        loss = loss + attn(torch.randn(32, 16, 64, device=device)).pow(2).mean()
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if step % 500 == 0:
        print(step, loss.item())
