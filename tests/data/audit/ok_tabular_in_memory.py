"""Tabular data held on the GPU: tensors loaded once and moved, mini-batches by indexing with randperm,
a class-weighted loss moved with the criterion, a checkpoint loaded with map_location."""
import numpy as np
import pandas as pd
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("running on", device)

df = pd.read_csv("train.csv")
features = torch.tensor(df.drop(columns=["label"]).values, dtype=torch.float32)
labels = torch.tensor(df["label"].values, dtype=torch.long)
mean, std = features.mean(0), features.std(0)
X = ((features - mean) / (std + 1e-6)).to(device)
y = labels.to(device)
counts = np.bincount(df["label"].values)
class_weights = torch.tensor(counts.sum() / (len(counts) * counts), dtype=torch.float32)

model = nn.Sequential(nn.Linear(X.shape[1], 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.2),
                      nn.Linear(256, len(counts)))
ckpt = torch.load("warm_start.pt", map_location="cpu")
model.load_state_dict(ckpt["model"])
model = model.to(device)
criterion = nn.CrossEntropyLoss(weight=class_weights).to(device)
aux = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0], device=device))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
scaler = torch.cuda.amp.GradScaler()
batch_size = 1024

for epoch in range(50):
    model.train()
    perm = torch.randperm(X.shape[0])
    epoch_loss = 0.0
    for start in range(0, X.shape[0], batch_size):
        idx = perm[start:start + batch_size]
        xb, yb = X[idx], y[idx]
        with torch.cuda.amp.autocast():
            logits = model(xb)
            loss = criterion(logits, yb) + 0.1 * aux(logits[:, 1], (yb == 1).float())
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        epoch_loss += loss.detach()
    model.eval()
    with torch.no_grad():
        preds = model(X).argmax(1)
        acc = (preds == y).float().mean().item()
    print(f"epoch {epoch}: loss {epoch_loss.item() * batch_size / X.shape[0]:.4f} acc {acc:.3f}")
torch.save({"model": model.state_dict(), "mean": mean, "std": std}, "model.pt")
