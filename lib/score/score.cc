#include "score/score.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "corpus/validate.h"
#include "io/file_util.h"
#include "io/word_stream.h"
#include "plot/svg.h"
#include "util/error.h"
#include "util/lines.h"
#include "util/symbols.h"

namespace softhat::score {

namespace fs = std::filesystem;

std::string split_name(const std::string& file) {
  std::string name = fs::path(file).stem().string();
  if (const std::size_t u = name.rfind('_'); u != std::string::npos && u + 1 < name.size()) name = name.substr(u + 1);
  return name;
}

namespace {

io::WordFormat format_of(const std::string& file) {
  return fs::path(file).extension() == ".jsonl" ? io::WordFormat::kJsonl : io::WordFormat::kTsv;
}

void add_split(ScoreCorpus& c, const std::string& name, const std::string& path, const std::string& shown) {
  if (std::find(c.splits.begin(), c.splits.end(), name) != c.splits.end()) {
    throw InputError(fmt::format("{}: the split '{}' is given twice", shown, name));
  }
  c.splits.push_back(name);
  for (corpus::CorpusLine& l : corpus::read_split_lines(io::read_file(path), format_of(path), shown)) {
    c.items.push_back({c.splits.size() - 1, std::move(l.word), std::move(l.label), shown, l.line});
  }
}

}  // namespace

ScoreCorpus read_corpus(const std::vector<std::string>& paths) {
  ScoreCorpus c;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      add_split(c, split_name(p), p, p);
      continue;
    }
    nlohmann::json manifest;
    try {
      manifest = nlohmann::json::parse(io::read_file((fs::path(p) / "manifest.json").string()));
      for (const auto& split : manifest.at("splits")) {
        const std::string file = split.at("file").get<std::string>();
        add_split(c, split.at("name").get<std::string>(), (fs::path(p) / file).string(), (fs::path(p) / file).string());
      }
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("{}: not a softhat corpus folder (manifest.json: {})", p, e.what()));
    }
  }
  return c;
}

namespace {

struct Prediction {
  std::string word, label;
  std::size_t line;
};

std::vector<Prediction> read_predictions(std::string_view text, const std::string& file) {
  std::vector<Prediction> out;
  const std::vector<std::string_view> lines = text_lines(text);
  for (std::size_t line = 1; line <= lines.size(); ++line) {
    const std::string_view l = lines[line - 1];
    if (line == 1 && io::is_header_line(l)) continue;  // run --header
    if (!l.empty() && l.front() == '{') {
      try {
        const nlohmann::json j = nlohmann::json::parse(l);
        Prediction p{j.at("word").get<std::string>(), "", line};
        if (j.contains("accepted")) p.label = j.at("accepted").get<bool>() ? "TRUE" : "FALSE";
        else if (j.contains("label")) p.label = j.at("label").get<bool>() ? "TRUE" : "FALSE";
        else if (j.contains("output")) p.label = j.at("output").get<std::string>();
        else if (j.contains("target")) p.label = j.at("target").get<std::string>();
        else if (j.contains("error")) p.label = "ERROR";
        else throw InputError(fmt::format("{}:{}: a record with \"word\" and \"accepted\" or \"label\"", file, line));
        out.push_back(std::move(p));
      } catch (const nlohmann::json::exception& e) {
        throw InputError(fmt::format("{}:{}: not a prediction record: {}", file, line, e.what()));
      }
      continue;
    }
    const std::size_t tab = l.find('\t');
    if (tab == std::string_view::npos) throw InputError(fmt::format("{}:{}: expected word<TAB>TRUE|FALSE", file, line));
    const std::size_t tab2 = l.find('\t', tab + 1);
    out.push_back({std::string(l.substr(0, tab)),
                   std::string(l.substr(tab + 1, tab2 == std::string_view::npos ? std::string_view::npos : tab2 - tab - 1)),
                   line});
  }
  return out;
}

}  // namespace

std::vector<std::string> match_predictions(const ScoreCorpus& corpus, std::string_view text, const std::string& file) {
  const std::vector<Prediction> preds = read_predictions(text, file);
  std::vector<std::string> out;
  // In corpus order: every word where the corpus has it.
  bool in_order = preds.size() == corpus.items.size();
  for (std::size_t i = 0; in_order && i < preds.size(); ++i) in_order = preds[i].word == corpus.items[i].word;
  if (in_order) {
    for (const Prediction& p : preds) out.push_back(p.label);
    return out;
  }
  // Keyed by word (a corpus's words are distinct; a repeated corpus word
  // cannot be keyed).
  std::unordered_map<std::string, const Prediction*> by_word;
  std::unordered_map<std::string, const Item*> in_corpus;
  for (const Item& it : corpus.items) {
    if (!in_corpus.emplace(it.word, &it).second) {
      throw InputError(fmt::format("{}:{}: '{}' is in the corpus twice, so predictions keyed by word cannot say "
                                   "which; give them in corpus order",
                                   it.file, it.line, it.word));
    }
  }
  for (const Prediction& p : preds) {
    if (!in_corpus.count(p.word)) {
      throw InputError(fmt::format("{}:{}: '{}' is not a word of the corpus (predictions are matched in corpus order "
                                   "or by word)",
                                   file, p.line, p.word));
    }
    const auto [it, fresh] = by_word.emplace(p.word, &p);
    if (!fresh) throw InputError(fmt::format("{}:{}: a second prediction for '{}' (first at line {})", file, p.line, p.word, it->second->line));
  }
  for (const Item& it : corpus.items) {
    const auto p = by_word.find(it.word);
    if (p == by_word.end()) {
      throw InputError(fmt::format("{}: no prediction for '{}' ({}:{})", file, it.word, it.file, it.line));
    }
    out.push_back(p->second->label);
  }
  return out;
}

ScoreReport score(const ScoreCorpus& corpus, const std::vector<std::string>& predicted) {
  ScoreReport r;
  for (const std::string& name : corpus.splits) r.splits.push_back({name, {}, {}, 0});
  for (std::size_t i = 0; i < corpus.items.size(); ++i) {
    const Item& it = corpus.items[i];
    const bool right = predicted.at(i) == it.label;
    for (Cell* c : {&r.overall, &r.splits[it.split].total, &r.splits[it.split].lengths[sym::count_code_points(it.word)]}) {
      ++c->words;
      c->correct += right;
    }
  }
  std::size_t cells = 0;
  for (SplitScore& s : r.splits) {
    for (const auto& [n, c] : s.lengths) {
      s.macro += c.accuracy();
      r.macro += c.accuracy();
    }
    if (!s.lengths.empty()) s.macro /= static_cast<double>(s.lengths.size());
    cells += s.lengths.size();
  }
  if (cells) r.macro /= static_cast<double>(cells);
  return r;
}

std::string format_score(const ScoreReport& r) {
  std::string out = fmt::format("{:<12} {:>7} {:>9} {:>9} {:>9}\n", "split", "length", "words", "correct", "accuracy");
  auto row = [&](const std::string& split, const std::string& length, const Cell& c) {
    out += fmt::format("{:<12} {:>7} {:>9} {:>9} {:>8.2f}%\n", split, length, c.words, c.correct, 100 * c.accuracy());
  };
  for (const SplitScore& s : r.splits) {
    for (const auto& [n, c] : s.lengths) row(s.name, fmt::format("{}", n), c);
    row(s.name, "all", s.total);
    out += fmt::format("{:<12} {:>7} {:>9} {:>9} {:>8.2f}%\n", s.name, "macro", "", "", 100 * s.macro);
  }
  out += fmt::format("overall: {} of {} words correct, accuracy {:.2f}%, macro-average over lengths {:.2f}%\n",
                     r.overall.correct, r.overall.words, 100 * r.overall.accuracy(), 100 * r.macro);
  return out;
}

nlohmann::ordered_json score_json(const ScoreReport& r) {
  auto cell = [](const Cell& c) {
    return nlohmann::ordered_json{{"words", c.words}, {"correct", c.correct}, {"accuracy", c.accuracy()}};
  };
  nlohmann::ordered_json j;
  j["overall"] = cell(r.overall);
  j["macro_accuracy"] = r.macro;
  j["splits"] = nlohmann::ordered_json::object();
  for (const SplitScore& s : r.splits) {
    nlohmann::ordered_json split = cell(s.total);
    split["macro_accuracy"] = s.macro;
    split["lengths"] = nlohmann::ordered_json::object();
    for (const auto& [n, c] : s.lengths) split["lengths"][std::to_string(n)] = cell(c);
    j["splits"][s.name] = std::move(split);
  }
  return j;
}

std::string score_svg(const ScoreReport& r, const std::string& title) {
  const double W = 640, H = 400, left = 60, right = 150, top = 40, bottom = 50;
  std::size_t lo = SIZE_MAX, hi = 0;
  for (const SplitScore& s : r.splits) {
    for (const auto& [n, c] : s.lengths) {
      lo = std::min(lo, n);
      hi = std::max(hi, n);
    }
  }
  plot::Svg svg(W, H);
  svg.rect(0, 0, W, H, "white");
  svg.text(W / 2, 22, title, 14, "middle", 0, "#222", true);
  if (lo > hi) return svg.str();
  const double span = hi > lo ? static_cast<double>(hi - lo) : 1.0;
  auto x = [&](double n) { return left + (n - static_cast<double>(lo)) / span * (W - left - right); };
  auto y = [&](double a) { return top + (1 - a) * (H - top - bottom); };
  for (int k = 0; k <= 4; ++k) {  // accuracy grid: 0, 25, 50, 75, 100%
    const double a = k / 4.0;
    svg.line(left, y(a), W - right, y(a), "#ddd");
    svg.text(left - 6, y(a) + 4, fmt::format("{}%", k * 25), 10, "end");
  }
  svg.line(left, y(0), W - right, y(0), "#222");
  svg.line(left, y(0), left, y(1), "#222");
  svg.text(left, H - bottom + 16, fmt::format("{}", lo), 10, "middle");
  svg.text(W - right, H - bottom + 16, fmt::format("{}", hi), 10, "middle");
  svg.text((left + W - right) / 2, H - 12, "length", 11, "middle");
  svg.text(16, (top + H - bottom) / 2, "accuracy", 11, "middle", -90);
  const std::vector<std::string> colours = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                            "#e377c2", "#17becf"};
  for (std::size_t i = 0; i < r.splits.size(); ++i) {
    const SplitScore& s = r.splits[i];
    if (s.lengths.empty()) continue;
    const std::string& colour = colours[i % colours.size()];
    std::vector<std::pair<double, double>> pts;
    for (const auto& [n, c] : s.lengths) {
      pts.emplace_back(x(static_cast<double>(n)), y(c.accuracy()));
      svg.circle(pts.back().first, pts.back().second, 2.5, colour);
    }
    svg.polyline(pts, colour);
    // The split boundary: a dashed line at its first length, named.
    const double bx = x(static_cast<double>(s.lengths.begin()->first));
    svg.line(bx, y(0), bx, y(1), colour, 1, true);
    svg.text(W - right + 10, top + 16 * static_cast<double>(i), fmt::format("{} ({:.1f}%)", s.name, 100 * s.total.accuracy()),
             11, "start", 0, colour);
  }
  return svg.str();
}

}  // namespace softhat::score
