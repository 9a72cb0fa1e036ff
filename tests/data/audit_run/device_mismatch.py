"""A model left on one device and its input on another: torch raises at the forward (meta stands in for
the GPU on a machine without one)."""

import torch

model = torch.nn.Linear(4, 2, device="meta")
inputs = torch.ones(3, 4)
outputs = model(inputs)
print("never reached", outputs)
