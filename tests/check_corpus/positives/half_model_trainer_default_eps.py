# A complete script with the configuration of https://github.com/jzhang38/TinyLlama/issues/32:
# a causal LM cast with .half() and fine-tuned by the Hugging Face Trainer without mixed
# precision, so its AdamW keeps the default adam_epsilon (1e-8, which is 0 in float16). The
# thread: the loss goes to 0 after one batch and the evaluation loss is nan.
import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

name = "TinyLlama/TinyLlama-1.1B-intermediate-step-480k-1T"
tokenizer = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(
    name,
    device_map="auto",
)
model = model.half()

data = load_dataset("json", data_files="train.jsonl")["train"]
args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=4,
    learning_rate=2e-5,
    num_train_epochs=1,
)
trainer = Trainer(model=model, args=args, train_dataset=data, tokenizer=tokenizer)
trainer.train()
