from transformers import Trainer, TrainingArguments

args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=8,
    learning_rate=2e-5,
    fp16=True,
    fp16_full_eval=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_dataset)
trainer.train()
