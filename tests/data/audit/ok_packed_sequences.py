"""A sentiment LSTM over packed sequences: lengths stay on the CPU on purpose (pack_padded_sequence wants
them there), a classifier whose forward moves its own inputs, and per-batch accuracy kept on the GPU."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"training on {device}")


class Reviews(Dataset):
    def __init__(self, encoded, labels):
        self.encoded, self.labels = encoded, labels

    def __len__(self):
        return len(self.encoded)

    def __getitem__(self, i):
        return torch.tensor(self.encoded[i], dtype=torch.long), torch.tensor(self.labels[i], dtype=torch.float)


def collate_batch(batch):
    texts, labels = zip(*batch, strict=True)
    lengths = torch.tensor([len(t) for t in texts], dtype=torch.long)
    return pad_sequence(texts, batch_first=True, padding_value=1), lengths, torch.stack(labels)


class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embedding_dim=100, hidden_dim=256, n_layers=2, pad_idx=1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=True, dropout=0.5,
                           batch_first=True)
        self.fc = nn.Linear(hidden_dim * 2, 1)
        self.dropout = nn.Dropout(0.5)

    def forward(self, text, text_lengths):
        embedded = self.dropout(self.embedding(text))
        packed = pack_padded_sequence(embedded, text_lengths, batch_first=True, enforce_sorted=False)
        _, (hidden, _) = self.rnn(packed)
        hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        return self.fc(hidden).squeeze(1)


class Scorer(nn.Module):
    """Takes features from anywhere: forward moves them to the module's own device."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 1)

    def forward(self, features):
        features = features.to(self.head.weight.device, non_blocking=True)
        return self.head(features).squeeze(-1)


train_loader = DataLoader(Reviews([[5, 6, 7], [8, 9]] * 1000, [1, 0] * 1000), batch_size=64, shuffle=True,
                          collate_fn=collate_batch, num_workers=2, pin_memory=True)
model = LSTMClassifier(vocab_size=25_000).to(device)
scorer = Scorer().to(device)
optimizer = torch.optim.Adam(list(model.parameters()) + list(scorer.parameters()))
criterion = nn.BCEWithLogitsLoss().to(device)

for epoch in range(5):
    model.train()
    correct = torch.zeros((), device=device)
    for text, lengths, labels in train_loader:
        text, labels = text.to(device, non_blocking=True), labels.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            predictions = model(text, lengths)
            loss = criterion(predictions, labels) + scorer(torch.randn(text.size(0), 16)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += ((torch.sigmoid(predictions) > 0.5).float() == labels).sum()
    print(f"epoch {epoch}: train acc {correct.item() / len(train_loader.dataset):.3f}")
