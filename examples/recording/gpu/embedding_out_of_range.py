# Token ids from a tokenizer with added tokens, fed to an embedding sized for the old vocabulary.
import torch
from torch import nn

torch.manual_seed(0)
vocab_size = 32000
embed = nn.Embedding(vocab_size, 256).cuda()
head = nn.Linear(256, vocab_size).cuda()
optimizer = torch.optim.AdamW(list(embed.parameters()) + list(head.parameters()), lr=1e-4)
for step in range(5):
    ids = torch.randint(0, vocab_size + 2, (8, 128), device="cuda")
    logits = head(embed(ids))
    loss = nn.functional.cross_entropy(logits.view(-1, vocab_size), ids.view(-1).clamp(max=vocab_size - 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} | loss {loss.item():.4f}")
