"""channels_last + torch.compile + bf16 autocast, the way the performance tuning guide writes it."""
import torch
import torch.nn.functional as F
import torchvision
from torch.utils.data import DataLoader
from torchvision.transforms import v2

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True

transform = v2.Compose([v2.RandomResizedCrop(176), v2.RandomHorizontalFlip(), v2.ToImage(),
                        v2.ToDtype(torch.float32, scale=True)])
train_set = torchvision.datasets.ImageFolder("/data/train", transform=transform)
train_loader = DataLoader(train_set, batch_size=256, shuffle=True, num_workers=12, pin_memory=True,
                          persistent_workers=True, prefetch_factor=4)

model = torchvision.models.resnet50()
model = model.to(memory_format=torch.channels_last)
model = model.to(device)
compiled = torch.compile(model, mode="max-autotune")
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, nesterov=True, weight_decay=5e-5)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, total_steps=len(train_loader) * 16)

for epoch in range(16):
    compiled.train()
    seen = 0
    for images, targets in train_loader:
        images = images.to(device, non_blocking=True).to(memory_format=torch.channels_last)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(compiled(images), targets, label_smoothing=0.1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        seen += images.shape[0]
    print(f"epoch {epoch}: {seen} images, last loss {loss.item():.3f}")
