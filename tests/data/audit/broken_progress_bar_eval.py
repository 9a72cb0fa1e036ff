"""tqdm(enumerate(loader)) with batches never moved; an EMA model built fresh and never moved; evaluation
that copies predictions to the CPU and compares them with labels still on the GPU."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from tqdm import tqdm


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.features(x))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device)
torch.backends.cudnn.benchmark = True
tf = transforms.ToTensor()
train_loader = DataLoader(datasets.KMNIST("data", download=True, transform=tf), batch_size=128, shuffle=True,
                          num_workers=4, pin_memory=True)
test_loader = DataLoader(datasets.KMNIST("data", train=False, transform=tf), batch_size=512, num_workers=4,
                         pin_memory=True)
model = ConvNet().to(device)
ema_model = ConvNet()
ema_model.load_state_dict(model.state_dict())
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(10):
    model.train()
    for i, (images, labels) in tqdm(enumerate(train_loader), total=len(train_loader)):
        if i == 0:
            print(f"epoch {epoch}")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(images), labels)  # expect: tensors_on_different_devices error
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for ema_p, p in zip(ema_model.parameters(), model.parameters(), strict=True):
                ema_p.mul_(0.999).add_(p.detach(), alpha=0.001)

    model.eval()
    correct = ema_correct = 0
    with torch.no_grad():
        for images, labels in test_loader:
            images, labels = images.to(device), labels.to(device)
            preds = model(images).argmax(1).cpu()  # expect: tensors_on_different_devices error
            correct += (preds == labels).sum().item()
            ema_preds = ema_model(images).argmax(1)  # expect: tensors_on_different_devices error
            ema_correct += (ema_preds == labels).sum().item()
    n = len(test_loader.dataset)
    print(f"epoch {epoch}: acc {correct / n:.3f} ema {ema_correct / n:.3f}")
