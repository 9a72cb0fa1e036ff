"""Checks something, then leaves early with sys.exit(0) before any training step."""

import sys

import torch

model = torch.nn.Linear(4, 1)
model(torch.ones(1, 4))
if not torch.cuda.is_available():
    sys.exit(0)
print("would train here")
