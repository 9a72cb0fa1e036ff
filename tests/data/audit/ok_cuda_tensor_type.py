"""Old-style CUDA tensor types: batches converted with .type(torch.cuda.FloatTensor), noise from
torch.cuda.FloatTensor(...).normal_(), the model moved with .cuda() unconditionally."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

assert torch.cuda.is_available(), "this script needs a GPU"
Tensor = torch.cuda.FloatTensor
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 784)).cuda()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
loader = DataLoader(datasets.MNIST("data", download=True, transform=transforms.ToTensor()), batch_size=128,
                    shuffle=True, num_workers=4, pin_memory=True)
for epoch in range(20):
    for imgs, _ in loader:
        clean = imgs.type(Tensor).view(imgs.size(0), -1)
        noisy = clean + 0.3 * Tensor(clean.size()).normal_()
        labels_onehot = imgs.type(torch.cuda.FloatTensor)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(net(noisy), clean) + 0.0 * net(labels_onehot).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, loss.item())
