// URIs, positions, and core values as LSP JSON (see protocol.h).
#include "lsp/protocol.h"

#include <filesystem>

#include "core/report.h"

namespace denpex::lsp {

namespace fs = std::filesystem;

std::string uriToPath(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) return "";
  std::string rest = uri.substr(scheme.size());
  // file://host/path: only local files (empty host or localhost) are paths here.
  size_t slash = rest.find('/');
  if (slash == std::string::npos) return "";
  std::string host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return "";
  std::string out;
  for (size_t i = slash; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (c == '#' || c == '?') {
      break;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string pathToUri(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

const json& member(const json& params, const char* name) {
  if (!params.is_object() || !params.contains(name))
    throw LspError(error::kInvalidParams, std::string("missing '") + name + "' in params");
  return params.at(name);
}

json toJson(core::TextPosition p) { return {{"line", p.line}, {"character", p.character}}; }

core::TextPosition positionFromJson(const json& j) {
  if (!j.is_object() || !j.contains("line") || !j.contains("character") || !j["line"].is_number_integer() ||
      !j["character"].is_number_integer() || j["line"].get<long long>() < 0 || j["character"].get<long long>() < 0)
    throw LspError(error::kInvalidParams, "a position needs non-negative integer 'line' and 'character'");
  return {j["line"].get<uint32_t>(), j["character"].get<uint32_t>()};
}

json evidenceRange(const core::LineIndex& index, const core::Evidence& e, core::PositionEncoding enc) {
  size_t line = static_cast<size_t>(e.line);
  std::string_view text = index.lineText(line);
  size_t begin = std::min<size_t>(e.begin, text.size());
  size_t end = std::min<size_t>(e.end, text.size());
  if (end <= begin) {
    begin = 0;
    end = text.size();
  }
  auto column = [&](size_t byte) {
    return enc == core::PositionEncoding::kUtf16 ? core::utf16Column(text, byte) : static_cast<uint32_t>(byte);
  };
  return {{"start", toJson({static_cast<uint32_t>(line), column(begin)})},
          {"end", toJson({static_cast<uint32_t>(line), column(end)})}};
}

namespace {

// A traceback path as a file URI when the file exists (absolute, or below a workspace root).
std::optional<std::string> frameUri(const std::string& file, const std::vector<std::string>& roots) {
  std::error_code ec;
  fs::path p(file);
  if (p.is_absolute() && fs::is_regular_file(p, ec)) return pathToUri(p.string());
  for (const auto& root : roots) {
    if (!p.is_absolute() && fs::is_regular_file(fs::path(root) / p, ec))
      return pathToUri((fs::path(root) / p).lexically_normal().string());
    // A log recorded elsewhere: match the trailing components below the root.
    fs::path tail;
    std::vector<fs::path> parts(p.begin(), p.end());
    for (size_t k = parts.size(); k-- > 0;) {
      if (parts[k] == "/" || parts[k].empty()) break;
      tail = tail.empty() ? parts[k] : parts[k] / tail;
      fs::path candidate = (fs::path(root) / tail).lexically_normal();
      if (fs::is_regular_file(candidate, ec)) return pathToUri(candidate.string());
    }
  }
  return std::nullopt;
}

}  // namespace

json toDiagnostic(const core::Finding& f, size_t index, const core::LineIndex& lines, const ConvertOptions& o) {
  const core::Rule& r = *f.rule;
  const core::Evidence& anchor = f.evidence.front();
  // Collateral failures and symptoms inform; the root cause is what is wrong.
  int severity = f.role() != core::Role::kRoot ? 3
                 : r.severity == core::Severity::kError ? 1
                 : r.severity == core::Severity::kWarning ? 2
                                                          : 3;
  std::string message = core::verdict(f);
  if (!f.observed.empty()) message += ": " + f.observed.back();
  if (!f.ranks.empty()) message += " (rank" + std::string(f.ranks.size() > 1 ? "s " : " ") + core::ranksText(f.ranks) + ")";
  json related = json::array();
  // Evidence in this document gets its exact range; evidence in another input its line.
  auto locate = [&](const core::Evidence& e) -> std::optional<json> {
    if (e.source == o.documentSource) return json{{"uri", o.documentUri}, {"range", evidenceRange(lines, e, o.encoding)}};
    if (e.source < o.sourceUris.size()) {
      uint32_t line = static_cast<uint32_t>(e.line);
      json range = {{"start", toJson({line, 0})}, {"end", toJson({line, 0})}};
      return json{{"uri", o.sourceUris[e.source]}, {"range", range}};
    }
    return std::nullopt;
  };
  // The same failure on the other ranks.
  for (const auto& [rank, e] : f.rankEvidence) {
    if (e.source == anchor.source && e.line == anchor.line) continue;
    if (auto loc = locate(e)) related.push_back({{"location", *loc}, {"message", "rank " + std::to_string(rank) + ": " + e.text}});
  }
  for (size_t k = 1; k < f.evidence.size(); ++k) {
    const core::Evidence& e = f.evidence[k];
    if (auto loc = locate(e)) related.push_back({{"location", *loc}, {"message", e.signal + ": " + e.text}});
  }
  if (f.userFrame) {
    if (auto uri = frameUri(f.userFrame->file, o.workspaceRoots)) {
      uint32_t line = f.userFrame->line > 0 ? static_cast<uint32_t>(f.userFrame->line - 1) : 0;
      json range = {{"start", toJson({line, 0})}, {"end", toJson({line, 0})}};
      json location = {{"uri", *uri}, {"range", range}};
      related.push_back({{"location", location},
                         {"message", "your code: " + fs::path(f.userFrame->file).filename().string() + ":" +
                                         std::to_string(f.userFrame->line)}});
    }
  }
  json d = {{"range", evidenceRange(lines, anchor, o.encoding)},
            {"severity", severity},
            {"code", r.id},
            {"codeDescription", {{"href", core::ruleUrl(r)}}},
            {"source", "denpex"},
            {"message", message},
            // Clients may send ranges back in other units (Neovim 0.7 uses bytes): code actions
            // find the finding through this, never through the range.
            {"data", {{"rule", r.id}, {"index", index}, {"line", anchor.line}, {"version", o.version}}}};
  if (!related.empty()) d["relatedInformation"] = related;
  return d;
}

json toTextEdits(const core::FixPlan& plan, core::PositionEncoding enc) {
  core::LineIndex index(plan.originalText);
  json edits = json::array();
  for (const auto& e : plan.edits) {
    edits.push_back({{"range", {{"start", toJson(index.toPosition(e.begin, enc))}, {"end", toJson(index.toPosition(e.end, enc))}}},
                     {"newText", e.newText}});
  }
  return edits;
}

}  // namespace denpex::lsp
