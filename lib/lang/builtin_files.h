// The catalogue files of languages/ (*.toml, and the *.att automata they
// name), embedded at build time by CMake (cmake/embed_catalog.cmake writes
// the definition).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace softhat::lang {

// (path relative to the source tree, file contents), sorted by path.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_language_files();

}  // namespace softhat::lang
