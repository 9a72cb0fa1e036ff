"""A device is defined and the data is moved, but the model never is."""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


data = TensorDataset(torch.randn(1000, 20), torch.randint(0, 2, (1000,)))
loader = DataLoader(data, batch_size=32, shuffle=True)
model = MLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for _ in range(3):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = F.cross_entropy(model(xb), yb)  # expect: tensors_on_different_devices error
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
