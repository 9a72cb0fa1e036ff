"""DataLoaders that starve the GPU: no workers, num_workers=0, workers without pinned memory."""
import torch
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets, models, transforms


class ImageFiles(Dataset):
    def __init__(self, paths, labels):
        self.paths, self.labels = paths, labels
        self.tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        from PIL import Image

        return self.tf(Image.open(self.paths[i]).convert("RGB")), self.labels[i]


device = "cuda" if torch.cuda.is_available() else "cpu"
print("device:", device)
torch.backends.cudnn.benchmark = True
train = DataLoader(ImageFiles([], []), batch_size=64, shuffle=True)  # expect: dataloader_starvation warning
val_set = datasets.ImageFolder("val", transforms.ToTensor())
val = DataLoader(val_set, batch_size=64, num_workers=0)  # expect: dataloader_starvation warning
test = DataLoader(datasets.ImageFolder("test"), batch_size=64, num_workers=8)  # expect: dataloader_starvation info

model = models.resnet50(weights=None).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scaler = torch.amp.GradScaler("cuda")
for images, targets in train:
    images = images.to(device, non_blocking=True)
    targets = targets.to(device, non_blocking=True)
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(model(images), targets)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
