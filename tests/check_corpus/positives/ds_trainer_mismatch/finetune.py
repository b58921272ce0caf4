# A complete script with the configuration of https://github.com/LianjiaTech/BELLE/issues/154:
# the DeepSpeed config beside it enables fp16 and the TrainingArguments were changed to
# fp16=False; the thread: "ValueError: Please correct the following DeepSpeed config values that
# mismatch TrainingArguments values: - ds fp16.enabled=True vs hf fp16|fp16_full_eval+fp16_backend(amp)=False".
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

name = "bigscience/bloomz-7b1-mt"
tokenizer = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(name)
data = load_dataset("json", data_files="train.json")["train"]
args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=4,
    gradient_accumulation_steps=8,
    learning_rate=3e-5,
    fp16=False,
    deepspeed="deepspeed_config.json",
)
Trainer(model=model, args=args, train_dataset=data, tokenizer=tokenizer).train()
