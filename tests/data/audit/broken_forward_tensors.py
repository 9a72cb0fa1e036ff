"""Tensors built inside forward() without a device: a bias from a Python list added to an activation,
Gaussian noise from torch.randn(x.size()), an RNN's initial hidden state from torch.zeros."""
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)


class NoisyClassifier(nn.Module):
    def __init__(self, sigma=0.1):
        super().__init__()
        self.sigma = sigma
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 3))
        self.prior = [0.2, -0.1, 0.05]

    def forward(self, x):
        if self.training:
            noise = torch.randn(x.size()) * self.sigma  # expect: tensors_on_different_devices error
            x = x + noise
        logits = self.body(x)
        return logits + torch.tensor(self.prior)  # expect: tensors_on_different_devices error


class SeqRegressor(nn.Module):
    def __init__(self, input_size=8, hidden_size=64, num_layers=2):
        super().__init__()
        self.hidden_size, self.num_layers = hidden_size, num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, 1)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)  # expect: tensors_on_different_devices error
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)  # expect: tensors_on_different_devices error
        out, _ = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])


clf = NoisyClassifier().to(device)
reg = SeqRegressor().to(device)
opt = torch.optim.Adam(list(clf.parameters()) + list(reg.parameters()), lr=1e-3)
for _ in range(1000):
    x = torch.randn(64, 32, device=device)
    seq = torch.randn(64, 20, 8, device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = clf(x).logsumexp(-1).mean() + reg(seq).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
