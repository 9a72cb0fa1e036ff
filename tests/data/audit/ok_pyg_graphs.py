"""PyTorch Geometric style: graph batches moved in place with data.to(device)."""
import torch
import torch.nn.functional as F
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GCNConv, global_mean_pool


class GCN(torch.nn.Module):
    def __init__(self, in_channels, hidden, classes):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden)
        self.conv2 = GCNConv(hidden, hidden)
        self.lin = torch.nn.Linear(hidden, classes)

    def forward(self, x, edge_index, batch):
        x = F.relu(self.conv1(x, edge_index))
        x = F.relu(self.conv2(x, edge_index))
        return self.lin(global_mean_pool(x, batch))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)
dataset = TUDataset(root="data/TUDataset", name="MUTAG").shuffle()
train_loader = DataLoader(dataset[:150], batch_size=64, shuffle=True, num_workers=2, pin_memory=True)
test_loader = DataLoader(dataset[150:], batch_size=64, num_workers=2, pin_memory=True)
model = GCN(dataset.num_node_features, 64, dataset.num_classes).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

for epoch in range(1, 171):
    model.train()
    for data in train_loader:
        data = data.to(device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(data.x, data.edge_index, data.batch)
            loss = F.cross_entropy(out, data.y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    correct = 0
    for data in test_loader:
        data.to(device)
        pred = model(data.x, data.edge_index, data.batch).argmax(dim=1)
        correct += int((pred == data.y).sum())
    print(f"epoch {epoch:03d}: test acc {correct / len(test_loader.dataset):.4f}")
