# A complete script with the failure of https://github.com/p0p4k/pflowtts_pytorch/issues/8 (fixed
# there by strategy='ddp_find_unused_parameters_true') and the threads like it: a LightningModule with a head that training_step never reaches, trained
# with strategy="ddp"; Lightning raises "It looks like your LightningModule has parameters that
# were not used in producing the loss returned by training_step" and asks for
# strategy="ddp_find_unused_parameters_true".
import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(32, 64)
        self.head = nn.Linear(64, 10)
        self.reconstruction = nn.Linear(64, 32)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


data = TensorDataset(torch.randn(512, 32), torch.randint(0, 10, (512,)))
model = Classifier()
trainer = L.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=1)
trainer.fit(model, DataLoader(data, batch_size=32))
