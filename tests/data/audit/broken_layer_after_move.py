"""Fine-tuning: the backbone is moved with a bare .to(device) and its classifier replaced afterwards; a second
head built later in a helper is never moved."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device)
torch.backends.cudnn.benchmark = True

model = models.efficientnet_b0(weights="IMAGENET1K_V1")
model.to(device)
for p in model.features.parameters():
    p.requires_grad = False
model.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, 37))  # expect: tensors_on_different_devices error

loader = DataLoader(datasets.OxfordIIITPet("data", download=True, transform=transforms.ToTensor()), batch_size=32,
                    shuffle=True, num_workers=4, pin_memory=True)
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
for images, labels in loader:
    images, labels = images.to(device), labels.to(device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
