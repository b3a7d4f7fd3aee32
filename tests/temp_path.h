// A path in the system's temporary folder that is unique to this test
// process (the pid is in the name), so that test runs on one machine (ctest
// -j, a sanitizer build, CI) never share a file.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace softhat::test {

inline std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("softhat-test-" + std::to_string(static_cast<long>(::getpid())) + "-" + name);
}

}  // namespace softhat::test
