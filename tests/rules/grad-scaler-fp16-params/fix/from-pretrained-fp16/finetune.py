# A complete script with the configuration of https://github.com/huggingface/transformers/issues/23165:
# the model loaded in float16 (the line quoted in the thread) and TrainingArguments(fp16=True);
# the thread: "ValueError: Attempting to unscale FP16 gradients."
import torch
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("EleutherAI/gpt-neox-20b", torch_dtype=torch.float16)
args = TrainingArguments(output_dir="out", fp16=True, per_device_train_batch_size=1)
Trainer(model=model, args=args).train()
