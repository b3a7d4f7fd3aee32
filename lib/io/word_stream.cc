#include "io/word_stream.h"

#include <fmt/format.h>

#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "logic/parse.h"
#include "util/error.h"
#include "util/interrupt.h"

namespace softhat::io {

WordFormat parse_word_format(const std::string& name) {
  if (name == "tsv") return WordFormat::kTsv;
  if (name == "jsonl") return WordFormat::kJsonl;
  throw InputError(fmt::format("unknown format '{}' (known: tsv, jsonl)", name));
}

std::optional<std::string> check_word(std::string_view word, std::string_view alphabet) {
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if (alphabet.find(c) != std::string_view::npos) continue;
    const std::string shown = c > ' ' && c < 0x7f ? fmt::format("'{}'", c)
                                                  : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
    return fmt::format("symbol {} at {} is not in the alphabet {}", shown, i + 1, logic::alphabet_set(alphabet));
  }
  return std::nullopt;
}

std::string json_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool read_line(std::istream& in, std::string& line, std::size_t max_length, std::size_t& length) {
  // By hand rather than std::getline: a line without an end (a 10 GB stream
  // with no newline) must not be held in memory whole.
  line.clear();
  length = 0;
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  bool cr = false;  // a '\r' seen last and not yet stored
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      break;
    }
    any = true;
    if (c == '\n') break;
    if (cr) {
      if (line.size() < max_length) line.push_back('\r');
      ++length;
    }
    cr = c == '\r';
    if (cr) continue;
    if (line.size() < max_length) line.push_back(static_cast<char>(c));
    ++length;
  }
  return any;
}

StreamSummary classify_stream(std::istream& in, std::ostream& out, std::string_view alphabet, WordFormat format,
                              bool emit_state, std::size_t max_length,
                              const std::function<model::RunResult(std::string_view)>& classify) {
  StreamSummary summary;
  std::string line;
  std::size_t length = 0;
  while (read_line(in, line, max_length, length)) {
    throw_if_interrupted();
    ++summary.lines;
    std::optional<std::string> error;
    if (length > max_length) {
      error = fmt::format("the word has {} symbols, more than --max-length {}", length, max_length);
      line = line.substr(0, 32) + "...";
    } else {
      error = check_word(line, alphabet);
    }
    std::optional<model::RunResult> result;
    if (!error) {
      try {
        result = classify(line);
      } catch (const std::invalid_argument& e) {
        error = e.what();
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
    }
    if (error) {
      if (!summary.errors++) summary.first_error_line = summary.lines;
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
    if (format == WordFormat::kTsv) {
      if (r.output) out << line << '\t' << *r.output << '\n';
      else out << line << (r.accepted ? "\tTRUE\n" : "\tFALSE\n");
      continue;
    }
    nlohmann::ordered_json j;
    j["word"] = line;
    if (r.output) {
      j["output"] = *r.output;
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
