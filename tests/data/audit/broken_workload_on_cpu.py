"""A GPU is checked for, but neither the model nor the data is ever moved: it all runs on the CPU."""
import torch
import torch.nn as nn

print("CUDA available:", torch.cuda.is_available())

model = nn.Sequential(nn.Linear(100, 256), nn.ReLU(), nn.Linear(256, 1))  # expect: workload_left_on_cpu error
optimizer = torch.optim.AdamW(model.parameters())
X = torch.randn(10_000, 100)
Y = torch.randn(10_000, 1)

for _ in range(1000):
    idx = torch.randint(0, len(X), (256,))
    pred = model(X[idx])
    loss = ((pred - Y[idx]) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
