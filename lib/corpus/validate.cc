#include "corpus/validate.h"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "corpus/generate.h"
#include "io/hash.h"
#include "io/json_number.h"
#include "io/word_stream.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/lines.h"
#include "util/symbols.h"
#include "words/words.h"

namespace softhat::corpus {

std::vector<CorpusLine> read_split_lines(std::string_view contents, io::WordFormat format, const std::string& file) {
  std::vector<CorpusLine> out;
  const std::vector<std::string_view> lines = text_lines(contents);
  for (std::size_t line = 1; line <= lines.size(); ++line) {
    const std::string_view text = lines[line - 1];
    if (line == 1 && format == io::WordFormat::kTsv && io::is_header_line(text)) continue;  // classify --header
    CorpusLine l;
    l.line = line;
    if (format == io::WordFormat::kTsv) {
      const std::size_t tab = text.find('\t');
      if (tab == std::string_view::npos || text.find('\t', tab + 1) != std::string_view::npos) {
        throw InputError(fmt::format("{}:{}: expected word<TAB>label", file, line));
      }
      l.word = std::string(text.substr(0, tab));
      l.label = std::string(text.substr(tab + 1));
    } else {
      try {
        const nlohmann::json j = nlohmann::json::parse(text);
        l.word = j.at("word").get<std::string>();
        // "accepted"/"output" (and the older "label"/"target").
        if (j.contains("output")) l.label = j.at("output").get<std::string>();
        else if (j.contains("target")) l.label = j.at("target").get<std::string>();
        else if (j.contains("accepted")) l.label = j.at("accepted").get<bool>() ? "TRUE" : "FALSE";
        else l.label = j.at("label").get<bool>() ? "TRUE" : "FALSE";
      } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("{}:{}: not a corpus record: {}", file, line, e.what()));
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::map<std::size_t, std::pair<std::size_t, std::size_t>> count_by_length(const std::vector<CorpusLine>& lines) {
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> counts;
  for (const CorpusLine& l : lines) {
    auto& c = counts[sym::count_code_points(l.word)];
    (l.label == "FALSE" ? c.second : c.first) += 1;
  }
  return counts;
}

namespace {

struct Seen {
  std::string file;
  std::size_t line;
};

// The checks of one split, in the order validate_corpus documents.
class SplitCheck {
 public:
  SplitCheck(const nlohmann::json& manifest, const nlohmann::json& split, const Oracle& oracle,
             std::unordered_map<std::string, Seen>& seen)
      : manifest_(manifest), split_(split), oracle_(oracle), seen_(seen), file_(split.at("file").get<std::string>()) {}

  std::optional<Problem> run(const std::string& contents) {
    const std::vector<std::size_t> lengths = words::parse_length_list(split_.at("lengths").get<std::string>());
    const std::set<std::size_t> allowed(lengths.begin(), lengths.end());
    const io::WordFormat format = manifest_.at("format") == "jsonl" ? io::WordFormat::kJsonl : io::WordFormat::kTsv;
    std::vector<CorpusLine> lines;
    try {
      lines = read_split_lines(contents, format, file_);
    } catch (const InputError& e) {
      return fail(0, e.what());
    }
    for (CorpusLine& l : lines) {
      if ((l.line & 1023) == 0) throw_if_interrupted();
      std::string codes;
      if (auto error = io::decode_word(l.word, oracle_.alphabet, codes)) return fail(l.line, *error);
      if (!allowed.count(codes.size())) {
        return fail(l.line, fmt::format("'{}' has length {}, outside the split's lengths {}", l.word, codes.size(),
                                        split_.at("lengths").get<std::string>()));
      }
      const std::string expected = oracle_.expected(codes);
      if (l.label != expected) {
        return fail(l.line, fmt::format("'{}' is labelled {}, the language's oracle says {}", l.word, l.label, expected));
      }
      const auto [it, fresh] = seen_.try_emplace(codes, Seen{file_, l.line});
      if (!fresh) {
        return fail(l.line, fmt::format("'{}' is also at {}:{}", l.word, it->second.file, it->second.line));
      }
      words_.push_back({std::move(codes), l.label == "TRUE", l.line});
    }
    if (auto p = check_counts(count_by_length(lines))) return p;
    if (split_.value("negatives", "") == "border") {
      if (auto p = check_pairing()) return p;
    }
    // Last, so that a changed line is named by what is wrong with it.
    const std::string hash = io::sha256_hex(contents);
    if (hash != split_.at("sha256").get<std::string>()) {
      return fail(0, fmt::format("SHA-256 {} differs from the manifest's {}", hash,
                                 split_.at("sha256").get<std::string>()));
    }
    return std::nullopt;
  }

 private:
  struct Word {
    std::string codes;
    bool positive;
    std::size_t line;
  };

  std::optional<Problem> fail(std::size_t line, std::string what) const { return Problem{file_, line, std::move(what)}; }

  bool shortage_at(std::size_t n) const {
    for (const auto& s : manifest_.at("shortages")) {
      if (s.at("split") == split_.at("name") && s.at("length") == n) return true;
    }
    return false;
  }

  std::optional<Problem> check_counts(const std::map<std::size_t, std::pair<std::size_t, std::size_t>>& counts) const {
    const bool task = split_.value("negatives", "") == "task";
    const nlohmann::json& recorded = split_.at("counts");
    for (const auto& [n, c] : counts) {
      const std::string key = std::to_string(n);
      const nlohmann::json want = task ? nlohmann::json{{"words", c.first}}
                                       : nlohmann::json{{"positive", c.first}, {"negative", c.second}};
      if (!recorded.contains(key) || recorded.at(key) != want) {
        return fail(0, fmt::format("length {}: the file has {} but the manifest says {}", n, want.dump(),
                                   recorded.contains(key) ? recorded.at(key).dump() : "none"));
      }
    }
    if (recorded.size() != counts.size()) return fail(0, "the manifest counts lengths the file does not have");
    if (task || !manifest_.at("balance").get<bool>()) return std::nullopt;
    for (const auto& [key, wanted] : split_.at("wanted_per_length").items()) {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), n);
      if (ec != std::errc() || end != key.data() + key.size()) {
        return fail(0, fmt::format("wanted_per_length has the key '{}', not a length", key));
      }
      const std::size_t want = io::json_unsigned(wanted, "the words wanted");
      const auto it = counts.find(n);
      const std::size_t pos = it == counts.end() ? 0 : it->second.first;
      const std::size_t neg = it == counts.end() ? 0 : it->second.second;
      if ((pos != (want + 1) / 2 || neg != want / 2) && !shortage_at(n)) {
        return fail(0, fmt::format("length {}: {} positives and {} negatives, not {} and {} (no shortage recorded)", n,
                                   pos, neg, (want + 1) / 2, want / 2));
      }
    }
    return std::nullopt;
  }

  std::optional<Problem> check_pairing() const {
    std::unordered_set<std::string> positives;
    for (const Word& w : words_) {
      if (w.positive) positives.insert(w.codes);
    }
    for (const Word& w : words_) {
      if (w.positive) continue;
      throw_if_interrupted();
      bool paired = false;
      for (const std::string& c : edit_neighbours(w.codes, oracle_.alphabet)) paired = paired || positives.count(c);
      if (!paired) {
        return fail(w.line, fmt::format("the negative '{}' has no positive of the split at edit distance 1",
                                        sym::encode(w.codes)));
      }
    }
    return std::nullopt;
  }

  const nlohmann::json& manifest_;
  const nlohmann::json& split_;
  const Oracle& oracle_;
  std::unordered_map<std::string, Seen>& seen_;
  std::string file_;
  std::vector<Word> words_;
};

}  // namespace

std::optional<Problem> validate_corpus(const nlohmann::json& manifest,
                                       const std::function<std::optional<std::string>(const std::string&)>& read,
                                       const Oracle& oracle) {
  std::unordered_map<std::string, Seen> seen;
  try {
    for (const nlohmann::json& split : manifest.at("splits")) {
      const std::string file = split.at("file").get<std::string>();
      const std::optional<std::string> contents = read(file);
      if (!contents) return Problem{file, 0, "missing"};
      if (auto p = SplitCheck(manifest, split, oracle, seen).run(*contents)) return p;
    }
  } catch (const nlohmann::json::exception& e) {
    return Problem{"manifest.json", 0, fmt::format("not a softhat corpus manifest: {}", e.what())};
  }
  return std::nullopt;
}

}  // namespace softhat::corpus
