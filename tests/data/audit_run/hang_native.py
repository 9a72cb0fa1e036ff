"""Hangs inside native code that holds the GIL: nothing in the process can run Python any more."""

import ctypes

import torch

x = torch.ones(4) * 2
ctypes.PyDLL(None).sleep(3600)
