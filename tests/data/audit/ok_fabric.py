"""Lightning Fabric: fabric.setup() and setup_dataloaders() place the model and the batches."""
import torch
import torch.nn.functional as F
from lightning.fabric import Fabric
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

fabric = Fabric(accelerator="cuda", devices=2, strategy="ddp", precision="bf16-mixed")
fabric.launch()
dataset = datasets.CIFAR10("data", download=True, transform=transforms.ToTensor())
dataloader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=4)  # expect: dataloader_starvation info
model = models.resnet18(num_classes=10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model, optimizer = fabric.setup(model, optimizer)
dataloader = fabric.setup_dataloaders(dataloader)
model.train()
for epoch in range(10):
    for inputs, targets in dataloader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        fabric.backward(loss)
        optimizer.step()
    fabric.print(f"epoch {epoch} loss {loss.item():.3f}")
