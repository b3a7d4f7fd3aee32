#include "io/word_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <streambuf>
#include <vector>

#include "util/error.h"
#include "util/interrupt.h"
#include "util/parallel.h"
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
  // The alphabet's ASCII symbols as a bit mask: one test per byte instead of
  // a search of the alphabet (with decoding, 13% of a run of a 0-layer model).
  std::uint64_t ascii[2] = {0, 0};
  for (const char a : alphabet) {
    const auto b = static_cast<unsigned char>(a);
    if (b < 0x80) ascii[b >> 6] |= std::uint64_t{1} << (b & 63);
  }
  for (std::size_t pos = 0; pos < text.size();) {
    const char c = text[pos];
    if (const auto b = static_cast<unsigned char>(c); b < 0x80) {
      if (!((ascii[b >> 6] >> (b & 63)) & 1)) {
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

namespace {

// A batch of fewer symbols (with one per word for BOS) runs on one thread:
// starting threads costs about as much as running 10^4 symbols.
constexpr std::size_t kParallelSymbols = 8192;

// One line of a batch: the word as echoed, its label (a corpus line), its
// symbol codes, and its result or error. Kept across batches (their strings
// keep their capacity).
struct Record {
  std::string line, codes;
  std::optional<std::string> label, error;
  std::optional<model::RunResult> result;
};

// Writes r's record to out and counts it in summary; `number`: its line number.
void write_record(std::ostream& out, WordFormat format, bool emit_state, Record& r, std::size_t number,
                  StreamSummary& summary) {
  if (r.error) {
    if (!summary.errors++) summary.first_error_line = number;
    r.line = sym::escape_invalid(r.line);  // the record stays valid UTF-8
    if (format == WordFormat::kTsv) {
      out << r.line << "\tERROR\t" << *r.error << '\n';
    } else {
      nlohmann::ordered_json j;
      j["word"] = r.line;
      j["error"] = *r.error;
      out << json_line(j) << '\n';
    }
    return;
  }
  const model::RunResult& res = *r.result;
  if (r.label) {
    ++summary.labelled;
    const std::string verdict = res.output ? sym::encode(*res.output) : res.accepted ? "TRUE" : "FALSE";
    if (verdict != *r.label && !summary.label_differences++) summary.first_difference_line = number;
  }
  if (format == WordFormat::kTsv) {
    if (res.output) out << r.line << '\t' << sym::encode(*res.output) << '\n';
    else out << r.line << (res.accepted ? "\tTRUE\n" : "\tFALSE\n");
    return;
  }
  nlohmann::ordered_json j;
  j["word"] = r.line;
  if (res.output) {
    j["output"] = sym::encode(*res.output);
    j["min_symbol_margin"] = res.min_symbol_margin;  // null for the empty word
  } else {
    j["accepted"] = res.accepted;
    j["y"] = res.y;
    j["output_margin"] = res.output_margin;
  }
  j["beta"] = res.beta;
  if (res.margins) {
    j["min_target_mass"] = res.margins->min_target_mass;
    j["min_score_gap"] = res.margins->min_gap;  // null when every row is a tie
    j["min_scaled_gap"] = res.margins->min_scaled_gap;
  }
  if (emit_state) j["state"] = res.final_state;
  out << json_line(j) << '\n';
}

// Where thread t's run [cuts[t], cuts[t + 1]) of a batch's length order
// starts: about equal symbols each (a word's bytes and one for BOS), or
// {0, size} (one thread) for a batch of fewer than kParallelSymbols.
std::vector<std::size_t> thread_cuts(const std::vector<Record>& batch, const std::vector<std::size_t>& order,
                                     int threads) {
  const std::size_t used = order.size();
  std::size_t symbols = 0;
  for (const std::size_t k : order) symbols += batch[k].line.size() + 1;
  if (threads <= 1 || symbols < kParallelSymbols) return {0, used};
  std::vector<std::size_t> cuts{0};
  std::size_t reached = 0;
  for (std::size_t k = 0; k < used; ++k) {
    reached += batch[order[k]].line.size() + 1;
    if (reached * static_cast<std::size_t>(threads) >= symbols * cuts.size()) cuts.push_back(k + 1);
  }
  cuts.resize(static_cast<std::size_t>(threads) + 1, used);
  return cuts;
}

}  // namespace

StreamSummary classify_stream(std::istream& in, std::ostream& out, const StreamOptions& options,
                              const std::function<model::RunResult(std::string_view)>& classify) {
  StreamOptions one = options;
  one.threads = 1;
  return classify_stream(in, out, one, [&](int, std::string_view w) { return classify(w); });
}

StreamSummary classify_stream(std::istream& in, std::ostream& out, const StreamOptions& options,
                              const std::function<model::RunResult(int thread, std::string_view)>& classify) {
  // (Named references, not a structured binding: clang 14 lambdas cannot capture those.)
  const std::string_view alphabet = options.alphabet;
  const WordFormat format = options.format;
  const bool emit_state = options.emit_state;
  const std::size_t max_length = options.max_length;
  auto advice = [&options](Limit limit) { return options.advice ? options.advice(limit) : std::string(); };
  StreamSummary summary;
  std::string line;
  std::size_t length = 0;
  if (format == WordFormat::kTsv && !options.header.empty()) out << options.header << '\n';

  // Reads one line into r: its word, label and codes, or the error that
  // keeps it from being classified.
  auto parse = [&](Record& r) {
    r.label.reset();
    r.error.reset();
    r.result.reset();
    r.codes.clear();
    // A corpus line read back: word<TAB>label (generate's TSV); the word is
    // the first column, the label is compared with the verdict.
    if (length <= max_length) {
      if (const std::size_t tab = line.find('\t'); tab != std::string::npos) {
        r.label = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
        line.resize(tab);
      }
    }
    if (length > max_length) {
      r.error = fmt::format("the word has {} symbols, more than the limit of {}{}", length, max_length,
                            advice(Limit::kLength));
      r.line = std::string(sym::utf8_prefix(line, 32)) + "...";
    } else {
      r.line.swap(line);  // decoded with the batch's words, on their threads
    }
  };
  // Decodes r's word and classifies it, or records why it cannot be.
  auto evaluate = [&](Record& r, int thread) {
    r.error = decode_word(r.line, alphabet, r.codes);
    if (r.error) return;
    try {
      r.result = classify(thread, r.codes);
      r.result->head_margins = {};  // no record shows them: a batch does not keep them
    } catch (const Interrupted&) {
      throw;  // a signal, not this word's error
    } catch (const LimitError& e) {
      r.error = e.what() + advice(e.limit());
    } catch (const std::invalid_argument& e) {
      r.error = e.what();
    } catch (const std::runtime_error& e) {
      r.error = e.what();
    }
  };
  auto write = [&](Record& r, std::size_t number) { write_record(out, format, emit_state, r, number, summary); };

  // Batches of the lines already at hand (model::length_order): a batch
  // ends after kBatchWords lines (256 when each record keeps a final state),
  // about kBatchBytes bytes, or when the next line would have to be waited
  // for, so a terminal or a slow pipe gets each answer as soon as its line is
  // complete. The words run in order of length and the records are written
  // in the order of the lines.
  const std::size_t batch_words = emit_state ? 256 : model::kBatchWords;
  std::vector<Record> batch;
  std::vector<std::size_t> numbers;  // each record's line number
  for (bool more = true; more;) {
    std::size_t used = 0, bytes = 0;
    numbers.clear();
    for (bool first = true; used < batch_words && bytes < model::kBatchBytes &&
                            (first || in.rdbuf()->in_avail() > 0);
         first = false) {
      if (!read_line(in, line, max_length, length)) {
        more = false;
        break;
      }
      throw_if_interrupted();
      ++summary.lines;
      if (options.progress) options.progress->advance();
      if (summary.lines == 1 && is_header_line(line)) continue;
      if (batch.size() <= used) batch.emplace_back();
      bytes += line.size();
      parse(batch[used]);
      numbers.push_back(summary.lines);
      ++used;
    }
    // In order of bytes (symbols, but for UTF-8 ones): any order gives the
    // same records, and the words are not decoded yet.
    const std::vector<std::size_t> order =
        model::length_order(0, used, [&](std::size_t k) { return batch[k].error ? 0 : batch[k].line.size(); });
    // Thread t runs [cuts[t], cuts[t + 1]) of the length order. A word's
    // result depends on the word alone: the split changes no record.
    const int threads = std::max(1, options.threads);
    const std::vector<std::size_t> cuts = thread_cuts(batch, order, threads);
    auto run_block = [&](int t) {
      for (std::size_t k = cuts[static_cast<std::size_t>(t)]; k < cuts[static_cast<std::size_t>(t) + 1]; ++k) {
        Record& r = batch[order[k]];
        if (!r.error) {
          throw_if_interrupted();
          evaluate(r, t);
        }
      }
    };
    try {
      if (cuts.size() == 2) {
        run_block(0);
      } else {
        parallel_blocks(0, static_cast<std::uint64_t>(threads), threads,
                        [&](int t, std::uint64_t, std::uint64_t) { run_block(t); });
      }
    } catch (const Interrupted&) {
      throw;  // nothing more is written (docs/errors.md)
    } catch (...) {
      // A failure that is no word's error: the lines before the first word
      // not yet classified still get their records, as unbatched.
      for (std::size_t k = 0; k < used && (batch[k].error || batch[k].result); ++k) write(batch[k], numbers[k]);
      throw;
    }
    for (std::size_t k = 0; k < used; ++k) write(batch[k], numbers[k]);
  }
  return summary;
}

}  // namespace softhat::io
