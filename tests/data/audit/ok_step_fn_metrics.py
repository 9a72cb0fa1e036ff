"""A segmentation loop with a step function returning detached losses, torchmetrics moved to the device,
a multi-task loss weighted by a device tensor, and the eval loop collecting predictions on the GPU."""
import torch
import torch.nn.functional as F
import torchmetrics
from torch.utils.data import DataLoader, Dataset
from torchvision.models.segmentation import deeplabv3_resnet50


class Masks(Dataset):
    def __init__(self, n=1000):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return {"image": torch.rand(3, 256, 256, generator=g), "mask": torch.randint(0, 21, (256, 256), generator=g)}


def training_step(model, batch, optimizer, scaler, task_weights):
    images, masks = batch["image"], batch["mask"]
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(images)
        losses = torch.stack([F.cross_entropy(out["out"], masks, ignore_index=255),
                              F.cross_entropy(out["aux"], masks, ignore_index=255)])
        loss = (losses * task_weights).sum()
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return losses.detach()


@torch.no_grad()
def evaluate(model, loader, metric, device):
    model.eval()
    metric.reset()
    all_preds = []
    for batch in loader:
        batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
        preds = model(batch["image"])["out"].argmax(1)
        metric.update(preds, batch["mask"])
        all_preds.append(preds)
    model.train()
    return metric.compute().item(), torch.cat(all_preds).cpu()


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    print(device)
    torch.backends.cudnn.benchmark = True
    model = deeplabv3_resnet50(num_classes=21, aux_loss=True).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")
    task_weights = torch.tensor([1.0, 0.4], device=device)
    metric = torchmetrics.JaccardIndex(task="multiclass", num_classes=21).to(device)
    train_loader = DataLoader(Masks(), batch_size=8, shuffle=True, num_workers=4, pin_memory=True)
    val_loader = DataLoader(Masks(100), batch_size=8, num_workers=4, pin_memory=True)
    for epoch in range(30):
        running = torch.zeros(2, device=device)
        for batch in train_loader:
            batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
            running += training_step(model, batch, optimizer, scaler, task_weights)
        miou, _ = evaluate(model, val_loader, metric, device)
        print(f"epoch {epoch}: losses {(running / len(train_loader)).tolist()} mIoU {miou:.3f}")


if __name__ == "__main__":
    main()
