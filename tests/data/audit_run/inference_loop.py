"""Inference forever: no optimizer, so a step is one forward pass of the model. Also runs as a module."""

import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).eval()
with torch.no_grad():
    while True:
        model(torch.randn(4, 8))
