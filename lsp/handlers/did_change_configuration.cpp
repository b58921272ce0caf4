// workspace/didChangeConfiguration: new settings (rule folders, automatic diagnosis, log level).
#include "lsp/handlers/handlers.h"
#include "lsp/server/server.h"

namespace denpex::lsp::handlers {

void didChangeConfiguration(Server& server, json& params) {
  json settings = params.is_object() ? params.value("settings", json(nullptr)) : json(nullptr);
  // Clients send either our section or the whole settings tree.
  if (settings.is_object() && settings.contains("denpex")) settings = settings["denpex"];
  server.applySettings(settings);
}

}  // namespace denpex::lsp::handlers
