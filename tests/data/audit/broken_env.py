"""CUDA_VISIBLE_DEVICES set after CUDA was initialised, and set to hide every GPU."""
import os

import torch

if torch.cuda.is_available():
    print(torch.cuda.device_count(), "GPUs")
os.environ["CUDA_VISIBLE_DEVICES"] = "1"  # expect: cuda_visible_devices_hides_gpus warning


def run_on_cpu_only():
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # expect: cuda_visible_devices_hides_gpus warning
    return torch.zeros(3)
