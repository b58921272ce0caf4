// What the planner's edit kinds share: the plan's title, literal values, indentation. Internal
// to core/fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/fix/planner.h"
#include "core/fix/python_calls.h"
#include "core/rules/rule.h"

namespace denpex::core::fix_detail {

// The file name of a path (after the last '/' or '\\').
std::string baseName(const std::string& path);
// The spaces and tabs that begin the line holding `offset`.
std::string indentOf(std::string_view text, size_t offset);
// A Python or JSON numeric literal (underscores allowed, as Python does); nullopt otherwise.
std::optional<double> numericLiteral(std::string_view text);
// The plan's title, written from the edit: "Set eps=1e-5 in torch.optim.AdamW(...), was 1e-8
// (train.py:42)". `target` is where it sets it ("torch.optim.AdamW(...)", empty for a config
// key), `previous` the value it replaces (empty when it inserts).
std::string formatTitle(const EditSpec& spec, const std::string& target, std::string_view previous, const std::string& where);

// One plan per edit kind; both are pure.
FixPlan planPythonCall(const EditSpec& spec, const SourceFile& file, const PythonCall& call);
std::optional<FixPlan> planJson(const EditSpec& spec, const SourceFile& file);
// Removes the float16 cast at `cast` (a `denpex check` finding's) where the file runs under
// autocast or a Trainer's fp16; otherwise a plan that says why it is not removed. Nothing for a
// `torch_dtype=` argument, which a python-keyword edit changes.
std::optional<FixPlan> planDropFloat16Cast(const EditSpec& spec, const SourceFile& file, const SourceSpan& cast);

}  // namespace denpex::core::fix_detail
