"""A collate_fn that pads, pins and moves each batch to the GPU: batches arrive on the device, so the
loader runs in the main process (CUDA cannot be used from worker processes)."""
from functools import partial

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device:", device)


class Sentences(Dataset):
    def __init__(self, n=20_000):
        self.items = [torch.randint(1, 5000, (int(torch.randint(5, 60, ()).item()),)) for _ in range(n)]
        self.labels = torch.randint(0, 4, (n,))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], self.labels[i]


def collate_to_device(batch, device):
    seqs, labels = zip(*batch, strict=True)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(seqs, batch_first=True, padding_value=0)
    if device.type == "cuda":
        padded, labels = padded.pin_memory(), torch.stack(labels).pin_memory()
    else:
        labels = torch.stack(labels)
    return padded.to(device, non_blocking=True), lengths, labels.to(device, non_blocking=True)


class BagClassifier(nn.Module):
    def __init__(self, vocab=5000, dim=128, classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.fc = nn.Linear(dim, classes)

    def forward(self, tokens, lengths):
        summed = self.embed(tokens).sum(1)
        return self.fc(summed / lengths.to(summed.device).unsqueeze(1))


loader = DataLoader(Sentences(), batch_size=128, shuffle=True, collate_fn=partial(collate_to_device, device=device))
model = BagClassifier().to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    for tokens, lengths, labels in loader:
        with torch.autocast(device.type, dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(tokens, lengths), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.3f}")
