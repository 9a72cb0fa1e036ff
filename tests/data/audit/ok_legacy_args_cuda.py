"""Older pytorch/examples style: args.cuda flag, model.cuda() and data.cuda() each under `if args.cuda:`,
Variable-free but with the same structure, and a seq2seq-style decoder loop that builds tokens with device=."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

parser = argparse.ArgumentParser(description="PyTorch MNIST Example")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--no-cuda", action="store_true", default=False)
parser.add_argument("--log-interval", type=int, default=10)
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()
print("CUDA:", args.cuda)

kwargs = {"num_workers": 1, "pin_memory": True} if args.cuda else {}
train_loader = torch.utils.data.DataLoader(
    datasets.MNIST("../data", train=True, download=True, transform=transforms.ToTensor()),
    batch_size=args.batch_size, shuffle=True, **kwargs)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()  # noqa: UP008
        self.fc1 = nn.Linear(784, 320)
        self.fc2 = nn.Linear(320, 10)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x.view(-1, 784)))), dim=1)


model = Net()
if args.cuda:
    model.cuda()
optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.5)


def train(epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        if args.cuda:
            data, target = data.cuda(), target.cuda()
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.cuda):
            output = model(data)
            loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(epoch, batch_idx * len(data),  # noqa: UP032
                                                                 len(train_loader.dataset), loss.item()))


SOS_token, EOS_token, MAX_LENGTH = 0, 1, 10
device = torch.device("cuda" if args.cuda else "cpu")


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        for i in range(MAX_LENGTH):
            output, decoder_hidden = self.gru(F.relu(self.embedding(decoder_input)), decoder_hidden)
            decoder_output = self.out(output)
            decoder_outputs.append(decoder_output)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        return F.log_softmax(torch.cat(decoder_outputs, dim=1), dim=-1), decoder_hidden


decoder = DecoderRNN(128, 500).to(device)
decoder_optimizer = optim.Adam(decoder.parameters())
for _ in range(1000):
    enc_out = torch.randn(16, MAX_LENGTH, 128, device=device)
    enc_hidden = torch.zeros(1, 16, 128, device=device)
    target = torch.randint(2, 500, (16, MAX_LENGTH), device=device)
    with torch.autocast("cuda", enabled=args.cuda):
        out, _ = decoder(enc_out, enc_hidden, target)
        dec_loss = F.nll_loss(out.view(-1, out.size(-1)), target.view(-1))
    decoder_optimizer.zero_grad()
    dec_loss.backward()
    decoder_optimizer.step()

for epoch in range(1, args.epochs + 1):
    train(epoch)
