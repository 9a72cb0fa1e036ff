"""Gradient accumulation: loss.item() only every N micro-steps, tqdm postfix per step, an eval loop with .item()."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms
from tqdm import tqdm

accumulation_steps = 8
log_every = 50
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"device={device}")
torch.backends.cudnn.benchmark = True

tf = transforms.Compose([transforms.Resize(128), transforms.CenterCrop(112), transforms.ToTensor()])
train_loader = DataLoader(datasets.Food101("data", split="train", transform=tf, download=True), batch_size=16,
                          shuffle=True, num_workers=6, pin_memory=True)
val_loader = DataLoader(datasets.Food101("data", split="test", transform=tf), batch_size=64, num_workers=6,
                        pin_memory=True)
model = models.efficientnet_b0(num_classes=101).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")

for epoch in range(10):
    model.train()
    optimizer.zero_grad(set_to_none=True)
    running = 0.0
    pbar = tqdm(enumerate(train_loader), total=len(train_loader), desc=f"epoch {epoch}")
    for i, (images, labels) in pbar:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = criterion(model(images), labels) / accumulation_steps
        scaler.scale(loss).backward()
        if (i + 1) % accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            running += loss.item() * accumulation_steps
        if i % log_every == 0:
            pbar.set_postfix(loss=f"{running / max(1, (i + 1) // accumulation_steps):.4f}")
        pbar.set_postfix(loss=loss.item())  # expect: host_device_sync_in_loop warning

    model.eval()
    val_loss, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for images, labels in tqdm(val_loader, leave=False):
            images, labels = images.to(device), labels.to(device)
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                outputs = model(images)
            val_loss += criterion(outputs, labels).item() * images.size(0)
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.size(0)
    print(f"val loss {val_loss / total:.4f} acc {correct / total:.3f}")
