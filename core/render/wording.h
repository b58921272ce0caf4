// What the renderers share: the words for ranks, roles and sources, indentation, the rule's
// page. Internal to core/render.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/analyze/diagnosis.h"

namespace denpex::core::render_detail {

// Without trailing newlines and spaces.
std::string trimEnd(std::string s);
// Every non-empty line of `text` prefixed with `pad`.
std::string indent(const std::string& text, const std::string& pad);
// The name of input `source`, "<input>" when unknown.
std::string sourceName(const Diagnosis& d, uint32_t source);
// The finding's evidence in log order.
std::vector<Evidence> sortedEvidence(const Finding& f);

// Text from a log (or a path it names) made inert in Markdown: every ASCII punctuation mark
// backslash-escaped, so that no HTML, link, autolink ("https\://..."), emphasis or table cell
// break comes from the log; line breaks become spaces.
std::string mdText(std::string_view s);
// `s` as an inline code span, with a fence of backticks longer than any run inside it.
std::string mdCode(std::string_view s);
// `s` as a fenced code block of `language`, with a fence longer than any backtick run inside it.
std::string mdFence(std::string_view s, std::string_view language);

}  // namespace denpex::core::render_detail
