// Masking secrets in log lines (see secrets.h).
#include "core/parse/secrets.h"

#include <re2/re2.h>

#include <array>
#include <cctype>
#include <memory>
#include <set>

namespace denpex::core {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

size_t findNoCase(std::string_view text, std::string_view word, size_t from = 0) {
  for (size_t i = from; i + word.size() <= text.size(); ++i)
    if (lower(text[i]) == word[0] && equalsNoCase(text.substr(i, word.size()), word)) return i;
  return std::string_view::npos;
}

// The words an assignment's name ends with (the generic form's).
constexpr std::string_view kNameWords[] = {"key", "token", "secret", "passw", "pwd"};

// Whether one of kNameWords is followed, after the rest of the name and an optional quote, by
// ':' or '=': the cheap test before the generic form's regex.
bool hasAssignment(std::string_view text) {
  for (auto w : kNameWords) {
    for (size_t at = findNoCase(text, w); at != std::string_view::npos; at = findNoCase(text, w, at + 1)) {
      size_t i = at + w.size();
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '-')) ++i;
      if (i < text.size() && (text[i] == '"' || text[i] == '\'')) ++i;
      while (i < text.size() && text[i] == ' ') ++i;
      if (i < text.size() && (text[i] == ':' || text[i] == '=')) return true;
    }
  }
  return false;
}

bool hasFlag(std::string_view text) {
  if (text.find("--") == std::string_view::npos) return false;
  for (auto w : kNameWords)
    if (findNoCase(text, w) != std::string_view::npos) return true;
  return false;
}

// One kind of secret: a pattern whose group `group` is the part to mask, tried only on texts
// that pass its cheap `gate` (most lines pass none).
struct Form {
  std::unique_ptr<RE2> re;
  int group;
  bool (*gate)(std::string_view);
  // For assignments: group 1 is the name, group 2 the value, checked by plausibleAssignment().
  bool assignment = false;
};

const std::vector<Form>& forms() {
  static const std::vector<Form>& kForms = *new std::vector<Form>([] {
    std::vector<Form> f;
    auto add = [&](const char* pattern, int group, bool (*gate)(std::string_view), bool assignment = false) {
      RE2::Options o;
      o.set_log_errors(false);
      f.push_back({std::make_unique<RE2>(pattern, o), group, gate, assignment});
    };
    // Tokens with a published prefix: the prefix stays, the rest is masked.
    add(R"(\bhf_([A-Za-z0-9]{30,}))", 1, [](std::string_view t) { return t.find("hf_") != std::string_view::npos; });
    add(R"(\bsk-((?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}))", 1,  // OpenAI, Anthropic
        [](std::string_view t) { return t.find("sk-") != std::string_view::npos; });
    add(R"(\b(?:AKIA|ASIA)([A-Z0-9]{16})\b)", 1,  // AWS access key ids
        [](std::string_view t) { return t.find("AKIA") != std::string_view::npos || t.find("ASIA") != std::string_view::npos; });
    add(R"(\b(?:ghp|gho|ghu|ghs|ghr)_([A-Za-z0-9]{30,}))", 1,  // GitHub
        [](std::string_view t) {
          for (size_t at = t.find("gh"); at != std::string_view::npos; at = t.find("gh", at + 1))
            if (at + 3 < t.size() && std::string_view("pousr").find(t[at + 2]) != std::string_view::npos && t[at + 3] == '_') return true;
          return false;
        });
    add(R"(\bgithub_pat_([A-Za-z0-9_]{30,}))", 1, [](std::string_view t) { return t.find("github_pat_") != std::string_view::npos; });
    // Headers and logins.
    add(R"((?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,}))", 1, [](std::string_view t) { return findNoCase(t, "bearer") != std::string_view::npos; });
    add(R"((?i)\bauthorization["']?\s*[:=]\s*["']?(?:basic\s+|token\s+)?([A-Za-z0-9._~+/=-]{8,}))", 1,
        [](std::string_view t) { return findNoCase(t, "authorization") != std::string_view::npos; });
    add(R"((?i)\bwandb\s+login\s+(?:--?[a-z-]+\s+)*([0-9a-f]{40})\b)", 1,  // W&B keys are 40 hex digits
        [](std::string_view t) { return findNoCase(t, "login") != std::string_view::npos; });
    // Credentials in URLs: the password, or a user part that is a token.
    auto url = [](std::string_view t) { return t.find("://") != std::string_view::npos && t.find('@') != std::string_view::npos; };
    add(R"([A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]*:([^\s/@]+)@)", 1, url);
    add(R"([A-Za-z][A-Za-z0-9+.-]*://([^\s/:@]{16,})@)", 1, url);
    // Assignments and flags: api_key=..., "password": "...", HF_TOKEN=..., --hub_token ...
    add(R"((?i)(?:^|[^A-Za-z0-9_])((?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|secret|token|password|passwd|pwd))["']?\s*[:=]\s*["']?([^\s"',;)}\]]+))",
        2, hasAssignment, true);
    add(R"((?i)--((?:[a-z0-9]+[_-])*(?:api[_-]?key|apikey|token|secret|password|passwd|pwd))\s+["']?([^\s"',;-][^\s"',;]*))", 2,
        hasFlag, true);
    return f;
  }());
  return kForms;
}

// Whether an assignment `name = value` holds a secret: not a tokenizer's special token
// (pad_token='<pad>'), not an empty or placeholder value, and long enough for a key or token.
bool plausibleAssignment(std::string_view name, std::string_view value) {
  std::string n;
  for (char c : name) n += lower(c) == '-' ? '_' : lower(c);
  static const std::set<std::string>& kSpecial =
      *new std::set<std::string>{"pad_token",   "eos_token",     "bos_token",
                                 "unk_token",   "sep_token",     "cls_token",
                                 "mask_token",  "special_token", "additional_special_token",
                                 "start_token", "end_token",     "image_token",
                                 "audio_token", "video_token",   "boi_token",
                                 "eoi_token",   "chat_token",    "decoder_start_token"};
  if (kSpecial.count(n)) return false;
  for (std::string_view none : {"none", "null", "nil", "true", "false", "undefined"})
    if (equalsNoCase(value, none)) return false;
  if (value.empty() || value[0] == '<' || value[0] == '$' || value[0] == '{' || value[0] == '%' || value[0] == '*') return false;
  bool passwordLike = n.size() >= 3 && (n.rfind("password") != std::string::npos || n.rfind("passwd") != std::string::npos ||
                                        n.rfind("pwd") == n.size() - 3 || n.rfind("secret") != std::string::npos);
  if (passwordLike) return true;
  // A key or token: at least 8 characters, and not a plain count.
  if (value.size() < 8) return false;
  bool digitsOnly = true;
  for (char c : value) digitsOnly &= std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
  return !digitsOnly;
}

void mask(std::string& text, size_t begin, size_t end) {
  for (size_t i = begin; i < end && i < text.size(); ++i) text[i] = '*';
}

}  // namespace

const std::vector<std::string_view>& secretTriggers() {
  static const std::vector<std::string_view>& kTriggers = *new std::vector<std::string_view>{
      "hf_",  "sk-",   "akia",   "asia",  "bearer",     "authorization", "://",
      "key",  "token", "secret", "passw", "pwd",        "login",         "ghp_",
      "gho_", "ghu_",  "ghs_",   "ghr_",  "github_pat_"};
  return kTriggers;
}

bool mayHoldSecret(std::string_view text) {
  // The triggers' first letters, so that most bytes cost one table lookup.
  static const std::array<bool, 256>& kFirst = *new std::array<bool, 256>([] {
    std::array<bool, 256> t{};
    for (auto w : secretTriggers()) t[static_cast<unsigned char>(w[0])] = true;
    return t;
  }());
  const auto& triggers = secretTriggers();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = lower(text[i]);
    if (!kFirst[static_cast<unsigned char>(c)]) continue;
    for (auto w : triggers)
      if (w[0] == c && i + w.size() <= text.size() && equalsNoCase(text.substr(i, w.size()), w)) return true;
  }
  return false;
}

bool maskSecrets(std::string& text) { return mayHoldSecret(text) && maskSecretsFound(text); }

bool maskSecretsFound(std::string& text) {
  bool masked = false;
  for (const auto& form : forms()) {
    if (!form.re->ok() || !form.gate(text)) continue;
    std::array<re2::StringPiece, 3> groups;
    size_t pos = 0;
    while (pos < text.size()) {
      re2::StringPiece whole(text);
      int n = form.assignment ? 3 : form.group + 1;
      if (!form.re->Match(whole, pos, text.size(), RE2::UNANCHORED, groups.data(), n)) break;
      const re2::StringPiece& secret = groups[static_cast<size_t>(form.group)];
      size_t matchEnd = static_cast<size_t>(groups[0].data() - text.data()) + groups[0].size();
      if (secret.data() && !secret.empty() &&
          (!form.assignment || plausibleAssignment({groups[1].data(), groups[1].size()}, {secret.data(), secret.size()}))) {
        size_t b = static_cast<size_t>(secret.data() - text.data());
        mask(text, b, b + secret.size());
        masked = true;
      }
      pos = std::max(matchEnd, pos + 1);
    }
  }
  return masked;
}

}  // namespace denpex::core
