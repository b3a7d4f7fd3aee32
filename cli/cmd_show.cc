// softhat show LANG: everything the catalogue knows about one language;
// softhat show --model FILE: what a model file holds (its configuration).
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "cascade/derive.h"
#include "cli/command.h"
#include "cli/json_option.h"
#include "compile/acceptor.h"
#include "io/model_file.h"
#include "lang/describe.h"
#include "util/error.h"
#include "util/symbols.h"
#include "verify/scale.h"

namespace softhat::cli {

namespace {

// The model file's configuration as text and as JSON (the config that the
// file's header holds, plus the weights' counts, which only the tensors give).
void show_model(Context& ctx, const std::string& file, const JsonOption& json) {
  const model::Transformer t = io::load_model(file);
  const model::ModelConfig& c = t.config;
  const std::uint64_t parameters = model::Transformer::parameter_count(c);
  const std::int64_t nonzero = verify::nonzero_weights(t);
  std::string out = fmt::format("model        {}\n", file);
  out += fmt::format("alphabet     {}\n", sym::encode(c.alphabet));
  out += fmt::format("kind         {}\n", c.program ? "S-RASP program" : c.transducer ? "transducer" : "acceptor");
  out += fmt::format("weights      {} parameters, {} nonzero ({:.2f}%)\n", parameters, nonzero,
                     parameters ? 100.0 * static_cast<double>(nonzero) / static_cast<double>(parameters) : 0.0);
  if (c.float32) {
    out += fmt::format("float32      claimed up to length {} ({} words per length; margin {:.3g} >= {} x deviation {:.3g})\n",
                       c.float32->max_length, c.float32->words, c.float32->min_margin, c.float32->safety,
                       c.float32->max_deviation);
  } else {
    out += "float32      not claimed (double)\n";
  }
  for (const auto& [key, value] : c.notes) out += fmt::format("note         {}: {}\n", key, value);
  out += model::describe_config(c);
  json.table(ctx, out);
  nlohmann::ordered_json document;
  document["model"] = {{"file", file},
                       {"parameters", parameters},
                       {"nonzero_weights", nonzero},
                       {"config", io::config_to_json(c)}};
  json.write(ctx, document);
}

}  // namespace

void setup_show(CLI::App& app, Runner& runner) {
  CLI::App* sub = app.add_subcommand("show", "show one language: formula, structure, fragment, oracles");
  auto selection = std::make_shared<cli::Selection>();
  auto json = std::make_shared<JsonOption>();
  auto model_file = std::make_shared<std::string>();
  add_selection(sub, *selection);
  sub->add_option("--model", *model_file, "show a model file (.safetensors) instead: its alphabet, size, nonzero "
                                          "weights, float32 claim, provenance and layers");
  json->add_to(sub);
  sub->callback([&runner, selection, json, model_file] {
    if (!model_file->empty()) {
      runner = [selection, json, model_file](Context& ctx) {
        if (selection->any()) throw InputError("give either --model FILE or a language, not both");
        show_model(ctx, *model_file, *json);
        return 0;
      };
      return;
    }
    runner = [selection, json](Context& ctx) {
      std::string out;
      nlohmann::ordered_json document;
      document["languages"] = nlohmann::ordered_json::array();
      for (const lang::Language& language : ctx.select(*selection)) {
        out += lang::describe_language(language);
        nlohmann::ordered_json entry = lang::language_json(language);
        if (compile::defined_by_automaton(language)) {
          // The formula derived from the automaton, shared subformulas named.
          try {
            const cascade::Derived d = compile::derive_language_formula(language);
            out += fmt::format("derived      {}\n", cascade::describe_cascade(d));
            out += "derived formula (" + d.route + " route; every named subformula is one residual coordinate):\n";
            out += cascade::print_definitions(d);
            entry["derived"] = {{"cascade", cascade::describe_cascade(d)},
                                {"route", d.route},
                                {"definitions", cascade::print_definitions(d)}};
          } catch (const cascade::NotStarFree& e) {
            out += fmt::format("derived      - ({})\n", e.what());
            entry["derived"] = {{"not_star_free", e.what()}};
          }
        }
        document["languages"].push_back(std::move(entry));
      }
      json->table(ctx, out);
      json->write(ctx, document);
      return 0;
    };
  });
}

}  // namespace softhat::cli
