"""The device is hard-coded to the CPU."""
import torch
from torch import nn

device = torch.device("cpu")  # expect: workload_left_on_cpu warning
cpu = torch.device("cpu")  # a CPU handle for copies back, not the training device: fine

model = nn.GRU(32, 64, batch_first=True).to(device)
head = nn.Linear(64, 1).to(device)
params = list(model.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params)
for _ in range(100):
    seq = torch.randn(16, 50, 32, device=device)
    out, _ = model(seq)
    loss = head(out[:, -1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
final = head.weight.detach().to(cpu)
