// initialize / initialized / shutdown, and settings changes.
#include "core/report.h"
#include "lsp/server.h"

namespace denpex::lsp {

void registerLifecycle(Server& server) {
  server.onRequest("initialize", [&server](const json& params) {
    server.initialize(params);
    json capabilities = {
        {"positionEncoding", server.encoding() == core::PositionEncoding::kUtf8 ? "utf-8" : "utf-16"},
        {"textDocumentSync", {{"openClose", true}, {"change", 2}}},  // incremental
        {"hoverProvider", true},
        {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}, {"resolveProvider", true}}},
        {"executeCommandProvider", {{"commands", {"denpex.diagnose", "denpex.explain", "denpex.rules"}}}},
        {"documentLinkProvider", {{"resolveProvider", false}}},
        {"codeLensProvider", {{"resolveProvider", false}}},
    };
    return json{{"capabilities", capabilities}, {"serverInfo", {{"name", "denpex"}, {"version", core::kVersion}}}};
  });
  server.onNotification("initialized", [](const json&) {});
  server.onRequest("shutdown", [&server](const json&) {
    server.markShutdown();
    return json(nullptr);
  });
  server.onNotification("workspace/didChangeConfiguration", [&server](const json& params) {
    json settings = params.is_object() ? params.value("settings", json(nullptr)) : json(nullptr);
    // Clients send either our section or the whole settings tree.
    if (settings.is_object() && settings.contains("denpex")) settings = settings["denpex"];
    server.applySettings(settings);
  });
}

}  // namespace denpex::lsp
