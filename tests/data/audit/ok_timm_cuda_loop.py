"""timm train.py style: model.cuda(), channels_last, torch.compile, an EMA copy, input.cuda(non_blocking=True)."""
import time
from collections import OrderedDict
from copy import deepcopy

import timm
import torch
import torch.nn as nn
from timm.data import create_dataset, create_loader, resolve_data_config


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class ModelEma(nn.Module):
    def __init__(self, model, decay=0.9998):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values(), strict=True):
            if ema_v.dtype.is_floating_point:
                ema_v.mul_(self.decay).add_(model_v, alpha=1.0 - self.decay)
            else:
                ema_v.copy_(model_v)


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, model_ema=None, log_interval=50):
    losses_m = AverageMeter()
    model.train()
    last_idx = len(loader) - 1
    end = time.time()
    for batch_idx, (input, target) in enumerate(loader):
        last_batch = batch_idx == last_idx
        input, target = input.cuda(non_blocking=True), target.cuda(non_blocking=True)
        input = input.contiguous(memory_format=torch.channels_last)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            output = model(input)
            loss = loss_fn(output, target)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if model_ema is not None:
            model_ema.update(model)
        if last_batch or batch_idx % log_interval == 0:
            losses_m.update(loss.item(), input.size(0))
            lrl = [param_group["lr"] for param_group in optimizer.param_groups]
            print(f"Train: {epoch} [{batch_idx:>4d}/{len(loader)}] Loss: {losses_m.val:#.4g} ({losses_m.avg:#.3g}) "
                  f"LR: {lrl[0]:.3e} Time: {time.time() - end:.3f}s")
        end = time.time()
    return OrderedDict([("loss", losses_m.avg)])


def validate(model, loader, loss_fn):
    losses_m = AverageMeter()
    top1_m = AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in loader:
            input = input.cuda(non_blocking=True).contiguous(memory_format=torch.channels_last)
            target = target.cuda(non_blocking=True)
            output = model(input)
            loss = loss_fn(output, target)
            acc1 = (output.argmax(-1) == target).float().mean() * 100
            losses_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), output.size(0))
    return OrderedDict([("loss", losses_m.avg), ("top1", top1_m.avg)])


def main():
    torch.backends.cudnn.benchmark = True
    model = timm.create_model("resnet50", pretrained=False, num_classes=1000)
    model.cuda()
    model.to(memory_format=torch.channels_last)
    model_ema = ModelEma(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    model = torch.compile(model)
    data_config = resolve_data_config({}, model=model)
    dataset_train = create_dataset("", root="/data/imagenet", split="train", is_training=True)
    dataset_eval = create_dataset("", root="/data/imagenet", split="validation")
    loader_train = create_loader(dataset_train, input_size=data_config["input_size"], batch_size=128,
                                 is_training=True, num_workers=8, pin_memory=True)
    loader_eval = create_loader(dataset_eval, input_size=data_config["input_size"], batch_size=256, num_workers=8,
                                pin_memory=True)
    train_loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1).cuda()
    validate_loss_fn = nn.CrossEntropyLoss().cuda()
    for epoch in range(300):
        train_one_epoch(epoch, model, loader_train, optimizer, train_loss_fn, model_ema=model_ema)
        metrics = validate(model, loader_eval, validate_loss_fn)
        ema_metrics = validate(model_ema.module, loader_eval, validate_loss_fn)
        print(epoch, metrics, ema_metrics)


if __name__ == "__main__":
    main()
