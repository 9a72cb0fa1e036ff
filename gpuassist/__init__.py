"""gpuassist: why is PyTorch not using my GPU, and what exactly do I do about it?"""

__version__ = "0.1.0"
