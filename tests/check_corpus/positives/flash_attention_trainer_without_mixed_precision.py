# A complete script with the configuration of https://github.com/unslothai/unsloth/issues/827:
# FlashAttention-2 over a model loaded in float32 and a Trainer run without bf16=True or
# fp16=True (the thread: the user had left both out), so nothing casts to 16 bits.
from datasets import load_dataset
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", attn_implementation="flash_attention_2")
data = load_dataset("json", data_files="train.jsonl")["train"]
args = TrainingArguments(output_dir="out", per_device_train_batch_size=2, num_train_epochs=1)
Trainer(model=model, args=args, train_dataset=data).train()
