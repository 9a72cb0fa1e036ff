"""Tensor.to() is not in place; a head replaced after the model was moved stays on the CPU."""
import torch
import torchvision
from torch import nn
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)
torch.backends.cudnn.benchmark = True

model = torchvision.models.resnet18(weights="IMAGENET1K_V1").to(device)
model.fc = nn.Linear(model.fc.in_features, 5)  # expect: tensors_on_different_devices error
optimizer = torch.optim.AdamW(model.parameters())
criterion = nn.CrossEntropyLoss()


def fit(loader: DataLoader, epochs: int = 3) -> None:
    for _ in range(epochs):
        for inputs, labels in loader:
            inputs.to(device)  # expect: tensors_on_different_devices error
            labels = labels.to(device)
            with torch.autocast("cuda"):
                loss = criterion(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
