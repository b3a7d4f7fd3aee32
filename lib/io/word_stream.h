// Streaming classification of words read one per line (architecture.md,
// command-line contract): '\r' before the newline is dropped, an empty line
// is the empty word, output keeps the input's order one line per line, and a
// bad word (a symbol outside the alphabet) yields an error record on its own
// line while the stream goes on.
//
//   tsv:   word<TAB>TRUE|FALSE          (MLRegTest's format)
//          word<TAB>OUTPUT              (transducers: one output symbol per input symbol)
//          word<TAB>ERROR<TAB>message
//   jsonl: {"word":..., "accepted":..., "y":..., "output_margin":..., ...}
//          {"word":..., "output":..., "min_symbol_margin":..., ...}  (transducers)
//          {"word":..., "error": message}
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "model/forward.h"

namespace softhat::io {

enum class WordFormat { kTsv, kJsonl };
WordFormat parse_word_format(const std::string& name);

// One JSONL record: compact, invalid UTF-8 replaced rather than thrown on.
std::string json_line(const nlohmann::ordered_json& record);

// Checks that every symbol is in the alphabet; returns the error message
// ("symbol 'c' at 3 is not in the alphabet {a,b}", positions from 1) or nullopt.
std::optional<std::string> check_word(std::string_view word, std::string_view alphabet);

struct StreamSummary {
  std::size_t lines = 0;
  std::size_t errors = 0;
  std::size_t first_error_line = 0;
};

// Reads one line (without its '\n' and a '\r' before it) into `line`,
// keeping at most `max_length` bytes; `length` receives the line's full
// length. False at the end of the input with nothing read.
bool read_line(std::istream& in, std::string& line, std::size_t max_length, std::size_t& length);

// Classifies every line of `in` with `classify` and writes one record per
// line to `out`. Per-line errors (bad symbols, a line longer than
// max_length symbols, or classify throwing std::invalid_argument or
// std::runtime_error) become error records; a too-long line is echoed as its
// first 32 bytes and "...".
StreamSummary classify_stream(std::istream& in, std::ostream& out, std::string_view alphabet, WordFormat format,
                              bool emit_state, std::size_t max_length,
                              const std::function<model::RunResult(std::string_view)>& classify);

}  // namespace softhat::io
