// The lines of a text read whole (corpus files, predictions, word lists):
// each without its '\n' and a '\r' before it; a last line without '\n'
// counts; an empty text has none. Line k (from 1) is element k - 1.
#pragma once

#include <string_view>
#include <vector>

namespace softhat {

inline std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

}  // namespace softhat
