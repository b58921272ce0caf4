import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

name = "Qwen/Qwen2-1.5B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(
    name,
    device_map="cuda",
    attn_implementation="flash_attention_2",
)
batch = tokenizer(["Hello"], return_tensors="pt").to("cuda")
out = model.generate(**batch, max_new_tokens=64)
print(tokenizer.decode(out[0]))
