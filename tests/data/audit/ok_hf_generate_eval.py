"""Hugging Face without Trainer: a causal LM fine-tuned with batches moved by a dict comprehension, the
tokenizer output moved the same way for generation, the device picked by a small helper."""
import math

import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling


def get_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


device = get_device()
print("device:", device)
tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.bfloat16).to(device)
raw = load_dataset("wikitext", "wikitext-2-raw-v1", split="train")
tokenized = raw.map(lambda b: tokenizer(b["text"], truncation=True, max_length=128), batched=True,
                    remove_columns=["text"])
collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
loader = DataLoader(tokenized, batch_size=16, shuffle=True, collate_fn=collator, num_workers=4, pin_memory=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)

model.train()
for step, batch in enumerate(loader):
    inputs = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
    outputs = model(**inputs)
    outputs.loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if step % 100 == 0:
        print(f"step {step}: loss {outputs.loss.item():.3f} ppl {math.exp(outputs.loss.item()):.1f}")
    if step == 2000:
        break

model.eval()
prompt = tokenizer("The meaning of life is", return_tensors="pt")
prompt = {k: v.to(device) for k, v in prompt.items()}
with torch.no_grad():
    generated = model.generate(**prompt, max_new_tokens=40, do_sample=True, top_p=0.9)
print(tokenizer.decode(generated[0], skip_special_tokens=True))
encoded = tokenizer(["first text", "second text"], return_tensors="pt", padding=True).to(device)
with torch.no_grad():
    logits = model(**encoded).logits
print(logits.shape)
