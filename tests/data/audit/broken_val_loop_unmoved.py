"""Batches are moved in the training loop but the validation loop forgets; a dict-or-tuple batch is moved
in one branch and used unmoved in the other."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"device: {device}")
torch.backends.cudnn.benchmark = True
tf = transforms.Compose([transforms.Resize(64), transforms.ToTensor()])
train_loader = DataLoader(datasets.CIFAR100("data", download=True, transform=tf), batch_size=128, shuffle=True,
                          num_workers=8, pin_memory=True)
val_loader = DataLoader(datasets.CIFAR100("data", train=False, transform=tf), batch_size=256, num_workers=8,
                        pin_memory=True)
model = models.resnet34(num_classes=100).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def run_batch(batch):
    if isinstance(batch, dict):
        batch = {k: v.to(device) for k, v in batch.items()}
        logits = model(batch["image"])
        target = batch["label"]
    else:
        inputs, target = batch
        logits = model(inputs)  # expect: tensors_on_different_devices error
    return F.cross_entropy(logits, target)


for epoch in range(100):
    model.train()
    for images, labels in train_loader:
        images, labels = images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in val_loader:
            preds = model(images).argmax(1)  # expect: tensors_on_different_devices error
            correct += (preds == labels).sum().item()
    print(f"epoch {epoch}: val acc {correct / len(val_loader.dataset):.3f}")
    for batch in train_loader:
        loss = run_batch(batch)
        break
