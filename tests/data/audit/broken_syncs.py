"""Host-device syncs every step: .item(), print(tensor), .cpu() for metrics, synchronize()."""
import torch
import torch.nn as nn


def make_batches(n, device):
    for _ in range(n):
        yield torch.randn(32, 10, device=device), torch.randint(0, 2, (32,), device=device)


device = torch.device("cuda:0")
model = nn.Linear(10, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

history = []
preds = []
total = 0.0
for step, (x, y) in enumerate(make_batches(1000, device)):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
        loss = loss_fn(logits, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    total += loss.item()  # expect: host_device_sync_in_loop warning
    print(loss)  # expect: host_device_sync_in_loop warning
    preds.append(logits.argmax(1).cpu())  # expect: host_device_sync_in_loop warning
    torch.cuda.synchronize()  # expect: host_device_sync_in_loop warning
    if step % 100 == 0:
        history.append(loss.item())
        print(f"step {step}: {loss.item():.4f}")
    else:
        acc = (logits.argmax(1) == y).float().mean().item()  # expect: host_device_sync_in_loop warning
print(total / 1000)
