#include "io/word_stream.h"

#include <fmt/format.h>

#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "util/error.h"
#include "util/interrupt.h"
#include "util/symbols.h"

namespace softhat::io {

WordFormat parse_word_format(const std::string& name) {
  if (name == "tsv") return WordFormat::kTsv;
  if (name == "jsonl") return WordFormat::kJsonl;
  throw InputError(fmt::format("unknown format '{}' (known: tsv, jsonl)", name));
}

std::optional<std::string> decode_word(std::string_view text, std::string_view alphabet, std::string& codes) {
  codes.clear();
  codes.reserve(text.size());
  auto outside = [&](const std::string& shown) {
    return fmt::format("symbol {} at {} is not in the alphabet {}", shown, codes.size() + 1,
                       sym::alphabet_set(alphabet));
  };
  for (std::size_t pos = 0; pos < text.size();) {
    const char c = text[pos];
    if (static_cast<unsigned char>(c) < 0x80) {
      if (alphabet.find(c) == std::string_view::npos) {
        return outside(c > ' ' && c < 0x7f ? fmt::format("'{}'", c)
                                           : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c)));
      }
      codes += c;
      ++pos;
      continue;
    }
    const auto d = sym::decode_one(text, pos);
    if (!d) {
      return fmt::format("invalid UTF-8 at byte {} (0x{:02x})", pos + 1, static_cast<unsigned char>(c));
    }
    const std::optional<char> code = sym::find(d->code_point);
    if (!code || alphabet.find(*code) == std::string_view::npos) {
      const std::string name = sym::code_point_name(d->code_point);
      return outside(sym::not_a_symbol(d->code_point) ? name
                                                      : fmt::format("'{}' ({})", sym::utf8(d->code_point), name));
    }
    codes += *code;
    pos += d->length;
  }
  return std::nullopt;
}

std::string json_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool read_line(std::istream& in, std::string& line, std::size_t max_length, std::size_t& length) {
  // By hand rather than std::getline: a line without an end (a 10 GB stream
  // with no newline) must not be held in memory whole. Lengths count
  // symbols: a UTF-8 sequence is one (its continuation bytes are kept with
  // it), and so is every byte that is not part of one.
  line.clear();
  length = 0;
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  bool cr = false;          // a '\r' seen last and not yet stored
  int continuations = 0;    // continuation bytes the last lead byte announced
  auto put = [&](unsigned char b) {
    if ((b & 0xC0) == 0x80 && continuations > 0) {
      --continuations;  // part of the symbol before
    } else {
      ++length;
      continuations = b >= 0xC2 && b <= 0xF4 ? (b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1) : 0;
    }
    if (length <= max_length) line.push_back(static_cast<char>(b));
  };
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      break;
    }
    any = true;
    if (c == '\n') break;
    if (cr) put('\r');
    cr = c == '\r';
    if (cr) continue;
    put(static_cast<unsigned char>(c));
  }
  return any;
}

bool is_header_line(std::string_view line) {
  return line == "word\tlabel" || line == "word\taccepted" || line == "word\toutput";
}

StreamSummary classify_stream(std::istream& in, std::ostream& out, const StreamOptions& options,
                              const std::function<model::RunResult(std::string_view)>& classify) {
  // (Named references, not a structured binding: clang 14 lambdas cannot capture those.)
  const std::string_view alphabet = options.alphabet;
  const WordFormat format = options.format;
  const bool emit_state = options.emit_state;
  const std::size_t max_length = options.max_length;
  auto advice = [&options](Limit limit) { return options.advice ? options.advice(limit) : std::string(); };
  StreamSummary summary;
  std::string line, codes;
  std::size_t length = 0;
  if (format == WordFormat::kTsv && !options.header.empty()) out << options.header << '\n';
  while (read_line(in, line, max_length, length)) {
    throw_if_interrupted();
    ++summary.lines;
    if (options.progress) options.progress->advance();
    if (summary.lines == 1 && is_header_line(line)) continue;
    std::optional<std::string> error;
    // A corpus line read back: word<TAB>label (generate's TSV); the word is
    // the first column, the label is compared with the verdict.
    std::optional<std::string> label;
    if (length <= max_length) {
      if (const std::size_t tab = line.find('\t'); tab != std::string::npos) {
        label = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
        line.resize(tab);
      }
    }
    if (length > max_length) {
      error = fmt::format("the word has {} symbols, more than the limit of {}{}", length, max_length,
                          advice(Limit::kLength));
      line = std::string(sym::utf8_prefix(line, 32)) + "...";
    } else {
      error = decode_word(line, alphabet, codes);
    }
    std::optional<model::RunResult> result;
    if (!error) {
      try {
        result = classify(codes);
      } catch (const Interrupted&) {
        throw;  // a signal, not this word's error
      } catch (const LimitError& e) {
        error = e.what() + advice(e.limit());
      } catch (const std::invalid_argument& e) {
        error = e.what();
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
    }
    if (error) {
      if (!summary.errors++) summary.first_error_line = summary.lines;
      line = sym::escape_invalid(line);  // the record stays valid UTF-8
      if (format == WordFormat::kTsv) {
        out << line << "\tERROR\t" << *error << '\n';
      } else {
        nlohmann::ordered_json j;
        j["word"] = line;
        j["error"] = *error;
        out << json_line(j) << '\n';
      }
      continue;
    }
    const model::RunResult& r = *result;
    if (label) {
      ++summary.labelled;
      const std::string verdict = r.output ? sym::encode(*r.output) : r.accepted ? "TRUE" : "FALSE";
      if (verdict != *label && !summary.label_differences++) summary.first_difference_line = summary.lines;
    }
    if (format == WordFormat::kTsv) {
      if (r.output) out << line << '\t' << sym::encode(*r.output) << '\n';
      else out << line << (r.accepted ? "\tTRUE\n" : "\tFALSE\n");
      continue;
    }
    nlohmann::ordered_json j;
    j["word"] = line;
    if (r.output) {
      j["output"] = sym::encode(*r.output);
      j["min_symbol_margin"] = r.min_symbol_margin;  // null for the empty word
    } else {
      j["accepted"] = r.accepted;
      j["y"] = r.y;
      j["output_margin"] = r.output_margin;
    }
    j["beta"] = r.beta;
    if (r.margins) {
      j["min_target_mass"] = r.margins->min_target_mass;
      j["min_score_gap"] = r.margins->min_gap;  // null when every row is a tie
      j["min_scaled_gap"] = r.margins->min_scaled_gap;
    }
    if (emit_state) j["state"] = r.final_state;
    out << json_line(j) << '\n';
  }
  return summary;
}

}  // namespace softhat::io
