# Writes a C++ source that holds every shipped rule file, so that `denpex` works from any
# folder. Run at build time: cmake -DRULES_DIR=... -DOUTPUT=... -P embed_rules.cmake
file(GLOB_RECURSE rule_files RELATIVE "${RULES_DIR}" "${RULES_DIR}/*.yaml")
list(SORT rule_files)
set(body "")
set(index "")
set(n 0)
foreach(rel IN LISTS rule_files)
  file(READ "${RULES_DIR}/${rel}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "const unsigned char kRule${n}[] = {${bytes}0};\n")
  string(APPEND index "    {\"<builtin>/${rel}\", std::string(reinterpret_cast<const char*>(kRule${n}), sizeof(kRule${n}) - 1)},\n")
  math(EXPR n "${n} + 1")
endforeach()
set(content "// Generated from rules/ by cmake/embed_rules.cmake. Do not edit.
#include \"core/rules/rule.h\"

namespace denpex::core {
namespace {
${body}}  // namespace

std::vector<RuleSource> builtinRuleSources() {
  return {
${index}  };
}

}  // namespace denpex::core
")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
