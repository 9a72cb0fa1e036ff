"""pytorch/examples VAE, current style: --accel picks torch.accelerator.current_accelerator(), loader kwargs
only when accelerated, train_loss += loss.item() every step (a real sync, reported as a warning)."""
import argparse

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torchvision import datasets, transforms
from torchvision.utils import save_image

parser = argparse.ArgumentParser(description="VAE MNIST Example")
parser.add_argument("--accel", action="store_true")
parser.add_argument("--log-interval", type=int, default=10)
args = parser.parse_args()
if args.accel and not torch.accelerator.is_available():
    print("ERROR: accelerator is not available, try running on CPU")
    raise SystemExit(1)
if args.accel:  # noqa: SIM108
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Using device {device}")
kwargs = {"num_workers": 1, "pin_memory": True} if args.accel else {}
train_loader = torch.utils.data.DataLoader(datasets.MNIST("../data", train=True, download=True,
                                                          transform=transforms.ToTensor()),
                                           batch_size=128, shuffle=True, **kwargs)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)  # expect: amp_tf32_not_used info
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()  # expect: host_device_sync_in_loop warning
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(epoch, loss.item() / len(data))


for epoch in range(1, 11):
    train(epoch)
    with torch.no_grad():
        sample = torch.randn(64, 20).to(device)
        sample = model.decode(sample).cpu()
        save_image(sample.view(64, 1, 28, 28), "results/sample_" + str(epoch) + ".png")
