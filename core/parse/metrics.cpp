// Metric samples printed by training loops (see metrics.h).
#include "core/parse/metrics.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cctype>

#include "core/base/text.h"

namespace denpex::core {
namespace {

using text::isDigit;
using text::isIdent;

enum class Field { kStep, kLoss, kGradNorm, kLr, kLossScale };

struct Key {
  std::string_view text;  // lower case
  Field field;
};

constexpr std::array<Key, 17> kKeys{{
    {"loss scale", Field::kLossScale},
    {"loss_scale", Field::kLossScale},
    {"train/loss", Field::kLoss},
    {"train_loss", Field::kLoss},
    {"training_loss", Field::kLoss},
    {"loss", Field::kLoss},
    {"grad_norm", Field::kGradNorm},
    {"grad norm", Field::kGradNorm},
    {"grad-norm", Field::kGradNorm},
    {"gnorm", Field::kGradNorm},
    {"total_norm", Field::kGradNorm},
    {"learning_rate", Field::kLr},
    {"learning rate", Field::kLr},
    {"lr", Field::kLr},
    {"global_step", Field::kStep},
    {"iteration", Field::kStep},
    {"step", Field::kStep},
}};

// Parses a number (nan and inf included) at s[i...]; returns the bytes consumed or 0.
size_t readNumber(std::string_view s, size_t i, double& value) {
  size_t j = i;
  if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
  bool special = false;
  for (std::string_view word : {std::string_view("nan"), std::string_view("inf")}) {
    if (s.size() - j >= 3) {
      std::string lower(s.substr(j, 3));
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (lower == word) special = true;
    }
  }
  if (!special && (j >= s.size() || !(isDigit(s[j]) || s[j] == '.'))) return 0;
  // strtod needs a terminated string: copy at most 64 bytes to the stack (no allocation per number).
  char copy[65];
  size_t n = std::min<size_t>(64, s.size() - i);
  std::memcpy(copy, s.data() + i, n);
  copy[n] = '\0';
  char* end = nullptr;
  value = std::strtod(copy, &end);
  size_t used = static_cast<size_t>(end - copy);
  if (used == 0) return 0;
  if (special && i + used < s.size() && std::isalpha(static_cast<unsigned char>(s[i + used]))) {
    // "infinity" is a number, "info" is not.
    std::string tail(s.substr(i + used, 5));
    std::transform(tail.begin(), tail.end(), tail.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (tail.rfind("inity", 0) != 0) return 0;
    used += 5;
  }
  return used;
}

bool evalWordBefore(std::string_view lower, size_t keyPos) {
  // "val loss", "eval loss", "validation loss", "test loss" are not training losses.
  size_t end = keyPos;
  while (end > 0 && (lower[end - 1] == ' ' || lower[end - 1] == '_')) --end;
  size_t begin = end;
  while (begin > 0 && std::isalpha(static_cast<unsigned char>(lower[begin - 1]))) --begin;
  std::string_view word = lower.substr(begin, end - begin);
  return word == "val" || word == "eval" || word == "validation" || word == "valid" ||
         word == "test" || word == "dev";
}

}  // namespace

MetricSample extractMetrics(std::string_view message) {
  MetricSample sample;
  if (message.size() > 4096) message = message.substr(0, 4096);
  thread_local std::string lower;
  lower.assign(message);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  // One pass: at each word start that can begin a key, try the keys (longest first), read the
  // value after the first one that fits, and record it unless that field was already set.
  for (size_t at = 0; at < lower.size(); ++at) {
    char first = lower[at];
    if (first != 'l' && first != 't' && first != 'g' && first != 's' && first != 'i') continue;
    if (at > 0 && (isIdent(lower[at - 1]) || lower[at - 1] == '/' || lower[at - 1] == '-')) continue;
    for (const Key& key : kKeys) {
      if (key.text[0] != first || lower.compare(at, key.text.size(), key.text) != 0) continue;
      size_t after = at + key.text.size();
      if (after < lower.size() && (isIdent(lower[after]) || lower[after] == '/')) continue;
      if (key.field == Field::kLoss && evalWordBefore(lower, at)) continue;
      size_t i = after;
      auto skip = [&](std::string_view chars) {
        while (i < lower.size() && chars.find(lower[i]) != std::string_view::npos) ++i;
      };
      skip("'\" ");
      if (i < lower.size() && (lower[i] == ':' || lower[i] == '=')) ++i;
      else if (lower.compare(i, 3, "is ") == 0) i += 3;  // "loss is nan at step 2"
      skip("'\" ");
      if (lower.compare(i, 7, "tensor(") == 0) i += 7;
      double value = 0;
      size_t used = readNumber(message, i, value);
      if (used == 0) continue;
      switch (key.field) {
        case Field::kStep:
          if (!sample.step && value >= 0) sample.step = static_cast<long long>(value);
          break;
        case Field::kLoss:
          if (!sample.loss) sample.loss = value;
          break;
        case Field::kGradNorm:
          if (!sample.gradNorm) sample.gradNorm = value;
          break;
        case Field::kLr:
          if (!sample.lr) sample.lr = value;
          break;
        case Field::kLossScale:
          if (!sample.lossScale) sample.lossScale = value;
          break;
      }
      at = i + used - 1;
      break;
    }
  }
  return sample;
}

}  // namespace denpex::core
