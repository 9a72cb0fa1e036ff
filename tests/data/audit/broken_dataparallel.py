"""nn.DataParallel where DistributedDataParallel is meant."""
import torch
import torch.nn as nn
import torchvision

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Let's use", torch.cuda.device_count(), "GPUs!")
model = torchvision.models.resnet18(num_classes=10)
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)  # expect: multi_gpu_unused warning
model.to(device)
