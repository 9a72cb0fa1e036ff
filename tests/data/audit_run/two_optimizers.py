"""A GAN-style loop (a discriminator and a generator optimizer step in each iteration, the losses logged
every iteration) for three iterations, then fine-tuning with a new optimizer."""

import torch

generator, discriminator = torch.nn.Linear(4, 8), torch.nn.Linear(8, 1)
opt_g = torch.optim.SGD(generator.parameters(), lr=0.01)
opt_d = torch.optim.SGD(discriminator.parameters(), lr=0.01)
for _ in range(3):
    z = torch.randn(16, 4)
    d_loss = discriminator(generator(z).detach()).mean() - discriminator(torch.randn(16, 8)).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = -discriminator(generator(z)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"d={d_loss.item():.3f} g={g_loss.item():.3f}")

opt_ft = torch.optim.SGD(generator.parameters(), lr=0.001)
while True:
    opt_ft.zero_grad()
    generator(torch.randn(16, 4)).pow(2).mean().backward()
    opt_ft.step()
