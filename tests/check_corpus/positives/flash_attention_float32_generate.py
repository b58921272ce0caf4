# A complete script with the configuration of https://github.com/QwenLM/Qwen3/issues/406 (the
# thread's code is a screenshot): FlashAttention-2 requested for a model loaded without a
# torch_dtype, so in float32; the thread: "FlashAttention only support fp16 and bf16 data type",
# fixed by loading with torch_dtype="auto" or bfloat16.
from transformers import AutoModelForCausalLM, AutoTokenizer

name = "Qwen/Qwen2-7B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(
    name,
    device_map="auto",
    attn_implementation="flash_attention_2",
)
inputs = tokenizer(["Give me a short introduction to large language models."], return_tensors="pt").to(model.device)
print(tokenizer.decode(model.generate(**inputs, max_new_tokens=64)[0]))
