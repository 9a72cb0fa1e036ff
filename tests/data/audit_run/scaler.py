"""Loss scaling with a GradScaler: scaler.step() reads its inf/NaN check every step (a wait that belongs to
float16 training, not to the user's logging)."""

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
while True:
    optimizer.zero_grad()
    scaler.scale(model(torch.ones(2, 4)).sum()).backward()
    scaler.step(optimizer)
    scaler.update()
