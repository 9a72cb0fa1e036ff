"""Lightning moves the model and the batches itself: no .to(device) anywhere, and that is right."""
import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class LitClassifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 128), nn.ReLU(), nn.Linear(128, 10))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


loader = DataLoader(datasets.MNIST(".", download=True, transform=transforms.ToTensor()), batch_size=64,
                    num_workers=4)
trainer = L.Trainer(accelerator="gpu", devices=1, max_epochs=3, precision="bf16-mixed")
trainer.fit(LitClassifier(), loader)
