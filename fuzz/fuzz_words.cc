// Fuzz target: the stdin word reader (classify's stream loop) over a
// compiled model. Every input line yields exactly one output line, in order (a first line naming the columns is a header and yields none);
// bad words become error records; nothing throws.
#include <cstdint>
#include <sstream>
#include <string>

#include "compile/compiler.h"
#include "fuzz/fuzz_check.h"
#include "io/word_stream.h"
#include "logic/parse.h"
#include "model/forward.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat;
  static const model::Engine engine(
      compile::compile_formula(logic::parse("(b & Y a) | O(b & Y a)", "ab"), "ab").model);
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::size_t lines = 0;
  for (std::size_t i = 0; i < input.size(); ++i) lines += input[i] == '\n';
  if (!input.empty() && input.back() != '\n') ++lines;
  for (const io::WordFormat format : {io::WordFormat::kTsv, io::WordFormat::kJsonl}) {
    std::istringstream in(input);
    std::ostringstream out;
    const io::StreamOptions options{.alphabet = "ab", .format = format, .emit_state = false, .max_length = 1000,
                                    .advice = {}, .header = {}, .progress = nullptr};
    const io::StreamSummary s = io::classify_stream(in, out, options, [&](std::string_view w) {
      return engine.run(w, {});
    });
    const std::string text = out.str();
    std::size_t out_lines = 0;
    for (char c : text) out_lines += c == '\n';
    FUZZ_CHECK(s.lines == lines, "lines counted " + std::to_string(s.lines) + ", input has " + std::to_string(lines));
    // A first line naming the columns is a header: skipped, no record.
    std::string_view first = std::string_view(input).substr(0, input.find('\n'));
    if (!first.empty() && first.back() == '\r') first.remove_suffix(1);  // read_line drops a CRLF's CR
    const bool header = io::is_header_line(first);
    FUZZ_CHECK(out_lines + header == lines, "output lines " + std::to_string(out_lines) + " != input lines " + std::to_string(lines));
    FUZZ_CHECK(s.errors <= s.lines, "more errors than lines");
  }
  return 0;
}
