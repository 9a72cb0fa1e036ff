"""DataLoader workers and a Pool forked from the instrumented process: each worker says whether gpuassist's
dispatch mode is still on in it (it must not be), and the Pool is terminated on leaving its `with` block
(SIGTERM: no stack dump may appear)."""

import multiprocessing
import sys

import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Numbers(Dataset):
    def __len__(self):
        return 10_000

    def __getitem__(self, i):
        info = get_worker_info()
        if info is not None and i < 8:
            print(f"worker {info.id} mode: {type(_get_current_dispatch_mode()).__name__}", file=sys.stderr)
        return torch.full((4,), float(i))


def square(x):
    return x * x


if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(1) as pool:
        print("pool:", pool.map(square, [1, 2, 3]))
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _epoch in range(100):
        for batch in DataLoader(Numbers(), batch_size=4, num_workers=2):
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
