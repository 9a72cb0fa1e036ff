"""Plain tensor arithmetic with no model, optimizer or DataLoader: only the operators can stop it."""

import torch

x = torch.ones(16)
while True:
    x = x * 1.0001 + 0.0001
