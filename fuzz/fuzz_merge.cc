// Fuzz target: `merge` inputs. The input is a JSON array of shard documents
// (verify reports or corpus shards, as `merge` reads them from files). Each
// set is merged twice: as given, and with every document's run_id and
// checksum recomputed (a forger who knows the rules), so that the checks
// past the checksum are reached. Either merge throws InputError (or, for
// verify reports, a JSON type error, which the CLI turns into one), or it
// succeeds and its outputs (the report table and JSON; the split files and
// the manifest) are formatted without error.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "corpus/output.h"
#include "fuzz/fuzz_check.h"
#include "io/hash.h"
#include "util/error.h"
#include "verify/verify.h"

namespace {
using namespace softhat;

bool corpus_set(const std::vector<nlohmann::json>& docs) { return docs[0].is_object() && docs[0].contains("corpus_shard"); }

void merge(const std::vector<nlohmann::json>& docs) {
  if (corpus_set(docs)) {
    const corpus::MergedCorpus m = corpus::merge_corpus_shards(docs);
    FUZZ_CHECK(m.corpus.splits.size() == m.options.splits.size(), "one word list per split");
    std::vector<std::string> contents;
    for (std::size_t s = 0; s < m.corpus.splits.size(); ++s) {
      contents.push_back(corpus::format_split(m.corpus.splits[s], m.options.splits[s].name, m.format));
    }
    const corpus::ManifestInfo info{m.language, m.alphabet, m.formula, "", &m.options, m.format, m.source,
                                    m.allow_shortage};
    (void)nlohmann::json::parse(corpus::manifest_json(m.corpus, info, contents));  // valid JSON
    return;
  }
  const verify::MergedVerify merged = verify::merge_verify_json(docs);
  for (const verify::VerifyReport& r : merged.reports) {
    for (const verify::VerifyRow& row : r.rows) {
      FUZZ_CHECK(row.agreed <= row.words, "a merged row agrees on more words than it has");
    }
  }
  (void)verify::format_verify_reports(merged.reports);
  (void)verify::verify_reports_json(merged.reports, merged.options).dump();
}

void try_merge(const std::vector<nlohmann::json>& docs) {
  try {
    merge(docs);
  } catch (const InputError&) {
  } catch (const nlohmann::json::exception&) {
    FUZZ_CHECK(!corpus_set(docs), "a JSON error escaped the corpus merge (it must be an InputError)");
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json input = nlohmann::json::parse(data, data + size, nullptr, false);
  if (input.is_discarded() || !input.is_array() || input.empty() || input.size() > 8) return 0;
  std::vector<nlohmann::json> docs(input.begin(), input.end());
  try_merge(docs);
  for (nlohmann::json& d : docs) {
    if (!d.is_object()) continue;
    if (corpus_set(docs)) {
      d["run_id"] = corpus::corpus_run_id(d);
      d["checksum"] = io::json_checksum(d, {"checksum"});
    } else {
      d["run_id"] = verify::run_id(d);
      d["checksum"] = verify::content_checksum(d);
    }
  }
  try_merge(docs);
  return 0;
}
