"""Hugging Face style loop: dict batches passed with **batch, never moved."""
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding, get_scheduler

tokenizer = AutoTokenizer.from_pretrained("bert-base-cased")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
model.to(device)
print(f"model on {device}")

collator = DataCollatorWithPadding(tokenizer=tokenizer)
train_dataloader = DataLoader([], shuffle=True, batch_size=8, collate_fn=collator, num_workers=2, pin_memory=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0, num_training_steps=1000)

model.train()
for _ in range(3):
    for batch in train_dataloader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(**batch)  # expect: tensors_on_different_devices error
        outputs.loss.backward()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
