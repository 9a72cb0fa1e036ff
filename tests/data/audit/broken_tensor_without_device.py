"""Tensors created without a device: at top level, in forward(), as a plain attribute, a layer in forward()."""
import torch
import torch.nn as nn

x = torch.randn(3, device="cuda")
y = torch.ones(3)  # expect: tensors_on_different_devices error
z = x + y


class Attention(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.mask = torch.tril(torch.ones(max_len, max_len))  # expect: tensors_on_different_devices error
        self.scale = dim ** -0.5

    def forward(self, x):
        t = x.size(1)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = (q @ k.transpose(-2, -1)) * self.scale
        att = att.masked_fill(self.mask[:t, :t] == 0, float("-inf"))
        return att.softmax(-1) @ v


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = Attention(dim, 128)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        pos = torch.arange(x.size(1))  # expect: tensors_on_different_devices error
        h = self.attn(x + pos[None, :, None])
        h = nn.LayerNorm(h.size(-1))(h)  # expect: tensors_on_different_devices error
        return self.head(h.mean(1))


device = "cuda"
model = Model(64).to(device)
out = model(torch.randn(8, 16, 64, device=device))
