"""torch.set_default_device("cuda"): layers and tensors are created on the GPU without .to()."""
import torch
from torch import nn

if not torch.cuda.is_available():
    raise SystemExit("this script needs a CUDA GPU")
torch.set_default_device("cuda")
torch.set_float32_matmul_precision("high")
model = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 128))
optimizer = torch.optim.AdamW(model.parameters())
for _ in range(1000):
    x = torch.randn(64, 128)
    loss = (model(x) - x).pow(2).mean() + 1e-4 * torch.zeros(128).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
