// The MLRegTest sample's .att files (SOFTHAT_MLREGTEST_DIR), sorted by name;
// empty (with a warning) when the shared sample is not there.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <vector>

inline std::vector<std::filesystem::path> mlregtest_files() {
  const std::filesystem::path dir = SOFTHAT_MLREGTEST_DIR;
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::exists(dir)) {
    WARN("no MLRegTest sample at " << dir);
    return files;
  }
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".att") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}
