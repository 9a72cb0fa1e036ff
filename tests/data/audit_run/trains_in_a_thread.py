"""The training loop runs in a thread the main thread waits for (a GUI or service pattern)."""

import threading

import torch


def train():
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    while True:
        optimizer.zero_grad()
        model(torch.randn(4, 8)).sum().backward()
        optimizer.step()


trainer = threading.Thread(target=train, name="trainer")
trainer.start()
trainer.join()
