#include "report/report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "automata/dfa.h"
#include "compile/acceptor.h"
#include "corpus/generate.h"
#include "explain/explain.h"
#include "io/file_util.h"
#include "lang/describe.h"
#include "logic/formula.h"
#include "logic/print.h"
#include "plot/svg.h"
#include "rasp/compile.h"
#include "rasp/oracles.h"
#include "rasp/program.h"
#include "rasp/simulate.h"
#include "task/khop.h"
#include "util/error.h"
#include "util/memory.h"
#include "util/random.h"
#include "util/symbols.h"
#include "util/version.h"
#include "verify/sample_words.h"

namespace softhat::report {

namespace {

using plot::xml_escape;

const char* kStyle = R"(<style>
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
.ok { color: #1a7f37; font-weight: bold; } .bad { color: #c62828; font-weight: bold; }
.figure { overflow-x: auto; }
</style>)";

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

std::string row(const std::vector<std::string>& cells, bool header = false) {
  std::string out = "<tr>";
  for (const std::string& c : cells) out += (header ? "<th>" : "<td>") + c + (header ? "</th>" : "</td>");
  return out + "</tr>\n";
}

// A word to explain: a short accepted word where there is one, else any.
std::string example_word(const lang::Language& language, std::size_t n, std::uint64_t seed) {
  if (language.is_task()) {
    std::mt19937_64 rng = derived_rng(seed, "report-example", n);
    return task::khop_word(rng, language.alphabet(), n);
  }
  for (std::size_t len : {n, n + 1, n + 2, n - 1}) {
    const std::vector<std::string> words = verify::balanced_words(language, len, 2, seed, util::kDefaultMaxMemory);
    if (!words.empty()) return words.front();
  }
  return std::string(n, language.alphabet()[0]);
}

}  // namespace

LanguagePage language_page(const lang::Language& language, const ReportOptions& options) {
  LanguagePage page;
  page.name = language.name();
  compile::Acceptor acceptor = compile::build_acceptor(language, options.compile);
  const model::ModelConfig& cfg = acceptor.model.config;
  int heads = 0;
  for (const model::LayerConfig& l : cfg.layers) heads += static_cast<int>(l.heads.size());

  std::string h = fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>softhat: {}</title>\n{}\n</head><body>\n",
                              xml_escape(language.name()), kStyle);
  h += fmt::format("<p><a href=\"index.html\">all languages</a></p>\n<h1>{}</h1>\n<p>{}</p>\n",
                   xml_escape(language.name()), xml_escape(language.spec.description));
  h += "<h2>Language</h2>\n<table>\n";
  h += row({"alphabet", xml_escape(sym::encode(language.alphabet()))});
  h += row({"class", xml_escape(language.spec.language_class)});
  if (language.formula) {
    h += row({"formula", "<code>" + xml_escape(language.spec.formula.value_or("")) + "</code>"});
    h += row({"fragment", xml_escape(logic::fragment_name(logic::fragment(*language.formula)))});
  }
  if (language.spec.construction) h += row({"construction", xml_escape(*language.spec.construction)});
  if (language.is_task()) h += row({"task", fmt::format("{} with {} hops", language.spec.task->kind, language.spec.task->hops)});
  std::string oracles;
  for (const std::string& s : language.sources()) oracles += (oracles.empty() ? "" : ", ") + s;
  h += row({"oracles", xml_escape(language.is_task() ? "built-in (task/khop.h)" : oracles)});
  h += row({"reference", xml_escape(language.spec.reference)});
  h += "</table>\n<h3>Automaton and star-free certificate</h3>\n<pre>" + xml_escape(lang::describe_automaton(lang::automaton_facts(language))) +
       "</pre>\n";

  h += "<h2>Transformer</h2>\n<table>\n";
  h += row({"built from", xml_escape(acceptor.origin)});
  h += row({"size", fmt::format("{} layers, {} heads, width {}", cfg.layers.size(), heads, cfg.d_model)});
  h += row({"beta(n)", xml_escape(cfg.beta.describe())});
  std::string pe;
  for (const model::PositionFeature& f : cfg.position_features) pe += (pe.empty() ? "" : ", ") + f.name();
  h += row({"position features", xml_escape(pe)});
  h += "</table>\n<table>\n" + row({"layer", "head", "mask", "hard kind", "computes"}, true);
  for (std::size_t l = 0; l < cfg.layers.size(); ++l) {
    for (std::size_t k = 0; k < cfg.layers[l].heads.size(); ++k) {
      const model::HeadConfig& hc = cfg.layers[l].heads[k];
      h += row({std::to_string(l), std::to_string(k), model::mask_name(hc.mask), model::hard_kind_name(hc.hard),
                xml_escape(hc.label)});
    }
  }
  h += "</table>\n";

  // Verification.
  const verify::VerifyReport v = verify::verify_language(language, options.verify);
  page.ok = v.ok();
  h += "<h2>Verification</h2>\n<p>The transformer against ";
  h += xml_escape(language.is_task() ? "the task's oracle, position by position" : "every oracle");
  h += fmt::format(" (seed {}): <span class=\"{}\">{}</span></p>\n<table>\n", options.verify.seed, v.ok() ? "ok" : "bad",
                   v.ok() ? "no disagreement" : fmt::format("{} disagreements", v.disagreements));
  h += row({"lengths", "words", "agreement", "min target mass", "min gap &#215; beta", "min output margin"}, true);
  for (const verify::VerifyRow& r : v.rows) {
    double rate = r.words ? 100.0 * static_cast<double>(r.agreed) / static_cast<double>(r.words) : 100.0;
    if (v.task && r.positions) rate = 100.0 * static_cast<double>(r.positions_agreed) / static_cast<double>(r.positions);
    h += "<tr><td>" + xml_escape(r.label) + fmt::format("</td><td class=\"num\">{}</td><td class=\"num\">{:.2f}%</td>", r.words, rate) +
         fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n", num(r.min_target_mass),
                     num(r.min_scaled_gap), num(r.min_output_margin));
  }
  h += "</table>\n";
  if (v.shortest) h += "<p class=\"bad\">shortest disagreement: <code>" + xml_escape(sym::encode(v.shortest->word)) + "</code></p>\n";

  // Temperature sweep.
  sweep::SweepOptions so;
  so.lengths = options.sweep_lengths;
  sweep::SweepReport sr = sweep::sweep_subject(acceptor.model, &language, options.compile, so, options.sweep_plan);
  sr.subject = language.name();
  for (const sweep::SweepRow& r : sr.rows) page.ok = page.ok && r.schedule_agrees;
  h += "<h2>How small must the temperature be?</h2>\n<div class=\"figure\">\n" + sweep::sweep_svg(sr) + "</div>\n";
  h += "<pre>" + xml_escape(sweep::format_sweep_report(sr)) + "</pre>\n";

  // One explained example.
  const std::string word = example_word(language, options.example_length, options.verify.seed);
  const model::Engine engine(std::move(acceptor.model));
  const explain::Explanation e = explain::explain(engine, language.name(), word,
                                                  {model::AttentionMode::kHard, model::AttentionMode::kSoftmax}, std::nullopt);
  h += "<h2>One word, every head</h2>\n<div class=\"figure\">\n" + explain::explain_svg(e) + "</div>\n";
  h += fmt::format("<p>softhat {}.</p>\n</body></html>\n", kVersion);
  page.html = std::move(h);

  std::string exponent = sr.exponent ? fmt::format("{:.2f}", *sr.exponent) : "-";
  std::string fit = sr.fits.empty() ? "-" : sr.fits.front().form;
  page.summary = row({fmt::format("<a href=\"{0}.html\">{0}</a>", xml_escape(language.name())),
                      xml_escape(language.spec.language_class),
                      fmt::format("{}L {}H", cfg.layers.size(), heads), xml_escape(cfg.beta.describe()),
                      fmt::format("<span class=\"{}\">{}</span>", page.ok ? "ok" : "bad", page.ok ? "agrees" : "DISAGREES"),
                      exponent, xml_escape(fit)});
  return page;
}

LanguagePage program_page(const std::string& path, const ProgramReportOptions& options) {
  const rasp::Program program = rasp::load_program(path);
  const rasp::CompiledProgram compiled = rasp::compile_program(program);
  LanguagePage page;
  page.name = std::filesystem::path(path).stem().string();
  const model::ModelConfig& cfg = compiled.model.config;
  int heads = 0;
  for (const model::LayerConfig& l : cfg.layers) heads += static_cast<int>(l.heads.size());

  std::string h = fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>softhat: {}</title>\n{}\n</head><body>\n",
                              xml_escape(page.name), kStyle);
  h += fmt::format("<p><a href=\"index.html\">all pages</a></p>\n<h1>{}</h1>\n", xml_escape(page.name));
  h += "<h2>Program</h2>\n<table>\n";
  h += row({"file", xml_escape(path)});
  h += row({"alphabet", xml_escape(sym::encode(program.alphabet))});
  h += row({"fragment", rasp::fragment_name(program.fragment)});
  h += row({"statements", std::to_string(program.statements.size())});
  h += "</table>\n<pre>" + xml_escape(io::read_file(path)) + "</pre>\n";

  h += "<h2>Average-hard transformer: layer plan and gap table</h2>\n<pre>" +
       xml_escape(rasp::describe_plan(program, compiled)) + "</pre>\n";

  // verify --program.
  const std::string stem = page.name;
  const std::string oracle = rasp::direct_oracle(stem) ? stem : "";
  const rasp::ProgramCheck check = rasp::verify_program(program, compiled, oracle, options.check);
  page.ok = check.ok();
  h += fmt::format("<h2>Verification</h2>\n<p>Against {} (seed {}): <span class=\"{}\">{}</span></p>\n<table>\n",
                   oracle.empty() ? "the interpreter (no direct oracle)" : "the direct oracle <code>" + oracle + "</code>",
                   options.check.seed, check.ok() ? "ok" : "bad", check.ok() ? "every check holds" : "FAILED");
  h += row({"words", "N max", "beta(N)", "interpreter = oracle", "AHAT", "softmax", "gap &#8805; table", "refused",
            "min gap / table"},
           true);
  for (const rasp::ProgramCheckRow& r : check.rows) {
    const std::uint64_t answered = r.words - r.refused;
    h += row({xml_escape(r.set), std::to_string(r.max_padded),
              r.beta_min == r.beta_max ? num(r.beta_min) : num(r.beta_min) + " &#8211; " + num(r.beta_max),
              oracle.empty() ? "-" : fmt::format("{}/{}", r.oracle_agree, r.words),
              fmt::format("{}/{}", r.ahat_agree, answered), fmt::format("{}/{}", r.softmax_agree, answered),
              fmt::format("{}/{}", answered - r.gap_short, answered), std::to_string(r.refused), num(r.min_gap_ratio)});
    if (r.first_failure) {
      h += "<tr><td colspan=\"9\" class=\"bad\">first failure: <code>" + xml_escape(sym::encode(*r.first_failure)) +
           "</code> (" + xml_escape(r.failure) + ")</td></tr>\n";
    }
  }
  h += "</table>\n";

  // beta(N) against the measured beta*.
  rasp::ProgramSimOptions so;
  so.lengths = options.lengths;
  if (so.lengths.empty()) {
    so.lengths = program.pad ? std::vector<std::size_t>{2, 3, 4, 5, 6} : std::vector<std::size_t>{2, 4, 8, 16, 32};
  }
  so.samples = options.samples;
  so.seed = options.check.seed;
  so.bisect = true;
  so.max_memory = options.check.max_memory;
  const rasp::ProgramSimulation sim = rasp::simulate_program(program, compiled, so);
  page.ok = page.ok && sim.ok();
  plot::Series scheduled{"scheduled beta(N)", {}, {}, "#1f77b4", false, true};
  plot::Series measured{"measured beta* (bisected)", {}, {}, "#d62728", false, true};
  plot::Series gap{"measured gap", {}, {}, "#d62728", false, true};
  plot::Series analytic{"analytic gap", {}, {}, "#1f77b4", true, true};
  h += "<h2>How small must the temperature be?</h2>\n<table>\n" +
       row({"n", "N", "words", "measured gap", "analytic gap", "beta(N)", "beta*", "beta(N) / beta*", "AHAT", "softmax"}, true);
  for (const rasp::ProgramLength& r : sim.lengths) {
    const double m = static_cast<double>(r.padded) + 1;
    scheduled.x.push_back(m);
    scheduled.y.push_back(r.beta);
    gap.x.push_back(m);
    gap.y.push_back(r.measured_gap);
    analytic.x.push_back(m);
    analytic.y.push_back(r.analytic_gap);
    if (r.empirical_beta) {
      measured.x.push_back(m);
      measured.y.push_back(*r.empirical_beta);
    }
    const std::uint64_t answered = r.words - r.refused;
    h += row({std::to_string(r.n), std::to_string(r.padded), std::to_string(r.words), num(r.measured_gap),
              num(r.analytic_gap), num(r.beta), r.empirical_beta ? num(*r.empirical_beta) : "none",
              r.empirical_beta ? num(r.beta / *r.empirical_beta) : "-", fmt::format("{}/{}", r.ahat_agree, answered),
              fmt::format("{}/{}", r.softmax_agree, answered)});
  }
  h += "</table>\n";
  h += "<div class=\"figure\">\n" +
       plot::loglog_plot(page.name + ": beta against M = N + 1", "M = N + 1", "beta", {scheduled, measured}) + "</div>\n";
  h += "<div class=\"figure\">\n" +
       plot::loglog_plot(page.name + ": score gap against M = N + 1", "M = N + 1", "gap", {gap, analytic}) + "</div>\n";
  std::string fits;
  if (sim.gap_exponent) fits += fmt::format("measured gap ~ M^{:.3f}", *sim.gap_exponent);
  if (sim.empirical_beta_exponent) fits += fmt::format("{}beta* ~ M^{:.3f}", fits.empty() ? "" : "; ", *sim.empirical_beta_exponent);
  h += "<p>Least-squares fits over N &#8805; 2: " + (fits.empty() ? std::string("none (too few lengths)") : fits) +
       ". The schedule is beta(N) = " + xml_escape(cfg.beta.describe()) +
       "; beta* is the smallest beta (within 1%) at which softmax agrees with the interpreter on every word tested at "
       "that length (the word's gap, not the worst case, sets it, so beta* can sit well below the schedule).</p>\n";
  h += fmt::format("<p>softhat {}.</p>\n</body></html>\n", kVersion);
  page.html = std::move(h);

  page.summary = row({fmt::format("<a href=\"{0}.html\">{0}</a>", xml_escape(page.name)),
                      std::string("S-RASP program (") + rasp::fragment_name(program.fragment) + ")",
                      fmt::format("{}L {}H", cfg.layers.size(), heads), xml_escape(cfg.beta.describe()),
                      fmt::format("<span class=\"{}\">{}</span>", page.ok ? "ok" : "bad", page.ok ? "agrees" : "DISAGREES"),
                      sim.empirical_beta_exponent ? fmt::format("{:.2f}", *sim.empirical_beta_exponent) : "-", "-"});
  return page;
}

std::string index_page(const std::vector<LanguagePage>& pages, const std::string& command) {
  std::string h = fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>softhat report</title>\n{}\n</head><body>\n", kStyle);
  h += "<h1>softhat report</h1>\n<p>Generated by <code>" + xml_escape(command) + "</code> (softhat " + kVersion + ").</p>\n";
  h += "<table>\n" + row({"language or program", "class", "size", "beta(n)", "verification", "beta* exponent", "best fit of beta*"}, true);
  for (const LanguagePage& p : pages) h += p.summary;
  h += "</table>\n</body></html>\n";
  return h;
}

void write_report(const std::vector<LanguagePage>& pages, const std::string& dir, const std::string& command) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("cannot create the report folder '{}': {}", dir, ec.message()));
  for (const LanguagePage& p : pages) io::write_file_atomically((std::filesystem::path(dir) / (p.name + ".html")).string(), p.html);
  io::write_file_atomically((std::filesystem::path(dir) / "index.html").string(), index_page(pages, command));
}

}  // namespace softhat::report
