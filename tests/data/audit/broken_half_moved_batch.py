"""Labels are moved, inputs are not; a .cuda() whose result is thrown away; a target built from a list."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, series, width=96):
        self.series, self.width = series, width

    def __len__(self):
        return len(self.series) - self.width - 1

    def __getitem__(self, i):
        return self.series[i:i + self.width], self.series[i + self.width]


class TCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(1, 32, 5, padding=2), nn.ReLU(), nn.Conv1d(32, 1, 1))

    def forward(self, x):
        return self.net(x.unsqueeze(1)).squeeze(1)[:, -1]


torch.backends.cudnn.benchmark = True
model = TCN().cuda()
loader = DataLoader(Windows(torch.randn(100_000)), batch_size=256, shuffle=True, num_workers=4, pin_memory=True)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.MSELoss()
for epoch in range(10):
    for window, target in loader:
        target = target.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            pred = model(window)  # expect: tensors_on_different_devices error
            loss = criterion(pred, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for window, target in loader:
        window.cuda()  # expect: tensors_on_different_devices error
        target = target.cuda()
        with torch.no_grad():
            err = (model(window) - target).abs().mean()
        break
    thresholds = torch.tensor([0.1, 0.5, 1.0])  # expect: tensors_on_different_devices error
    print(epoch, (err < thresholds).tolist())
