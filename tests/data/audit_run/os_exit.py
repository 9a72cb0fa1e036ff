"""Trains three steps, then leaves with os._exit (as some launchers and "fast exit" scripts do): no Python
unwinding, no atexit; gpuassist's final summary must still be taken."""

import os

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(3):
    optimizer.zero_grad()
    model(torch.randn(2, 4)).sum().backward()
    optimizer.step()
os._exit(3)
