// What the renderers share: the words for ranks, roles and sources, indentation, the rule's
// page. Internal to core/render.
#pragma once

#include <string>
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

}  // namespace denpex::core::render_detail
