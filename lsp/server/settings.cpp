// Settings (see settings.h).
#include "lsp/server/settings.h"

namespace denpex::lsp {

Settings Settings::merge(Settings base, const json& j, bool initialization) {
  if (j.is_null()) return base;
  if (!j.is_object()) throw LspError(error::kInvalidParams, "settings must be an object");
  if (j.contains("rules")) {
    const json& r = j["rules"];
    if (!r.is_array()) throw LspError(error::kInvalidParams, "settings 'rules' must be a list of folders");
    base.ruleDirs.clear();
    for (const auto& d : r) {
      if (!d.is_string()) throw LspError(error::kInvalidParams, "settings 'rules' must be a list of folders");
      base.ruleDirs.push_back(d.get<std::string>());
    }
  }
  if (j.contains("autoDiagnose")) {
    if (!j["autoDiagnose"].is_boolean()) throw LspError(error::kInvalidParams, "settings 'autoDiagnose' must be true or false");
    base.autoDiagnose = j["autoDiagnose"].get<bool>();
  }
  if (j.contains("logLevel")) {
    if (!j["logLevel"].is_string()) throw LspError(error::kInvalidParams, "settings 'logLevel' must be a string");
    base.logLevel = j["logLevel"].get<std::string>();
  }
  if (j.contains("probe")) {
    if (!j["probe"].is_string()) throw LspError(error::kInvalidParams, "settings 'probe' must be a path to a probe file, or empty");
    base.probe = j["probe"].get<std::string>();
  }
  if (initialization && j.contains("trustedWorkspace")) {
    if (!j["trustedWorkspace"].is_boolean()) throw LspError(error::kInvalidParams, "'trustedWorkspace' must be true or false");
    base.trustedWorkspace = j["trustedWorkspace"].get<bool>();
  }
  return base;
}

}  // namespace denpex::lsp
