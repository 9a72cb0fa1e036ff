"""A model step that is cheap next to its data: every sample takes 5 ms to "decode" in the main process."""

import time

import torch
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        time.sleep(0.005)  # stands in for decoding and augmentation
        return torch.full((4,), float(i)), torch.tensor([1.0])


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
for inputs, targets in DataLoader(SlowDataset(), batch_size=4):
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(inputs), targets).backward()
    optimizer.step()
