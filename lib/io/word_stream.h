// Streaming classification of words read one per line (architecture.md,
// command-line contract): '\r' before the newline is dropped, an empty line
// is the empty word, output keeps the input's order one line per line, and a
// bad word (a symbol outside the alphabet, bytes that are not UTF-8) yields
// an error record on its own line while the stream goes on. Lines are UTF-8,
// one code point per symbol (util/symbols.h); the word echoed in an error
// record has its invalid bytes written as \xNN, so every record is UTF-8.
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
#include "util/error.h"
#include "util/progress.h"

namespace softhat::io {

enum class WordFormat { kTsv, kJsonl };
WordFormat parse_word_format(const std::string& name);

// One JSONL record: compact, invalid UTF-8 replaced rather than thrown on.
std::string json_line(const nlohmann::ordered_json& record);

// Decodes a UTF-8 word into symbol codes (`codes`) and checks that every
// symbol is in the alphabet (codes); returns the error message or nullopt.
// Positions count from 1: "symbol 'c' at 3 is not in the alphabet {a,b}"
// (the 3rd symbol), "symbol 'ǖ' (U+01D6) at 2 is not in the alphabet
// {a,á,b}", "symbol byte 0x00 at 2 ...", "invalid UTF-8 at byte 5 (0xff)"
// (the 5th byte).
std::optional<std::string> decode_word(std::string_view text, std::string_view alphabet, std::string& codes);

struct StreamSummary {
  std::size_t lines = 0;
  std::size_t errors = 0;
  std::size_t first_error_line = 0;
  // Lines read back from a corpus (word<TAB>label): how many, how many
  // labels differ from the verdict, the first such line.
  std::size_t labelled = 0;
  std::size_t label_differences = 0;
  std::size_t first_difference_line = 0;
};

// Reads one line (without its '\n' and a '\r' before it) into `line`,
// keeping the bytes of at most `max_length` symbols; `length` receives the
// line's full length in symbols (UTF-8 sequences, and each byte outside
// one). False at the end of the input with nothing read.
bool read_line(std::istream& in, std::string& line, std::size_t max_length, std::size_t& length);

// How classify_stream reads and writes. `advice` turns a per-line limit
// (a line over max_length symbols: Limit::kLength; a word over the engine's
// memory limit: Limit::kMemory) into the caller's advice appended to the
// error record, e.g. "; raise --max-length" (library code never names flags).
struct StreamOptions {
  std::string_view alphabet;
  WordFormat format = WordFormat::kTsv;
  bool emit_state = false;
  std::size_t max_length = 0;
  std::function<std::string(Limit)> advice;
  // --header: TSV output starts with this line ("word\taccepted" or
  // "word\toutput"); empty: none.
  std::string header;
  util::Progress* progress = nullptr;  // told of every line
  // The words of a batch run on this many threads, in contiguous runs of
  // the batch's length order with about equal symbols each; thread t calls
  // classify(t, word). The records are written in the order of the lines,
  // so the output is the same for any count.
  int threads = 1;
};

// A first line that names columns (word<TAB>label, accepted or output) is a
// header, not a word: every TSV reader skips it.
bool is_header_line(std::string_view line);

// Classifies every line of `in` with `classify` (which receives the word's
// symbol codes) and writes one record per line to `out` (a header line
// read first is skipped, and written first if options.header says so). A line
// word<TAB>label (a corpus read back) is classified by its first column; its
// label is compared with the verdict (StreamSummary). Per-line errors (bad
// symbols, a line longer than max_length symbols, or classify throwing
// std::invalid_argument or std::runtime_error) become error records; a
// too-long line is echoed as its first 32 bytes and "...".
StreamSummary classify_stream(std::istream& in, std::ostream& out, const StreamOptions& options,
                              const std::function<model::RunResult(int thread, std::string_view)>& classify);
// The same on one thread (options.threads is ignored).
StreamSummary classify_stream(std::istream& in, std::ostream& out, const StreamOptions& options,
                              const std::function<model::RunResult(std::string_view)>& classify);

}  // namespace softhat::io
