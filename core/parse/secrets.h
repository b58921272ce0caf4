// Secrets in log lines: API keys and tokens (Hugging Face, OpenAI, AWS, W&B and any
// `*_token=` / `*_key=` / `password=` assignment), `Authorization: Bearer` headers and passwords
// in URLs. denpex masks them where a line comes in, before anything is stored, matched or
// shown, so no report, diagnostic or hover ever repeats one. Masking keeps the length (each
// masked byte becomes '*'), so every column and offset into the line stays right. A token's
// public prefix is kept (`hf_****`, `sk-****`, `AKIA****`) to say what it was.
//
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace denpex::core {

// Lowercase words one of which every maskable secret's line contains (compared without case):
// a scanner that finds none of them in a line may skip maskSecrets for it.
const std::vector<std::string_view>& secretTriggers();

// Whether `text` contains one of secretTriggers() (without case).
bool mayHoldSecret(std::string_view text);

// Masks the secrets in `text` in place. Returns whether anything was masked.
bool maskSecrets(std::string& text);
// The same for a caller that has already seen mayHoldSecret(text) hold (no second scan).
bool maskSecretsFound(std::string& text);

}  // namespace denpex::core
