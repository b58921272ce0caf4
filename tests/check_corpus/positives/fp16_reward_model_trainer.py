# A complete script with the configuration that https://github.com/CambioML/pykoi/pull/69 fixed
# ("parameters updated as nan during reward model training"): a model loaded in float16 and
# trained by the Trainer with its default adam_epsilon; the fix set a larger epsilon.
import torch
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

model = AutoModelForSequenceClassification.from_pretrained("gpt2", num_labels=1, torch_dtype=torch.float16)
training_args = TrainingArguments(output_dir="rm", per_device_train_batch_size=2, learning_rate=1e-5)
trainer = Trainer(model=model, args=training_args)
trainer.train()
