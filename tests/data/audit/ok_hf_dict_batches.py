"""Hugging Face style fine-tuning loop with dict batches moved by a comprehension."""
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from tqdm.auto import tqdm
from transformers import AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding, get_scheduler

checkpoint = "bert-base-uncased"
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
raw = load_dataset("glue", "mrpc")
tokenized = raw.map(lambda ex: tokenizer(ex["sentence1"], ex["sentence2"], truncation=True), batched=True)
tokenized = tokenized.remove_columns(["sentence1", "sentence2", "idx"]).rename_column("label", "labels")
tokenized.set_format("torch")
collator = DataCollatorWithPadding(tokenizer=tokenizer)
train_dataloader = DataLoader(tokenized["train"], shuffle=True, batch_size=8, collate_fn=collator, num_workers=2,
                              pin_memory=True)
eval_dataloader = DataLoader(tokenized["validation"], batch_size=8, collate_fn=collator, num_workers=2,
                             pin_memory=True)

model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
num_training_steps = 3 * len(train_dataloader)
lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0, num_training_steps=num_training_steps)

device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
model.to(device)
print(f"fine-tuning on {device}")

progress_bar = tqdm(range(num_training_steps))
model.train()
for _ in range(3):
    for step, batch in enumerate(train_dataloader):
        batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        progress_bar.update(1)
        if step % 50 == 0:
            progress_bar.set_postfix(loss=loss.item())

model.eval()
correct = torch.zeros((), device=device)
for batch in eval_dataloader:
    batch = {k: v.to(device) for k, v in batch.items()}
    with torch.no_grad():
        logits = model(**batch).logits
    correct += (logits.argmax(dim=-1) == batch["labels"]).sum()
print("accuracy:", correct.item() / len(eval_dataloader.dataset))
