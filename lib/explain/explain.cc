#include "explain/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "plot/svg.h"
#include "util/symbols.h"

namespace softhat::explain {

namespace {

const char* mode_name(model::AttentionMode m) { return m == model::AttentionMode::kSoftmax ? "softmax" : "hard"; }

std::string symbol_at(const std::string& word, std::size_t j) { return j == 0 ? "BOS" : sym::encode(word[j - 1]); }

struct Summary {
  double leak = 0;          // 1 - min target mass
  double min_gap = model::kNoGap;
};

Summary summarize(const model::AttentionMap& m) {
  Summary s;
  for (double t : m.target_mass) s.leak = std::max(s.leak, 1 - t);
  for (double g : m.gap) s.min_gap = std::min(s.min_gap, g);
  return s;
}

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.3g}", v) : "none"; }

}  // namespace

Explanation explain(const model::Engine& engine, const std::string& subject, const std::string& word,
                    const std::vector<model::AttentionMode>& modes, const std::optional<model::BetaSchedule>& beta) {
  Explanation e;
  e.subject = subject;
  e.word = word;
  e.modes = modes;
  for (model::AttentionMode mode : modes) {
    model::RunOptions o;
    o.mode = mode;
    o.beta = beta;
    const model::RunResult r = engine.run(word, o);
    e.beta = r.beta;
    e.verdicts.push_back(r.output ? sym::encode(*r.output) : (r.accepted ? "accept" : "reject"));
    e.maps.push_back(model::attention_maps(engine, word, o));
  }
  return e;
}

nlohmann::ordered_json explain_json(const Explanation& e) {
  // Infinite gaps (a row with nothing outside its targets) become null.
  const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
  nlohmann::ordered_json j;
  j["subject"] = e.subject;
  j["word"] = sym::encode(e.word);
  j["n"] = e.word.size();
  j["beta"] = e.beta;
  j["verdicts"] = nlohmann::ordered_json::object();
  for (std::size_t m = 0; m < e.modes.size(); ++m) j["verdicts"][mode_name(e.modes[m])] = e.verdicts[m];
  j["heads"] = nlohmann::ordered_json::array();
  for (std::size_t m = 0; m < e.modes.size(); ++m) {
    for (const model::AttentionMap& a : e.maps[m]) {
      const Summary s = summarize(a);
      nlohmann::ordered_json h;
      h["layer"] = a.layer;
      h["head"] = a.head;
      h["mode"] = mode_name(a.mode);
      h["label"] = a.label;
      h["beta"] = a.beta;
      h["leak"] = s.leak;
      h["min_gap"] = finite(s.min_gap);
      h["weights"] = nlohmann::ordered_json::array();
      for (Eigen::Index i = 0; i < a.weights.rows(); ++i) {
        std::vector<double> row(static_cast<std::size_t>(a.weights.cols()));
        for (Eigen::Index k = 0; k < a.weights.cols(); ++k) row[static_cast<std::size_t>(k)] = a.weights(i, k);
        h["weights"].push_back(row);
      }
      h["targets"] = a.targets;
      h["target_mass"] = a.target_mass;
      h["gap"] = nlohmann::ordered_json::array();
      for (double g : a.gap) h["gap"].push_back(finite(g));
      j["heads"].push_back(std::move(h));
    }
  }
  return j;
}

std::string explain_text(const Explanation& e) {
  static const char kShades[] = " .:-=+*#%@";
  std::string out =
      fmt::format("{} on '{}' (n = {}, beta = {:.4g})\n", e.subject, sym::encode(e.word), e.word.size(), e.beta);
  for (std::size_t m = 0; m < e.modes.size(); ++m) out += fmt::format("  {}: {}\n", mode_name(e.modes[m]), e.verdicts[m]);
  out += "cells: weight from ' ' (0) to '@' (1); [x] marks the hard target (argmax set) of the row\n";
  const std::size_t heads = e.maps.empty() ? 0 : e.maps[0].size();
  for (std::size_t h = 0; h < heads; ++h) {
    for (std::size_t m = 0; m < e.modes.size(); ++m) {
      const model::AttentionMap& a = e.maps[m][h];
      const Summary s = summarize(a);
      out += fmt::format("\nlayer {} head {} [{}] {}: leak {}, min gap {}, min beta*gap {}\n", a.layer, a.head,
                         mode_name(a.mode), a.label, num(s.leak), num(s.min_gap),
                         a.mode == model::AttentionMode::kSoftmax ? num(a.beta * s.min_gap) : "-");
      out += "          ";
      for (Eigen::Index j = 0; j < a.weights.cols(); ++j) out += fmt::format("{:^3}", j == 0 ? "^" : symbol_at(e.word, j));
      out += "\n";
      for (Eigen::Index i = 0; i < a.weights.rows(); ++i) {
        out += fmt::format("  {:>4} {:>3} ", i, symbol_at(e.word, static_cast<std::size_t>(i)));
        for (Eigen::Index j = 0; j < a.weights.cols(); ++j) {
          const double w = std::clamp(a.weights(i, j), 0.0, 1.0);
          const char c = kShades[static_cast<int>(std::lround(w * 9))];
          const auto& t = a.targets[i];
          const bool target = std::find(t.begin(), t.end(), j) != t.end();
          out += target ? fmt::format("[{}]", c) : fmt::format(" {} ", c);
        }
        out += "\n";
      }
    }
  }
  return out;
}

std::string explain_svg(const Explanation& e) {
  const std::size_t n_pos = e.word.size() + 1;
  const double cell = std::clamp(360.0 / static_cast<double>(n_pos), 3.0, 18.0);
  const double label_w = 34, head_h = 58, foot_h = 34, gap_x = 36;
  const double panel_w = label_w + cell * static_cast<double>(n_pos), panel_h = head_h + cell * static_cast<double>(n_pos) + foot_h;
  const std::size_t heads = e.maps.empty() ? 0 : e.maps[0].size();
  const double top = 78;
  const double width = std::max(600.0, 20 + static_cast<double>(e.modes.size()) * (panel_w + gap_x));
  const double height = top + static_cast<double>(heads) * panel_h + 20;
  plot::Svg svg(width, height);
  svg.text(16, 24, fmt::format("{}: attention on '{}'", e.subject,
                               e.word.size() > 60 ? sym::encode(e.word.substr(0, 60)) + "..." : sym::encode(e.word)), 15,
           "start", 0, "#222", true);
  std::string verdicts;
  for (std::size_t m = 0; m < e.modes.size(); ++m) {
    verdicts += fmt::format("{}{}: {}", m ? "   " : "", mode_name(e.modes[m]), e.verdicts[m]);
  }
  svg.text(16, 42, fmt::format("n = {}, beta = {:.4g}.  {}.", e.word.size(), e.beta, verdicts), 11);
  svg.text(16, 58, "Cells: attention weight (white 0, dark blue 1). Red outline: the row's hard target (argmax set).", 11);
  const bool labels = cell >= 9;
  for (std::size_t h = 0; h < heads; ++h) {
    const double y0 = top + static_cast<double>(h) * panel_h;
    for (std::size_t m = 0; m < e.modes.size(); ++m) {
      const model::AttentionMap& a = e.maps[m][h];
      const Summary s = summarize(a);
      const double x0 = 16 + static_cast<double>(m) * (panel_w + gap_x);
      svg.text(x0, y0 + 16, fmt::format("layer {} head {} ({})", a.layer, a.head, mode_name(a.mode)), 12, "start", 0,
               "#222", true);
      svg.text(x0, y0 + 31, a.label.size() > 70 ? std::string(sym::utf8_prefix(a.label, 70)) + "..." : a.label, 11, "start", 0, "#444");
      const double gx = x0 + label_w, gy = y0 + head_h;
      for (std::size_t j = 0; j < n_pos && labels; ++j) {
        svg.text(gx + (static_cast<double>(j) + 0.5) * cell, gy - 5, j == 0 ? "^" : symbol_at(e.word, j), 10, "middle");
      }
      for (std::size_t i = 0; i < n_pos; ++i) {
        if (labels) {
          svg.text(gx - 4, gy + (static_cast<double>(i) + 0.75) * cell, fmt::format("{} {}", i, symbol_at(e.word, i)), 9,
                   "end");
        }
        for (std::size_t j = 0; j < n_pos; ++j) {
          const double w = a.weights(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
          svg.rect(gx + static_cast<double>(j) * cell, gy + static_cast<double>(i) * cell, cell, cell,
                   plot::weight_colour(w), "#eeeeee", 0.3,
                   fmt::format("query {} ({}), key {} ({}): weight {:.4g}", i, symbol_at(e.word, i), j,
                               symbol_at(e.word, j), w));
        }
        for (std::int64_t j : a.targets[i]) {
          svg.rect(gx + static_cast<double>(j) * cell + 0.6, gy + static_cast<double>(i) * cell + 0.6, cell - 1.2,
                   cell - 1.2, "none", "#d62728", 1.2);
        }
      }
      svg.text(x0, gy + cell * static_cast<double>(n_pos) + 16,
               fmt::format("leak {}  min gap {}{}", num(s.leak), num(s.min_gap),
                           a.mode == model::AttentionMode::kSoftmax ? fmt::format("  min beta*gap {}", num(a.beta * s.min_gap))
                                                                    : ""),
               10, "start", 0, "#444");
    }
  }
  return svg.str();
}

}  // namespace softhat::explain
