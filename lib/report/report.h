// softhat report: one self-contained HTML page per language (inline SVG, no
// network, no scripts) with what a paper or an issue needs: the formula and
// fragment, DFA size and star-free certificate, the transformer's size and
// beta schedule, the verification table (agreement and margins per length),
// the temperature sweep plot, and one explained example; one per S-RASP
// program (its plan, gaps, checks and beta*); plus an index page.
#pragma once

#include <string>
#include <vector>

#include "compile/compiler.h"
#include "lang/language.h"
#include "rasp/simulate.h"
#include "sweep/sweep.h"
#include "verify/verify.h"

namespace softhat::report {

struct ReportOptions {
  compile::CompileOptions compile;
  verify::VerifyOptions verify;          // lengths/samples of the verification table
  std::vector<std::size_t> sweep_lengths = {16, 64, 256, 1024};
  sweep::WordPlan sweep_plan;
  std::size_t example_length = 8;       // the explained example's length
};

struct LanguagePage {
  std::string name;
  std::string html;
  std::string summary;  // one index-table row (HTML)
  bool ok = true;       // verification and sweep schedule agreed
};

LanguagePage language_page(const lang::Language& language, const ReportOptions& options);

// A compiled S-RASP program's page: its source, the layer plan and gap table,
// `verify --program`'s table, and per length the measured and analytic gaps
// with the scheduled beta(N) against the measured minimal beta* (bisected),
// plotted, with fitted exponents. The page is named after the file's stem.
struct ProgramReportOptions {
  rasp::ProgramCheckOptions check;
  std::vector<std::size_t> lengths;  // the beta* lengths; empty: 2,4,8,16,32 (padded programs 2-6)
  std::size_t samples = 10;          // words per beta* length besides adversarial ones
};
LanguagePage program_page(const std::string& path, const ProgramReportOptions& options);
std::string index_page(const std::vector<LanguagePage>& pages, const std::string& command);

// Writes DIR/<name>.html per language and DIR/index.html, each whole or not
// at all; throws InputError if DIR cannot be created or written.
void write_report(const std::vector<LanguagePage>& pages, const std::string& dir, const std::string& command);

}  // namespace softhat::report
