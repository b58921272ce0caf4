// `denpex explain RULE` and `denpex rules list|lint|test`.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "cli/common.h"
#include "cli/corpus_score.h"
#include "cli/rule_checks.h"
#include "core/analyze/diagnoser.h"
#include "core/rules/lint.h"
#include "core/rules/matcher.h"
#include "io/files.h"
#include "io/rule_dirs.h"
#include "core/render/report.h"

namespace denpex::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRulesUsage = R"(usage: denpex rules list [DIR]
       denpex rules lint [DIR] [--examples DIR]
       denpex rules test [DIR] [--examples DIR] [--rule ID] [--snapshots | --update-snapshots]
       denpex rules docs OUTDIR
       denpex rules score CORPUS [--floor FILE] [--misses] [--rules DIR]

  list   the rules: shipped ones, or those in DIR
  lint   check rule files: YAML, fields, regexes, examples; exit 1 on any problem
  docs   write a Markdown page per shipped rule and an index (docs/rules/)
  score  diagnose a corpus of labelled real logs and score top-1, top-3 and negatives
  test   run every rule's examples: those that must match and those that must not.
         Examples come from the rule file's 'examples', from <DIR>/<id>/match|no_match/
         beside the rules, and from --examples DIR (the same layout). --rule runs one rule.
         An example of a rule must be diagnosed as that rule first.
         --snapshots also compares each example's whole diagnosis (findings, order, roles,
         evidence lines and columns, captures) with <examples>/<id>/snapshot.txt, and each
         fix case <examples>/<id>/fix/<case>/ (a .log, the sources, <file>.fixed) with the
         fixed files; --update-snapshots writes them instead.
)";

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Example logs from a folder laid out as <id>/match/* and <id>/no_match/*.
void addExampleFiles(const fs::path& dir, core::Rule& rule) {
  std::error_code ec;
  for (auto [sub, list] : {std::pair{"match", &rule.matchExamples}, std::pair{"no_match", &rule.noMatchExamples}}) {
    fs::path folder = dir / rule.id / sub;
    if (!fs::is_directory(folder, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(folder, ec))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::string error;
      if (auto text = io::readFile(f, error)) list->push_back({f.string(), std::move(*text)});
    }
  }
}

struct Target {
  io::LoadedRules load;
  std::vector<std::string> ids;  // the rules to list / lint / test, in load order
};

Target loadTarget(const std::optional<std::string>& dir) {
  Target t;
  if (!dir) {
    t.load = loadRules({});
    for (const auto& r : t.load.rules.rules()) t.ids.push_back(r->id);
    return t;
  }
  // The folder's rules are tested among the shipped ones, as a user's run would load them. A
  // file at the path a shipped rule was built from (this repository's rules/) is that rule's
  // working copy and replaces it; any other file is a user rule, with a user rule's limits.
  t.load = loadRules({});
  std::vector<core::RuleError> errors;
  auto sources = io::readRuleDir(*dir, errors);
  std::set<std::string> shippedPaths;
  for (const auto& b : core::builtinRuleSources()) shippedPaths.insert(b.path);
  std::vector<core::RuleSource> working, user;
  for (const auto& src : sources) {
    std::string rel = fs::path(src.path).lexically_relative(*dir).generic_string();
    (shippedPaths.count("<builtin>/" + rel) ? working : user).push_back(src);
  }
  auto more = t.load.rules.add(working, core::RuleOrigin::kShipped);
  auto userErrors = t.load.rules.add(user, core::RuleOrigin::kUser);
  t.load.errors = errors;
  t.load.errors.insert(t.load.errors.end(), more.begin(), more.end());
  t.load.errors.insert(t.load.errors.end(), userErrors.begin(), userErrors.end());
  for (const auto& s : sources) {
    for (const auto& r : t.load.rules.rules())
      if (r->file == s.path) t.ids.push_back(r->id);
  }
  return t;
}

// Writes docs/rules: a page per rule (its full entry) and an index by category and by system.
int docs(const std::optional<std::string>& outDir) {
  if (!outDir) {
    std::cerr << "denpex rules docs: which folder? e.g. denpex rules docs docs/rules\n";
    return kExitUsage;
  }
  io::LoadedRules load = loadRules({});
  for (const auto& e : load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  std::vector<std::shared_ptr<const core::Rule>> rules = load.rules.rules();
  std::sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) {
    return std::tie(a->category, a->id) < std::tie(b->category, b->id);
  });
  fs::path out(*outDir);
  std::error_code ec;
  fs::create_directories(out, ec);
  std::map<std::string, std::vector<const core::Rule*>> byCategory, bySystem;
  for (const auto& r : rules) {
    fs::create_directories(out / r->category, ec);
    std::ofstream page(out / r->category / (r->id + ".md"), std::ios::binary | std::ios::trunc);
    page << "<!-- Generated by `denpex rules docs` from rules/" << r->category << "/" << r->id << ".yaml. Do not edit. -->\n\n"
         << core::explainMarkdown(*r);
    if (!page) {
      std::cerr << "denpex rules docs: cannot write " << (out / r->category / (r->id + ".md")).string() << "\n";
      return kExitUsage;
    }
    byCategory[r->category].push_back(r.get());
    for (const auto& s : r->systems) bySystem[s].push_back(r.get());
  }
  std::ofstream index(out / "README.md", std::ios::binary | std::ios::trunc);
  index << "<!-- Generated by `denpex rules docs`. Do not edit. -->\n\n# The failures denpex knows\n\n"
        << rules.size() << " rules. Each page is the rule's full entry, as `denpex explain ID` prints it.\n\n## By category\n\n";
  for (const auto& [category, list] : byCategory) {
    index << "### " << category << "\n\n";
    for (const auto* r : list) index << "- [" << r->title << "](" << r->category << "/" << r->id << ".md) `" << r->id << "`\n";
    index << "\n";
  }
  index << "## By system\n\n";
  for (const auto& [system, list] : bySystem) {
    index << "### " << system << "\n\n";
    for (const auto* r : list) index << "- [" << r->title << "](" << r->category << "/" << r->id << ".md)\n";
    index << "\n";
  }
  std::cout << "wrote " << rules.size() << " rule pages and an index to " << out.string() << "\n";
  return load.errors.empty() ? kExitClean : kExitFound;
}

int list(const std::optional<std::string>& dir) {
  Target t = loadTarget(dir);
  for (const auto& e : t.load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  std::cout << std::left << std::setw(34) << "ID" << std::setw(14) << "CATEGORY" << std::setw(9) << "SEVERITY"
            << "TITLE\n";
  for (const auto& id : t.ids) {
    const core::Rule* r = t.load.rules.find(id);
    std::cout << std::left << std::setw(34) << r->id << std::setw(14) << r->category << std::setw(9)
              << core::toString(r->severity) << r->title << "\n";
  }
  std::cout << t.ids.size() << " rules\n";
  return t.load.errors.empty() ? kExitClean : kExitFound;
}

int lint(const std::optional<std::string>& dir, const std::vector<std::string>& exampleDirs) {
  Target t = loadTarget(dir);
  std::vector<core::RuleError> problems = t.load.errors;
  std::set<std::string> seen;
  for (const auto& id : t.ids) {
    core::Rule rule = *t.load.rules.find(id);
    if (dir) addExampleFiles(fs::path(rule.file).parent_path(), rule);
    for (const auto& ed : exampleDirs) addExampleFiles(ed, rule);
    auto more = core::lintRule(rule);
    problems.insert(problems.end(), more.begin(), more.end());
    for (const auto& rel : rule.related)
      if (!t.load.rules.find(rel)) problems.push_back({rule.file, 0, "rule '" + id + "': related rule '" + rel + "' does not exist"});
  }
  // A folder of examples that names no rule, or a misspelt part of one, would be skipped in
  // silence: its examples never run.
  std::set<std::string> ids(t.ids.begin(), t.ids.end());
  std::error_code ec;
  for (const auto& ed : exampleDirs) {
    for (const auto& e : fs::directory_iterator(ed, ec)) {
      std::string name = e.path().filename().string();
      if (!e.is_directory()) continue;
      if (!ids.count(name)) {
        problems.push_back({e.path().string(), 0, "folder '" + name + "' matches no rule id: its examples are never run"});
        continue;
      }
      for (const auto& part : fs::directory_iterator(e.path(), ec)) {
        std::string partName = part.path().filename().string();
        bool known = part.is_directory() ? (partName == "match" || partName == "no_match" || partName == "fix")
                                         : partName == "snapshot.txt";
        if (!known)
          problems.push_back({part.path().string(), 0,
                              "'" + partName + "' is not part of a rule's examples (match/, no_match/, fix/, snapshot.txt): it is never read"});
      }
    }
  }
  for (const auto& p : problems) std::cout << p.format() << "\n";
  // Slow patterns are warnings: a timing, not a fault of the file.
  size_t warnings = 0;
  for (const auto& id : t.ids) {
    const core::Rule* rule = t.load.rules.find(id);
    for (const auto& w : slowPatterns(*rule)) {
      std::cout << rule->file << ": warning: " << w << "\n";
      ++warnings;
    }
  }
  std::cout << t.ids.size() << " rules checked, " << problems.size() << " problem" << (problems.size() == 1 ? "" : "s")
            << (warnings ? ", " + std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s") : "") << "\n";
  return problems.empty() ? kExitClean : kExitFound;
}

// Where a rule's snapshot and fix cases live: beside its examples.
fs::path checksDir(const std::optional<std::string>& dir, const std::vector<std::string>& exampleDirs, const core::Rule& rule) {
  if (!exampleDirs.empty()) return fs::path(exampleDirs.front()) / rule.id;
  return (dir ? fs::path(rule.file).parent_path() : fs::path(".")) / rule.id;
}

enum class Snapshots { kOff, kCheck, kUpdate };

int test(const std::optional<std::string>& dir, const std::vector<std::string>& exampleDirs,
         const std::optional<std::string>& only, Snapshots snapshots) {
  Target t = loadTarget(dir);
  for (const auto& e : t.load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  core::Matcher matcher(t.load.rules);
  size_t validated = 0, missing = 0, noisy = 0, firstRight = 0, firstWrong = 0, nothing = 0, rulesFailed = 0;
  size_t tested = 0;
  std::error_code ec;
  for (const auto& id : t.ids) {
    if (only && id != *only) continue;
    ++tested;
    core::Rule rule = *t.load.rules.find(id);
    if (dir) addExampleFiles(fs::path(rule.file).parent_path(), rule);
    for (const auto& ed : exampleDirs) addExampleFiles(ed, rule);
    std::vector<std::string> failures;
    for (const auto& ex : rule.matchExamples) {
      auto d = core::diagnoseText(t.load.rules, matcher, ex.text, ex.name);
      bool hit = std::any_of(d.findings.begin(), d.findings.end(), [&](const auto& f) { return f.rule->id == id; });
      if (hit) ++validated;
      else {
        ++missing;
        std::string got = d.findings.empty() ? "nothing" : d.findings.front().rule->id;
        failures.push_back("  missing: " + ex.name + " (found " + got + ")");
      }
      if (d.findings.empty()) ++nothing;
      else if (d.findings.front().rule->id == id) ++firstRight;
      else {
        ++firstWrong;
        // An example of this failure must be diagnosed as this failure first, not after another.
        if (hit) failures.push_back("  not first: " + ex.name + " (found " + d.findings.front().rule->id + " first)");
      }
    }
    for (const auto& ex : rule.noMatchExamples) {
      auto d = core::diagnoseText(t.load.rules, matcher, ex.text, ex.name);
      bool hit = std::any_of(d.findings.begin(), d.findings.end(), [&](const auto& f) { return f.rule->id == id; });
      if (hit) {
        ++noisy;
        failures.push_back("  noisy: " + ex.name + " must not match");
      } else {
        ++validated;
      }
    }
    if (snapshots != Snapshots::kOff) {
      fs::path where = checksDir(dir, exampleDirs, rule);
      std::string snap = ruleSnapshot(rule, t.load.rules, matcher);
      std::string error;
      if (snapshots == Snapshots::kUpdate) {
        fs::create_directories(where, ec);
        std::ofstream(where / "snapshot.txt", std::ios::binary | std::ios::trunc) << snap;
      } else if (auto want = io::readFile(where / "snapshot.txt", error); !want) {
        failures.push_back("  no snapshot: " + error + " (write it with --update-snapshots and review it)");
      } else if (*want != snap) {
        failures.push_back("  snapshot differs: " + (where / "snapshot.txt").string() + "\n" +
                           textDiff("snapshot.txt", *want, snap));
      }
      for (auto& f : checkFixes(rule, where / "fix", t.load.rules, matcher, snapshots == Snapshots::kUpdate))
        failures.push_back(std::move(f));
    }
    if (rule.matchExamples.empty() || rule.noMatchExamples.empty())
      failures.push_back("  has no examples that must " + std::string(rule.matchExamples.empty() ? "match" : "not match"));
    std::cout << (failures.empty() ? "ok    " : "FAIL  ") << id << " (" << rule.matchExamples.size() << " match, "
              << rule.noMatchExamples.size() << " no_match)\n";
    for (const auto& f : failures) std::cout << f << "\n";
    if (!failures.empty()) ++rulesFailed;
  }
  if (only && tested == 0) {
    std::cerr << "denpex rules test: no rule '" << *only << "'\n";
    return kExitUsage;
  }
  std::cout << "\nValidated: " << validated << "  Missing: " << missing << "  Noisy: " << noisy << "\n";
  std::cout << "Match examples: " << firstRight << " diagnosed as their rule first, " << firstWrong
            << " as another rule first, " << nothing << " matched nothing\n";
  std::cout << tested - rulesFailed << " passed, " << rulesFailed << " failed\n";
  return rulesFailed == 0 && t.load.errors.empty() ? kExitClean : kExitFound;
}

}  // namespace

int runExplain(const std::vector<std::string>& args) {
  std::vector<std::string> dirs;
  std::optional<std::string> id;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << "usage: denpex explain [--rules DIR] RULE\n\nPrints the rule's full entry as Markdown.\n";
      return kExitClean;
    }
    if (args[i] == "--rules" && i + 1 < args.size()) dirs.push_back(args[++i]);
    else if (!id && args[i][0] != '-') id = args[i];
    else {
      std::cerr << "denpex explain: unexpected argument '" << args[i] << "'\n";
      return kExitUsage;
    }
  }
  if (!id) {
    std::cerr << "denpex explain: which rule? (see 'denpex rules list')\n";
    return kExitUsage;
  }
  io::LoadedRules load = loadRules(dirs);
  for (const auto& e : load.errors) std::cerr << "denpex: rule error: " << e.format() << "\n";
  if (const core::Rule* r = load.rules.find(*id)) {
    std::cout << core::explainMarkdown(*r);
    return kExitClean;
  }
  std::string best;
  size_t bestDistance = 1000;
  for (const auto& r : load.rules.rules()) {
    size_t dist = editDistance(*id, r->id);
    if (r->id.find(*id) != std::string::npos) dist = 0;
    if (dist < bestDistance) {
      bestDistance = dist;
      best = r->id;
    }
  }
  std::cerr << "denpex explain: no rule '" << *id << "'";
  if (!best.empty() && bestDistance <= std::max<size_t>(3, id->size() / 2)) std::cerr << "; did you mean '" << best << "'?";
  std::cerr << "\n";
  return kExitUsage;
}

int runRules(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::cout << kRulesUsage;
    return args.empty() ? kExitUsage : kExitClean;
  }
  std::string sub = args[0];
  if (sub == "score") return runScore(std::vector<std::string>(args.begin() + 1, args.end()));
  std::optional<std::string> dir, only;
  std::vector<std::string> exampleDirs;
  Snapshots snapshots = Snapshots::kOff;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--examples" && i + 1 < args.size()) exampleDirs.push_back(args[++i]);
    else if (args[i] == "--snapshots") snapshots = Snapshots::kCheck;
    else if (args[i] == "--update-snapshots") snapshots = Snapshots::kUpdate;
    else if (args[i] == "--rule" && i + 1 < args.size()) only = args[++i];
    else if (!dir && args[i][0] != '-') dir = args[i];
    else {
      std::cerr << "denpex rules: unexpected argument '" << args[i] << "'\n";
      return kExitUsage;
    }
  }
  if (dir && sub != "docs") {
    std::error_code ec;
    if (!fs::is_directory(*dir, ec)) {
      std::cerr << "denpex rules: " << *dir << ": not a folder\n";
      return kExitUsage;
    }
  }
  if (sub == "list") return list(dir);
  if (sub == "lint") return lint(dir, exampleDirs);
  if (sub == "test") return test(dir, exampleDirs, only, snapshots);
  if (sub == "docs") return docs(dir);
  std::cerr << "denpex rules: unknown subcommand '" << sub << "'\n" << kRulesUsage;
  return kExitUsage;
}

}  // namespace denpex::cli
