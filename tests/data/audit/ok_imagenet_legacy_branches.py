"""Older pytorch/examples imagenet: the model placed in one of five branches (DDP with or without a GPU
index, one GPU, DataParallel of the features or of the whole model), batches moved under `if`s, and
`import torch.backends.cudnn as cudnn`."""
import argparse

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", default=None, type=int)
parser.add_argument("--distributed", action="store_true")
parser.add_argument("--arch", default="resnet18")
parser.add_argument("--workers", default=4, type=int)


def main_worker(gpu, args):
    args.gpu = gpu
    model = models.resnet18()
    if not torch.cuda.is_available():
        print("using CPU, this will be slow")
    elif args.distributed:
        if args.gpu is not None:
            torch.cuda.set_device(args.gpu)
            model.cuda(args.gpu)
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
        else:
            model.cuda()
            model = torch.nn.parallel.DistributedDataParallel(model)
    elif args.gpu is not None:
        torch.cuda.set_device(args.gpu)
        model = model.cuda(args.gpu)
    else:
        if args.arch.startswith("alexnet") or args.arch.startswith("vgg"):
            model.features = torch.nn.DataParallel(model.features)  # expect: multi_gpu_unused warning
            model.cuda()
        else:
            model = torch.nn.DataParallel(model).cuda()  # expect: multi_gpu_unused warning
    criterion = nn.CrossEntropyLoss().cuda(args.gpu)
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
    cudnn.benchmark = True
    train_dataset = datasets.ImageFolder("train", transforms.ToTensor())
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=256, shuffle=True,
                                               num_workers=args.workers, pin_memory=True)
    for epoch in range(90):
        train(train_loader, model, criterion, optimizer, epoch, args)


def train(train_loader, model, criterion, optimizer, epoch, args):
    model.train()
    for i, (images, target) in enumerate(train_loader):
        if args.gpu is not None:
            images = images.cuda(args.gpu, non_blocking=True)
        if torch.cuda.is_available():
            target = target.cuda(args.gpu, non_blocking=True)
        output = model(images)  # expect: amp_tf32_not_used info
        loss = criterion(output, target)
        acc1 = (output.argmax(1) == target).float().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 10 == 0:
            print(epoch, i, loss.item(), acc1.item())


if __name__ == "__main__":
    args = parser.parse_args()
    main_worker(args.gpu, args)
