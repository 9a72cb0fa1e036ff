"""The main process only starts workers and waits for them (as torch.multiprocessing.spawn does for DDP): the
work happens where the instruments are not."""

import multiprocessing
import os
import sys
import time


def work():
    while True:
        time.sleep(0.05)


if __name__ == "__main__":
    worker = multiprocessing.get_context("fork").Process(target=work)
    worker.start()
    print(f"worker pid {worker.pid} (main {os.getpid()})", file=sys.stderr, flush=True)
    worker.join()
