// What /proc/self gives of the mapping that holds an address, for the tests of io/huge_pages.h
// and its users.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace denpex::test {

// The mapping's "VmFlags:" field ("hg": advised into huge pages) with a space before and after each flag (" rd wr hg ").
inline std::string vmFlagsAt(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}

// The name /proc/self/maps gives the mapping that holds `p` ("[heap]", a file's path, or empty
// for an anonymous mapping); "?" when no mapping holds it.
inline std::string mappingNameAt(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  for (std::string line; std::getline(maps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream fields(line);
    if (!(fields >> std::hex >> lo >> dash >> hi) || dash != '-' || at < lo || at >= hi) continue;
    std::string perms, offset, device, inode, name;
    fields >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, name);
    return name;
  }
  return "?";
}

}  // namespace denpex::test
