"""Does a little work, then waits forever in Python (a lock, a queue, a download that never ends)."""

import time

import torch

x = torch.ones(4) * 2
time.sleep(3600)
