"""DistributedDataParallel, one process per GPU, launched with torchrun."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms


def setup():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank


def main():
    local_rank = setup()
    rank = dist.get_rank()
    torch.backends.cudnn.benchmark = True
    dataset = datasets.ImageFolder("/data/train", transforms.Compose([transforms.RandomResizedCrop(224),
                                                                      transforms.ToTensor()]))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=8, pin_memory=True,
                        persistent_workers=True)
    model = models.resnet50().to(local_rank)
    ddp_model = DDP(model, device_ids=[local_rank])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")

    for epoch in range(90):
        sampler.set_epoch(epoch)
        for step, (images, labels) in enumerate(loader):
            images = images.to(local_rank, non_blocking=True)
            labels = labels.to(local_rank, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = loss_fn(ddp_model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if rank == 0 and step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
