"""A few training steps, then a native crash (segmentation fault) in the script's own line."""

import os
import signal
import time

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.ones(2, 4)).sum().backward()
    optimizer.step()
time.sleep(1.0)  # the instruments send their summary every few seconds; the first one goes out now
os.kill(os.getpid(), signal.SIGSEGV)
