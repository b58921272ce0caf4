// The rules the server uses (see server.h): loaded from the shipped bundle, the trusted
// workspace's .denpex/rules and the settings' folders; reloaded when they change; their errors
// published on the rule files.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>

#include "lsp/protocol/uri.h"
#include "lsp/server/server.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

std::shared_ptr<const io::LoadedRules> Server::rules() const {
  std::lock_guard<std::mutex> lock(rulesMutex_);
  return rules_;
}

void Server::reloadRules() {
  io::RuleLoadOptions options;
  // Rule folders are code: loaded only when the client says the user trusts the workspace.
  std::vector<std::string> skipped;
  std::error_code ec;
  if (settings_.trustedWorkspace) {
    for (const auto& r : roots_) options.roots.emplace_back(r);
    options.extraDirs = settings_.ruleDirs;
    if (!roots_.empty()) options.base = roots_.front();
  } else {
    for (const auto& r : roots_)
      if (fs::is_directory(fs::path(r) / ".denpex/rules", ec)) skipped.push_back((fs::path(r) / ".denpex/rules").string());
    skipped.insert(skipped.end(), settings_.ruleDirs.begin(), settings_.ruleDirs.end());
  }
  auto bundle = std::make_shared<const io::LoadedRules>(io::loadRules(options));
  {
    std::lock_guard<std::mutex> lock(rulesMutex_);
    rules_ = bundle;
    ++rulesGeneration_;
  }
  for (const auto& e : bundle->errors) spdlog::warn("rule error: {}", e.format());
  spdlog::info("{} rules loaded ({} rule errors)", bundle->rules.rules().size(), bundle->errors.size());
  // Say which rule folders are in use, and which were left out, where the user can read it.
  std::string inUse = "denpex: rules in use: the shipped rules";
  for (const auto& [folder, count] : bundle->folders) inUse += "; " + std::to_string(count) + " from " + folder;
  for (const auto& o : bundle->rules.overridden()) inUse += "; shipped rule " + o + " is overridden";
  for (const auto& s : skipped) inUse += "; not loaded (workspace not trusted): " + s;
  spdlog::info("{}", inUse);
  rulesNote_ = inUse;
  // Rule errors are shown to the user, at start-up too (once the client is ready to show them).
  rulesErrorNote_.clear();
  if (!bundle->errors.empty())
    rulesErrorNote_ = "denpex: " + std::to_string(bundle->errors.size()) + " rule file error(s), e.g. " + bundle->errors.front().format();
  if (initialized_) announceRules();
}

void Server::publishRuleErrors(const io::LoadedRules& rules) {
  // Only rule files on disk (never the shipped ones) get diagnostics.
  std::map<std::string, json> byUri;
  for (const auto& e : rules.errors) {
    if (e.file.rfind("<builtin>", 0) == 0) continue;
    std::error_code ec;
    std::string uri = pathToUri(fs::absolute(e.file, ec).lexically_normal().string());
    uint32_t line = e.line > 0 ? static_cast<uint32_t>(e.line - 1) : 0;
    json range = {{"start", {{"line", line}, {"character", 0}}}, {"end", {{"line", line + 1}, {"character", 0}}}};
    byUri[uri].push_back({{"range", range}, {"severity", 1}, {"source", "denpex"}, {"message", e.message}});
  }
  for (const auto& uri : ruleErrorUris_)
    if (!byUri.count(uri)) publishDiagnostics(uri, std::nullopt, json::array());
  ruleErrorUris_.clear();
  for (auto& [uri, diagnostics] : byUri) {
    publishDiagnostics(uri, std::nullopt, std::move(diagnostics));
    ruleErrorUris_.insert(uri);
  }
}

void Server::rediagnoseLogs() {
  for (const auto& doc : documents_.views()) {
    if (doc.isLog && settings_.autoDiagnose) scheduleDiagnosis(doc.uri);
    else if (isCheckedDocument(doc.path, doc.languageId, doc.text->view()) && settings_.autoDiagnose) checkSource(doc.uri, false);
  }
}

void Server::rulesChangedOnDisk(const std::vector<std::string>& paths) {
  auto isRuleFile = [](const std::string& p) {
    std::string ext = fs::path(p).extension().string();
    return ext == ".yaml" || ext == ".yml";
  };
  bool relevant = false;
  for (const auto& p : paths) relevant |= isRuleFile(p);
  if (!relevant) return;
  spdlog::info("rule files changed on disk: reloading the rules");
  reloadRules();
  rediagnoseLogs();
}

void Server::changeWorkspaceFolders(const std::vector<std::string>& added, const std::vector<std::string>& removed) {
  std::error_code ec;
  for (const auto& r : removed) {
    std::string p = fs::absolute(r, ec).lexically_normal().string();
    roots_.erase(std::remove(roots_.begin(), roots_.end(), p), roots_.end());
  }
  for (const auto& a : added) {
    std::string p = fs::absolute(a, ec).lexically_normal().string();
    if (std::find(roots_.begin(), roots_.end(), p) == roots_.end()) roots_.push_back(p);
  }
  invalidateListing();
  reloadRules();
  rediagnoseLogs();
}

void Server::announceRules() {
  notify("window/logMessage", {{"type", 3}, {"message", rulesNote_}});
  if (auto bundle = rules()) publishRuleErrors(*bundle);
  if (!rulesErrorNote_.empty()) notify("window/showMessage", {{"type", 2}, {"message", rulesErrorNote_}});
}

}  // namespace denpex::lsp
