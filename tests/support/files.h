// Fixtures every test suite shares: reading and writing files, a scratch copy of the seed
// project, file URIs, and applying LSP text edits the way an editor does.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/parse/log_text.h"

namespace denpex::test {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline const fs::path kSource = DENPEX_SOURCE_DIR;

inline std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeAll(const fs::path& p, const std::string& text) {
  if (!p.parent_path().empty()) fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

inline std::string uriOf(const fs::path& p) { return "file://" + fs::absolute(p).lexically_normal().string(); }

// Applies LSP text edits (positions in `enc`) to a text, as an editor does.
inline std::string applyLspEdits(std::string text, const json& edits, core::PositionEncoding enc = core::PositionEncoding::kUtf16) {
  std::vector<std::tuple<size_t, size_t, std::string>> spans;
  core::LineIndex index(text);
  for (const auto& e : edits) {
    auto pos = [&](const json& p) { return index.toOffset({p["line"].get<uint32_t>(), p["character"].get<uint32_t>()}, enc); };
    spans.emplace_back(pos(e["range"]["start"]), pos(e["range"]["end"]), e["newText"].get<std::string>());
  }
  std::sort(spans.rbegin(), spans.rend());
  for (const auto& [b, e, t] : spans) text.replace(b, e - b, t);
  return text;
}

// A fresh folder per test, removed afterwards; with a copy of the seed example (train.py, its
// helper and the recorded log) when the fixture asks for it.
class ScratchDir : public ::testing::Test {
 protected:
  explicit ScratchDir(bool seedProject = true) : seed_(seedProject) {}
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("denpex-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (seed_)
      for (const char* f : {"train.py", "fp16_adamw_cpu.py", "train.log"}) fs::copy_file(kSource / "examples/fp16-adamw" / f, dir_ / f);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;

 private:
  bool seed_;
};

}  // namespace denpex::test
