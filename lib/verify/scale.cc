#include "verify/scale.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <vector>

#include "cascade/holonomy.h"
#include "compile/acceptor.h"
#include "corpus/generate.h"
#include "io/file_util.h"
#include "io/model_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/parallel.h"
#include "util/symbols.h"
#include "verify/float32.h"

namespace softhat::verify {

namespace {

// The parameters a row was made with (a resumed run must match them).
nlohmann::ordered_json run_parameters(const ScaleOptions& o) {
  return {{"size", o.size},
          {"seed", o.seed},
          {"mode", o.mode == model::AttentionMode::kHard ? "hard" : "softmax"},
          {"precision", o.float32 ? "float32-where-claimed" : o.precision == model::Precision::kFloat ? "float" : "double"},
          {"pe", compile::pe_name(o.compile.pe)},
          {"beta", o.beta_text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.beta_text)}};
}

nlohmann::ordered_json row_head(const std::string& name, const ScaleOptions& o) {
  nlohmann::ordered_json row;
  row["language"] = name;
  const nlohmann::ordered_json parameters = run_parameters(o);  // named: items() refers into it
  for (const auto& [key, value] : parameters.items()) row[key] = value;
  return row;
}

// The verdicts of the model on every word of every split, run in parallel
// (one Runner per thread, each word's result in its own slot).
struct Verdict {
  bool accepted = false;
  double margin = 0;
};

}  // namespace

namespace {

nlohmann::ordered_json scale_row(const lang::Language& language, const ScaleOptions& o) {
  nlohmann::ordered_json row = row_head(language.name(), o);
  model::Transformer transformer = compile::build_acceptor(language, o.compile).model;
  corpus::GenerateOptions g;
  g.splits = corpus::mlregtest_splits(language.name(), corpus::mlregtest_split_size(o.size));
  g.seed = o.seed;
  g.threads = o.threads;
  g.max_states = o.max_states;
  g.max_memory = o.max_memory;
  const corpus::Corpus corpus = corpus::generate_corpus(language, g);

  model::Precision precision = o.precision;
  nlohmann::ordered_json float32;
  if (o.float32) {
    // The claim compile --float32 would record, checked at this run's beta.
    Float32Options f;
    f.seed = o.seed;
    f.threads = o.threads;
    f.run.beta = o.beta;
    f.run.max_memory = o.max_memory;
    const Float32Result r = check_float32(transformer, language, f);
    float32 = {{"claimed", r.holds}};
    const nlohmann::ordered_json claim = io::float32_claim_json(r.claim);  // named: items() refers into it
    for (const auto& [key, value] : claim.items()) {
      if (key != "safety") float32[key] = value;
    }
    if (!r.holds) float32["failure"] = r.failure;
    precision = r.holds ? model::Precision::kFloat : model::Precision::kDouble;
  }
  const model::Engine engine(std::move(transformer), precision);
  std::vector<const corpus::Example*> items;
  for (const auto& split : corpus.splits) {
    for (const corpus::Example& e : split) items.push_back(&e);
  }
  if (o.progress) o.progress->add_total(items.size());
  std::vector<Verdict> verdicts(items.size());
  model::RunOptions run;
  run.mode = o.mode;
  run.beta = o.beta;
  run.max_memory = o.max_memory;
  // Blocks of consecutive words per thread, one Runner each, run in order
  // of length (model::length_order; each verdict goes to its word's slot).
  const int threads = std::max(1, std::min<int>(o.threads, static_cast<int>(items.size() / 64 + 1)));
  parallel_blocks(0, items.size(), threads, [&](int, std::uint64_t a, std::uint64_t b) {
    model::Runner runner(engine);
    std::uint64_t done = 0;
    for (const std::size_t i : model::length_order(a, b - a, [&](std::size_t k) { return items[k]->word.size(); })) {
      if ((done++ & 255) == 0) throw_if_interrupted();
      const model::RunResult r = runner.run(items[i]->word, run);
      verdicts[i] = {r.accepted, r.output_margin};
      if (o.progress) o.progress->advance();
    }
  });

  std::uint64_t words = 0, agreed = 0;
  double min_margin = model::kNoGap;
  nlohmann::ordered_json splits = nlohmann::ordered_json::array(), first;
  std::size_t k = 0;
  for (std::size_t s = 0; s < corpus.splits.size(); ++s) {
    std::uint64_t sw = 0, sa = 0, accepted = 0;
    for (const corpus::Example& e : corpus.splits[s]) {
      const Verdict& v = verdicts[k++];
      ++sw;
      accepted += v.accepted;
      min_margin = std::min(min_margin, v.margin);
      if (v.accepted == e.label) {
        ++sa;
      } else if (first.is_null()) {
        first = {{"split", g.splits[s].name}, {"word", sym::encode(e.word)}, {"label", e.label}, {"accepted", v.accepted}};
      }
    }
    splits.push_back({{"split", g.splits[s].name}, {"words", sw}, {"agreed", sa}, {"accepted", accepted}});
    words += sw;
    agreed += sa;
  }
  const model::Transformer& t = engine.model();
  int heads = 0;
  for (const auto& l : t.config.layers) heads += static_cast<int>(l.heads.size());
  row["status"] = agreed == words ? "agree" : "disagree";
  row["words"] = words;
  row["agreed"] = agreed;
  row["shortages"] = corpus.shortages.size();
  row["model"] = {{"layers", t.config.layers.size()},
                  {"heads", heads},
                  {"d_model", t.config.d_model},
                  {"nonzero_weights", nonzero_weights(t)}};
  if (o.float32) {
    row["float32"] = std::move(float32);
    row["ran_in"] = precision == model::Precision::kFloat ? "float" : "double";
  }
  row["min_output_margin"] = min_margin < model::kNoGap ? nlohmann::ordered_json(min_margin) : nullptr;
  row["splits"] = std::move(splits);
  if (!first.is_null()) row["first_disagreement"] = std::move(first);
  return row;
}

}  // namespace

std::int64_t nonzero_weights(const model::Transformer& t) {
  std::int64_t nnz = 0;
  model::for_each_tensor(t, [&](const model::TensorView<const double>& v) {
    for (std::int64_t i = 0; i < v.size(); ++i) nnz += v.data[i] != 0.0;
  });
  return nnz;
}

nlohmann::ordered_json verify_at_scale(const std::string& name, const std::function<lang::Language()>& build,
                                       const ScaleOptions& o) {
  // A language that cannot be checked (or, built here, cannot be read or
  // built) gets a row saying why, and the run goes on (an interruption is not
  // caught: the language is rerun on resume).
  try {
    return scale_row(build(), o);
  } catch (const cascade::NotStarFree& e) {
    nlohmann::ordered_json row = row_head(name, o);
    row["status"] = "not-star-free";
    row["message"] = e.what();
    return row;
  } catch (const InputError& e) {
    nlohmann::ordered_json row = row_head(name, o);
    row["status"] = "error";
    row["message"] = e.what();
    return row;
  }
}

std::map<std::string, std::string> completed_languages(const std::string& path, const ScaleOptions& o) {
  std::map<std::string, std::string> done;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return done;
  // A device, FIFO or socket (--out /dev/stdout) holds no earlier rows: the
  // rows are only written to it. Reading it could wait forever.
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) throw InputError(fmt::format("{}: is a folder, not a results file", path));
  if (!std::filesystem::is_regular_file(status)) return done;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the results file", path));
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  // Complete lines end with a newline; what follows the last one is a torn
  // row, cut off below once every complete line has been checked.
  const std::size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  const nlohmann::ordered_json expected = run_parameters(o);
  std::size_t line_no = 0, at = 0;
  while (at < keep) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::ordered_json row = nlohmann::ordered_json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.is_object() || !row.contains("language") || !row["language"].is_string() ||
        !row.contains("status") || !row["status"].is_string()) {
      throw InputError(fmt::format("{}:{}: not a row of verify --mlregtest-splits (give another --out, or remove the line)",
                                   path, line_no));
    }
    for (const auto& [key, value] : expected.items()) {
      if (!row.contains(key) || row[key] != value) {
        throw InputError(fmt::format("{}:{}: the row for {} was made with {} {}, this run has {}: resume with the same "
                                     "--mlregtest-splits, --seed, --mode, --precision (or --float32), --pe and --beta, or give another --out",
                                     path, line_no, row["language"].get<std::string>(), key,
                                     row.contains(key) ? row[key].dump() : "none", value.dump()));
      }
    }
    done[row["language"].get<std::string>()] = row["status"].get<std::string>();
  }
  if (keep != text.size()) {
    const std::string tail = text.substr(keep);
    if (tail.rfind("{\"language\":", 0) != 0 && tail.find_first_not_of(" \t\r") != std::string::npos) {
      throw InputError(fmt::format("{}:{}: not a row of verify --mlregtest-splits, nor the start of one cut short "
                                   "(give another --out, or remove the line)",
                                   path, line_no + 1));
    }
    std::filesystem::resize_file(path, keep);
  }
  return done;
}

void append_row(const std::string& path, const nlohmann::ordered_json& row) {
  const std::string line = row.dump() + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open for appending: {}", path, std::strerror(errno)));
  // One write of the whole line; a stop mid-write leaves a torn last line,
  // which the next run cuts off (completed_languages).
  if (!io::write_all(fd, line)) {
    const int err = errno;
    ::close(fd);
    throw InputError(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
  }
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);  // a pipe or device has no disk to flush
  const bool synced = !regular || ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!synced) throw InputError(fmt::format("{}: cannot flush to the disk: {}", path, std::strerror(err)));
}

}  // namespace softhat::verify
