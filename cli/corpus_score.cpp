// Scoring the corpus of real logs (see corpus_score.h).
#include "cli/corpus_score.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "cli/common.h"
#include "core/analyze/diagnoser.h"
#include "core/base/text.h"
#include "io/files.h"

namespace denpex::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = R"(usage: denpex rules score CORPUS [--floor FILE] [--misses] [--rules DIR]

Diagnoses every labelled log in CORPUS (<name>.log beside <name>.label.yaml) and scores how
often the first finding is the class the log's thread concluded (top-1), whether it is among
the first three (top-3), and whether logs where nothing failed get no finding at all.

  --floor FILE   fail (exit 1) when a score is below the floor's: lines 'top1 0.80',
                 'top3 0.90', 'negatives 1.0'
  --misses       list every log that was not right, with what was found instead
  --rules DIR    also load the rules in DIR (repeatable; overrides shipped rules by id)
)";

std::string unquote(std::string_view v) {
  v = core::text::trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return std::string(v);
}

std::string percent(size_t a, size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", b ? 100.0 * a / b : 100.0);
  return buf;
}

}  // namespace

std::optional<CorpusLabel> readCorpusLabel(const std::string& text, std::string& error) {
  CorpusLabel label;
  bool hasSource = false, hasClass = false;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string_view line = std::string_view(text).substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string_view::npos) continue;
    std::string key(core::text::trim(line.substr(0, colon)));
    std::string value = unquote(line.substr(colon + 1));
    if (key == "source") hasSource = !(label.source = value).empty();
    else if (key == "class") hasClass = !(label.expected = value).empty();
    else if (key == "confirmed") label.confirmed = value == "true";
    else if (key == "note") label.note = value;
    else if (key == "initiating_rank") {
      // A rank is a small number; anything else (or a key spelt otherwise, below) would
      // leave the label's rank unchecked without a word.
      long long rank = 0;
      if (value.empty() || value.size() > 6 || core::text::readInt(value, 0, rank, 6) != value.size()) {
        error = "initiating_rank '" + value + "' is not a rank number";
        return std::nullopt;
      }
      label.initiatingRank = static_cast<int>(rank);
    } else {
      error = "unknown key '" + key + "' (a label has source, class, confirmed, note and initiating_rank)";
      return std::nullopt;
    }
  }
  if (!hasSource || !hasClass) {
    error = std::string("missing '") + (hasSource ? "class" : "source") + "'";
    return std::nullopt;
  }
  return label;
}

CorpusScore scoreCorpus(const fs::path& dir, const core::RuleSet& rules, const core::Matcher& matcher,
                        std::vector<std::string>& errors) {
  CorpusScore score;
  std::vector<fs::path> logs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".log") logs.push_back(it->path());
  std::sort(logs.begin(), logs.end());
  for (const auto& log : logs) {
    fs::path labelPath = log;
    labelPath.replace_extension(".label.yaml");
    std::string error;
    auto labelText = io::readFile(labelPath, error);
    if (!labelText) {
      errors.push_back(log.string() + ": no label (" + error + ")");
      continue;
    }
    auto label = readCorpusLabel(*labelText, error);
    if (!label) {
      errors.push_back(labelPath.string() + ": " + error);
      continue;
    }
    auto text = io::readFile(log, error);
    if (!text) {
      errors.push_back(error);
      continue;
    }
    core::Diagnosis d = core::diagnoseText(rules, matcher, *text, log.filename().string());
    CorpusResult r;
    r.name = log.filename().string();
    r.label = *label;
    for (const auto& f : d.findings) r.found.push_back(f.rule->id);
    r.initiatingRank = d.incident.initiatingRank;
    if (r.label.expected == "none") {
      ++score.negatives;
      r.top1 = r.top3 = r.found.empty();
      if (r.top1) ++score.negativesClean;
    } else {
      ++score.positives;
      // A class no rule covers yet ("new:...") is a miss until a rule of that id exists.
      std::string want = core::text::startsWith(r.label.expected, "new:") ? r.label.expected.substr(4) : r.label.expected;
      r.top1 = !r.found.empty() && r.found.front() == want;
      for (size_t i = 0; i < r.found.size() && i < 3; ++i) r.top3 |= r.found[i] == want;
      score.top1 += r.top1;
      score.top3 += r.top3;
    }
    auto& cls = score.perClass[r.label.expected];
    ++cls.first;
    cls.second += r.top1;
    if (r.label.initiatingRank) {
      ++score.rankLabels;
      score.rankRight += r.initiatingRank == r.label.initiatingRank;
    }
    score.results.push_back(std::move(r));
  }
  return score;
}

int runScore(const std::vector<std::string>& args) {
  std::optional<std::string> dir, floorFile;
  bool misses = false;
  std::vector<std::string> ruleDirs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kUsage;
      return kExitClean;
    }
    if (args[i] == "--floor" && i + 1 < args.size()) floorFile = args[++i];
    else if (args[i] == "--misses") misses = true;
    else if (args[i] == "--rules" && i + 1 < args.size()) ruleDirs.push_back(args[++i]);
    else if (!dir && !args[i].empty() && args[i][0] != '-') dir = args[i];
    else {
      std::cerr << "denpex rules score: unexpected argument '" << args[i] << "'\n" << kUsage;
      return kExitUsage;
    }
  }
  std::error_code ec;
  if (!dir || !fs::is_directory(*dir, ec)) {
    std::cerr << "denpex rules score: which corpus folder?\n" << kUsage;
    return kExitUsage;
  }
  io::LoadedRules load = loadRules(ruleDirs);
  for (const auto& e : load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  std::vector<std::string> errors;
  CorpusScore s = scoreCorpus(*dir, load.rules, *load.matcher, errors);
  for (const auto& e : errors) std::cerr << "denpex rules score: " << e << "\n";

  std::cout << std::left << std::setw(44) << "CLASS" << std::right << std::setw(6) << "LOGS" << std::setw(7) << "TOP-1" << "\n";
  for (const auto& [cls, n] : s.perClass)
    std::cout << std::left << std::setw(44) << cls << std::right << std::setw(6) << n.first << std::setw(7) << n.second << "\n";
  if (misses) {
    std::cout << "\nNot right:\n";
    for (const auto& r : s.results) {
      if (r.top1) continue;
      std::string found;
      for (size_t i = 0; i < r.found.size() && i < 4; ++i) found += (i ? ", " : "") + r.found[i];
      std::cout << "  " << r.name << ": " << r.label.expected << "; found " << (found.empty() ? "nothing" : found) << "\n";
    }
  }
  std::cout << "\nTop-1: " << s.top1 << "/" << s.positives << " (" << percent(s.top1, s.positives) << ")"
            << "  Top-3: " << s.top3 << "/" << s.positives << " (" << percent(s.top3, s.positives) << ")"
            << "  Negatives without a finding: " << s.negativesClean << "/" << s.negatives
            << "  Initiating rank: " << s.rankRight << "/" << s.rankLabels << "\n";

  int status = errors.empty() ? kExitClean : kExitFound;
  if (floorFile) {
    std::string error;
    auto text = io::readFile(*floorFile, error);
    if (!text) {
      std::cerr << "denpex rules score: " << error << "\n";
      return kExitUsage;
    }
    std::map<std::string, double> floor;
    for (size_t at = 0; at < text->size();) {
      size_t end = text->find('\n', at);
      std::string line = text->substr(at, end == std::string::npos ? std::string::npos : end - at);
      at = end == std::string::npos ? text->size() : end + 1;
      size_t sp = line.find(' ');
      if (line.empty() || line[0] == '#' || sp == std::string::npos) continue;
      floor[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
    }
    auto check = [&](const char* key, double value) {
      if (!floor.count(key)) return;
      bool ok = value + 1e-9 >= floor[key];
      std::cout << "floor " << key << ": " << floor[key] << (ok ? " ok" : " FAILED (score " + std::to_string(value) + ")") << "\n";
      if (!ok) status = kExitFound;
    };
    check("top1", s.top1Rate());
    check("top3", s.top3Rate());
    check("negatives", s.negativeRate());
  }
  return status;
}

}  // namespace denpex::cli
