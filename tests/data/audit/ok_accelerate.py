"""Hugging Face accelerate: prepare() places the model and the batches; no .to(device) is right."""
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

accelerator = Accelerator(mixed_precision="bf16")
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
dataset = TensorDataset(torch.randn(4096, 32), torch.randint(0, 4, (4096,)))
train_dataloader = DataLoader(dataset, batch_size=64, shuffle=True)
model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
for _ in range(10):
    for inputs, targets in train_dataloader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        accelerator.backward(loss)
        optimizer.step()
