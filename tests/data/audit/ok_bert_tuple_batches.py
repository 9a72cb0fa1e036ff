"""The classic BERT fine-tuning tutorial loop: model.cuda(), TensorDataset batches moved as a tuple."""
import random
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler, TensorDataset
from transformers import BertForSequenceClassification, BertTokenizer, get_linear_schedule_with_warmup

if torch.cuda.is_available():
    device = torch.device("cuda")
    print("There are %d GPU(s) available." % torch.cuda.device_count())  # noqa: UP031
    print("We will use the GPU:", torch.cuda.get_device_name(0))
else:
    print("No GPU available, using the CPU instead.")
    device = torch.device("cpu")

tokenizer = BertTokenizer.from_pretrained("bert-base-uncased", do_lower_case=True)
sentences = ["a fine sentence", "another one"] * 500
labels = torch.tensor([0, 1] * 500)
encoded = tokenizer(sentences, padding="max_length", truncation=True, max_length=64, return_tensors="pt")
dataset = TensorDataset(encoded["input_ids"], encoded["attention_mask"], labels)
train_size = int(0.9 * len(dataset))
train_dataset, val_dataset = torch.utils.data.random_split(dataset, [train_size, len(dataset) - train_size])
train_dataloader = DataLoader(train_dataset, sampler=RandomSampler(train_dataset), batch_size=32)
validation_dataloader = DataLoader(val_dataset, sampler=SequentialSampler(val_dataset), batch_size=32)

model = BertForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2, output_attentions=False,
                                                      output_hidden_states=False)
model.cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, eps=1e-8)
epochs = 4
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=0,
                                            num_training_steps=len(train_dataloader) * epochs)


def flat_accuracy(preds, labels):
    pred_flat = np.argmax(preds, axis=1).flatten()
    return np.sum(pred_flat == labels.flatten()) / len(labels.flatten())


seed_val = 42
random.seed(seed_val)
np.random.seed(seed_val)
torch.manual_seed(seed_val)
torch.cuda.manual_seed_all(seed_val)

for epoch_i in range(epochs):
    print(f"======== Epoch {epoch_i + 1} / {epochs} ========")
    t0 = time.time()
    total_train_loss = 0
    model.train()
    for step, batch in enumerate(train_dataloader):
        if step % 40 == 0 and step != 0:
            print(f"  Batch {step:>5,}  of  {len(train_dataloader):>5,}.    Elapsed: {time.time() - t0:.0f}s.")
        b_input_ids, b_input_mask, b_labels = tuple(t.to(device) for t in batch)
        model.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            result = model(b_input_ids, token_type_ids=None, attention_mask=b_input_mask, labels=b_labels,
                           return_dict=True)
        loss = result.loss
        total_train_loss += loss.detach()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
    print(f"  Average training loss: {total_train_loss.item() / len(train_dataloader):.2f}")

    model.eval()
    total_eval_accuracy = 0
    total_eval_loss = 0
    for batch in validation_dataloader:
        batch = tuple(t.to(device) for t in batch)
        b_input_ids, b_input_mask, b_labels = batch
        with torch.no_grad():
            result = model(b_input_ids, token_type_ids=None, attention_mask=b_input_mask, labels=b_labels,
                           return_dict=True)
        total_eval_loss += result.loss.item()
        logits = result.logits.detach().cpu().numpy()
        label_ids = b_labels.to("cpu").numpy()
        total_eval_accuracy += flat_accuracy(logits, label_ids)
    print(f"  Accuracy: {total_eval_accuracy / len(validation_dataloader):.2f}")
