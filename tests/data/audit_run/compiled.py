"""A model compiled with torch.compile (the "eager" backend: Dynamo traces it, no code generation) that is
trained for a few steps; at the end it says how many graphs Dynamo captured."""

import torch
from torch._dynamo.utils import counters

model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
compiled = torch.compile(model, backend="eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(4):
    optimizer.zero_grad()
    compiled(torch.randn(4, 8)).sum().backward()
    optimizer.step()
print(f"graphs captured: {counters['stats']['unique_graphs']}")
