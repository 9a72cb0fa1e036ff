"""pytorch/examples imagenet style: one worker process per GPU, .cuda(gpu, non_blocking=True) everywhere."""
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms


def main_worker(gpu, ngpus_per_node, data="/data/imagenet", arch="resnet50"):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456", world_size=ngpus_per_node, rank=gpu)
    model = models.__dict__[arch]()
    torch.cuda.set_device(gpu)
    model.cuda(gpu)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    criterion = nn.CrossEntropyLoss().cuda(gpu)
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
    torch.backends.cudnn.benchmark = True
    train_dataset = datasets.ImageFolder(f"{data}/train", transforms.Compose([transforms.RandomResizedCrop(224),
                                                                               transforms.ToTensor()]))
    sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=64, num_workers=8, pin_memory=True,
                                               sampler=sampler)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(90):
        sampler.set_epoch(epoch)
        train(train_loader, model, criterion, optimizer, scaler, epoch, gpu)


def train(train_loader, model, criterion, optimizer, scaler, epoch, gpu, print_freq=10):
    model.train()
    for i, (images, target) in enumerate(train_loader):
        images = images.cuda(gpu, non_blocking=True)
        target = target.cuda(gpu, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            output = model(images)
            loss = criterion(output, target)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if i % print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(train_loader)}] loss {loss.item():.4f}")


if __name__ == "__main__":
    ngpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus,))
