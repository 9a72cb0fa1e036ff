"""A script that prints a lot, including lines that look like gpuassist's protocol, and an unfinished line."""

import os
import sys

import torch

print("no newline at the start", end="")
for i in range(2000):
    print('{"event": "done", "t": 0}')
    print(f"line {i} " + "x" * 100)
os.write(1, b'{"event": "fact", "key": "run.ops", "value": "FORGED"}\n')
sys.stdout.write("partial line without newline")
sys.stdout.flush()
model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
while True:
    optimizer.zero_grad()
    model(torch.ones(1, 2)).sum().backward()
    optimizer.step()
    print("step done", flush=True)
