// Training scripts and configs checked before the run, as the editor opens and changes them
// (see server.h): the configs a document names, and the probe file of the machine jobs run on.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "core/check/source_checks.h"
#include "io/files.h"
#include "lsp/server/server.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

void Server::checkSource(const std::string& uri, bool recheckScripts) {
  auto doc = documents_.view(uri);
  if (!doc) return;
  auto bundle = rules();
  auto d = std::make_shared<core::Diagnosis>();
  std::string_view text = doc->text->view();
  d->sources.push_back(doc->path.empty() ? uri : doc->path);
  d->lines = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  const bool python = isPythonDocument(doc->path, doc->languageId);
  if (!python && isJsonDocument(doc->path, doc->languageId)) {
    d->findings = core::checkDeepSpeedConfig(text, bundle->rules, 0, doc->path, probe_.get());
    documents_.setDiagnosis(uri, d, doc->text, doc->version);
    publish(uri);
    // The scripts open beside it may name it: their comparison with it changed too.
    if (recheckScripts)
      for (const auto& other : documents_.views())
        if (other.uri != uri && settings_.autoDiagnose &&
            (isPythonDocument(other.path, other.languageId) || isCheckedYamlDocument(other.path, other.languageId, other.text->view())))
          checkSource(other.uri, false);
    return;
  }
  // The DeepSpeed configs the script or Accelerate config names, beside it: the open document's
  // text, or the file's (io::namedConfigLimits).
  std::vector<std::string> texts;
  std::vector<core::NamedConfig> configs;
  auto names = python ? core::deepSpeedConfigsNamed(text) : core::deepSpeedConfigsNamedByAccelerate(text);
  texts.reserve(names.size());
  for (const auto& name : names) {
    if (doc->path.empty()) break;
    fs::path path = (fs::path(doc->path).parent_path() / name).lexically_normal();
    auto limits = io::namedConfigLimits(path);
    if (!limits) continue;
    std::optional<std::string> content;
    for (const auto& open : documents_.views())
      if (!open.path.empty() && fs::path(open.path).lexically_normal() == path) content = std::string(open.text->view());
    std::string error;
    if (!content) content = io::readFile(path, error, *limits);
    if (!content) continue;
    texts.push_back(std::move(*content));
    configs.push_back({name, texts.back(), static_cast<uint32_t>(d->sources.size()), path.string()});
    d->sources.push_back(path.string());
  }
  d->findings = python ? core::checkPythonSource(text, bundle->rules, 0, doc->path, configs, probe_.get())
                       : core::checkAccelerateConfig(text, bundle->rules, 0, doc->path, configs, probe_.get());
  if (!python)
    for (auto& f : core::checkTrainerRecipe(text, bundle->rules, 0, doc->path, probe_.get())) d->findings.push_back(std::move(f));
  documents_.setDiagnosis(uri, d, doc->text, doc->version);
  publish(uri);
}

void Server::loadProbe() {
  probe_.reset();
  if (settings_.probe.empty()) return;
  fs::path path = settings_.probe;
  if (path.is_relative() && !roots_.empty()) path = fs::path(roots_.front()) / path;
  std::string error;
  io::ReadLimits limits;
  limits.regularOnly = true;
  limits.maxBytes = 1 << 20;
  auto text = io::readFile(path, error, limits);
  auto probe = text ? core::probeFromJson(*text, path.string()) : core::Expected<core::MachineProbe>(core::Error{error});
  if (!probe) {
    spdlog::warn("probe: {}", probe.error());
    notify("window/showMessage", {{"type", 2}, {"message", "denpex: the probe file is not used: " + probe.error()}});
    return;
  }
  spdlog::info("scripts are checked against the machine of {}", path.string());
  probe_ = std::make_shared<const core::MachineProbe>(std::move(*probe));
}

}  // namespace denpex::lsp
