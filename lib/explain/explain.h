// softhat explain: the attention weights of every head of every layer on one
// word, as heatmaps (query rows x key columns), hard and softmax side by
// side, labelled with what each head computes (the subformula for compiled
// models), the positions' symbols, the hard targets (argmax sets) outlined,
// and each head's leak (1 - smallest target mass) and score gaps; also as
// plain text for terminals.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "model/forward.h"

namespace softhat::explain {

struct Explanation {
  std::string subject;
  std::string word;                               // symbol codes (util/symbols.h)
  std::vector<std::string> verdicts;              // per mode: "accept"/"reject" or the output string (UTF-8)
  std::vector<model::AttentionMode> modes;        // the modes shown, in order
  std::vector<std::vector<model::AttentionMap>> maps;  // per mode, per head (layer-major)
  double beta = 0;
};

// modes: softmax, hard, or both (hard first). Throws std::invalid_argument
// for a bad word.
Explanation explain(const model::Engine& engine, const std::string& subject, const std::string& word,
                    const std::vector<model::AttentionMode>& modes, const std::optional<model::BetaSchedule>& beta);

std::string explain_text(const Explanation& e);
std::string explain_svg(const Explanation& e);
// The same as JSON (docs/json.md: explain): every head's weight matrix, targets, leak and gaps.
nlohmann::ordered_json explain_json(const Explanation& e);

}  // namespace softhat::explain
