"""The classic: the model is moved to the GPU, the batches never are."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device}")

train_set = datasets.FashionMNIST("data", train=True, download=True, transform=transforms.ToTensor())
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)

model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

for _ in range(5):
    model.train()
    for batch, (X, y) in enumerate(train_loader):
        pred = model(X)  # expect: tensors_on_different_devices error; amp_tf32_not_used info
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 100 == 0:
            print(f"loss: {loss.item():>7f}  [{batch * len(X):>5d}/{len(train_loader.dataset):>5d}]")
