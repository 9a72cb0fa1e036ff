"""WGAN-GP: a critic trained n_critic times per generator step, two optimizers, a gradient penalty built
with torch.autograd.grad on interpolates created on the device."""
import torch
import torch.autograd as autograd
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from torchvision.utils import save_image

cuda = True if torch.cuda.is_available() else False  # noqa: SIM210
print("cuda:", cuda)
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
latent_dim, img_shape, n_critic, lambda_gp = 100, (1, 28, 28), 5, 10


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(latent_dim, 256), nn.LeakyReLU(0.2, inplace=True),
                                   nn.Linear(256, 784), nn.Tanh())

    def forward(self, z):
        return self.model(z).view(z.size(0), *img_shape)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2, inplace=True), nn.Linear(256, 1))

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


generator = Generator()
discriminator = Discriminator()
if cuda:
    generator.cuda()
    discriminator.cuda()

dataloader = DataLoader(datasets.MNIST("data", train=True, download=True,
                                       transform=transforms.Compose([transforms.ToTensor(),
                                                                     transforms.Normalize([0.5], [0.5])])),
                        batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = Tensor(real_samples.size(0), 1, 1, 1).uniform_()
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones_like(d_interpolates, requires_grad=False)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake, create_graph=True,
                              retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


batches_done = 0
for epoch in range(200):
    for i, (imgs, _) in enumerate(dataloader):
        real_imgs = imgs.type(Tensor)
        optimizer_D.zero_grad()
        z = Tensor(imgs.shape[0], latent_dim).normal_(0, 1)
        with torch.autocast("cuda", enabled=cuda):
            fake_imgs = generator(z)
            real_validity = discriminator(real_imgs)
            fake_validity = discriminator(fake_imgs.detach())
        gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty
        d_loss.backward()
        optimizer_D.step()
        if i % n_critic == 0:
            optimizer_G.zero_grad()
            fake_imgs = generator(z)
            g_loss = -torch.mean(discriminator(fake_imgs))
            g_loss.backward()
            optimizer_G.step()
            print(f"[Epoch {epoch}] [Batch {i}/{len(dataloader)}] [D loss: {d_loss.item():.4f}] "
                  f"[G loss: {g_loss.item():.4f}]")
            if batches_done % 400 == 0:
                save_image(fake_imgs.data[:25], f"images/{batches_done}.png", nrow=5, normalize=True)
            batches_done += n_critic
