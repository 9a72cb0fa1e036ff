"""A correct conv net training loop that leaves speed on the table: hints only, no error."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class SmallResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 3, padding=1, bias=False)  # expect: cudnn_benchmark_off info
        self.bn = nn.BatchNorm2d(64)
        self.block = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU())
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        x = x + self.block(x)
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"training on {device}")
loader = DataLoader(datasets.CIFAR10("data", download=True, transform=transforms.ToTensor()), batch_size=256,
                    shuffle=True, num_workers=8, pin_memory=True, persistent_workers=True)
model = SmallResNet().to(device, memory_format=torch.channels_last)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)

for _ in range(30):
    for images, labels in loader:
        images = images.to(device, non_blocking=True, memory_format=torch.channels_last)
        labels = labels.to(device, non_blocking=True)
        logits = model(images)  # expect: amp_tf32_not_used info
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
