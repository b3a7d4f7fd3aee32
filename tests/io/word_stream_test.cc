// classify_stream's batches: the words already at hand run in order of
// length, and the records come out exactly as they would one line at a time
// (same bytes, same summary); a stream with nothing more at hand answers each
// line before it reads the next.
#include <catch2/catch.hpp>
#include <functional>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "io/word_stream.h"
#include "model/forward.h"
#include "model/random_model.h"
#include "util/random.h"

using namespace softhat;

namespace {

// The lines of a stream for the batching tests: `count` words over {a, b}
// of lengths 0..max_length; one line in twenty each gets a bad symbol 'c',
// a bad byte (if bad_byte), `over` more symbols (over the length limit), a
// TRUE label or a FALSE label.
struct LineMix {
  int max_length;
  int over;
  bool bad_byte;
  bool last_newline;
};

std::string stream_input(std::mt19937_64& rng, std::size_t count, const LineMix& mix) {
  std::string input;
  std::uniform_int_distribution<int> len(0, mix.max_length), kind(0, 19);
  for (std::size_t i = 0; i < count; ++i) {
    std::string w;
    const int n = len(rng);
    for (int k = 0; k < n; ++k) w += "ab"[rng() & 1];
    int what = kind(rng);
    if (!mix.bad_byte && what >= 1) ++what;  // no bad bytes: the kinds after it move up
    if (what == 0) w.insert(w.size() / 2, "c");
    if (what == 1) w.insert(w.size() / 3, "\xff");
    if (what == 2) w += std::string(static_cast<std::size_t>(mix.over), 'a');
    if (what == 3 || what == 4) w += (what == 3 ? "\tTRUE" : "\tFALSE");
    input += w + (i + 1 < count || mix.last_newline ? "\n" : "");
  }
  return input;
}

// Hands out one byte at a time and never says more is at hand (in_avail 0),
// as a terminal or a slow pipe would; before the first byte of each line it
// calls `at_line` with the number of lines already read.
class Trickle : public std::streambuf {
 public:
  Trickle(std::string data, std::function<void(std::size_t)> at_line)
      : data_(std::move(data)), at_line_(std::move(at_line)) {}

 protected:
  int_type underflow() override {
    if (pos_ >= data_.size()) return traits_type::eof();
    if (pos_ == 0 || data_[pos_ - 1] == '\n') at_line_(lines_++);
    c_ = data_[pos_++];
    setg(&c_, &c_, &c_ + 1);
    return traits_type::to_int_type(c_);
  }
  std::streamsize showmanyc() override { return 0; }

 private:
  std::string data_;
  std::function<void(std::size_t)> at_line_;
  std::size_t pos_ = 0, lines_ = 0;
  char c_ = 0;
};

struct Streamed {
  std::string out;
  io::StreamSummary summary;
  std::vector<std::size_t> call_lengths;  // the length of each word classify received, in call order
};

io::StreamOptions options_for(io::WordFormat format, std::size_t max_length) {
  io::StreamOptions o;
  o.alphabet = "ab";
  o.format = format;
  o.max_length = max_length;
  o.advice = [](Limit) { return std::string("; advice"); };
  return o;
}

}  // namespace

TEST_CASE("classify_stream: batched by length, the same records as one line at a time", "[io][stream]") {
  std::mt19937_64 rng = derived_rng(11, "stream-batches");
  const model::Transformer t = model::random_model(rng, {"ab", 2, 2, 6});
  const model::Engine engine(t);
  // More than two batches of lines: words of lengths 0-60, bad symbols,
  // corpus lines with labels (some wrong), lines over the length limit, a
  // header first, and a last line without its newline.
  const std::size_t count = 2 * model::kBatchWords + 600;
  const std::string input = "word\tlabel\n" + stream_input(rng, count, {60, 70, false, false});
  struct Case {
    io::WordFormat format;
    bool emit_state;  // records keep the final state: batches of 256
  };
  for (const Case c : {Case{io::WordFormat::kTsv, false}, Case{io::WordFormat::kJsonl, false},
                       Case{io::WordFormat::kJsonl, true}}) {
    const io::WordFormat format = c.format;
    auto stream = [&](std::istream& in) {
      Streamed s;
      std::ostringstream out;
      model::Runner runner(engine);
      model::RunOptions run;
      run.trace = format == io::WordFormat::kJsonl;
      run.keep_state = c.emit_state;
      io::StreamOptions o = options_for(format, 64);
      o.emit_state = c.emit_state;
      s.summary = io::classify_stream(in, out, o, [&](std::string_view w) {
        s.call_lengths.push_back(w.size());
        if (w.size() == 13) throw std::runtime_error("thirteen");  // a per-word error from the callback
        return runner.run(w, run);
      });
      s.out = out.str();
      return s;
    };
    std::istringstream whole(input);  // everything at hand: batches of kBatchWords lines
    const Streamed batched = stream(whole);
    std::size_t lines_read = 0;
    Trickle trickle(input, [&](std::size_t) { ++lines_read; });
    std::istream trickled(&trickle);  // nothing at hand: one line at a time
    const Streamed single = stream(trickled);
    CHECK(batched.out == single.out);
    CHECK(batched.summary.lines == count + 1);
    CHECK(single.summary.lines == count + 1);
    CHECK(batched.summary.errors == single.summary.errors);
    CHECK(batched.summary.errors > count / 20);
    CHECK(batched.summary.first_error_line == single.summary.first_error_line);
    CHECK(batched.summary.labelled == single.summary.labelled);
    CHECK(batched.summary.labelled > count / 20);
    CHECK(batched.summary.label_differences == single.summary.label_differences);
    CHECK(batched.summary.first_difference_line == single.summary.first_difference_line);
    CHECK(lines_read == count + 1);
    // One line at a time, the words arrive in input order; batched, in order
    // of length within each of the 3 batches: at most 2 descents, where input
    // order has thousands.
    REQUIRE(batched.call_lengths.size() == single.call_lengths.size());
    auto descents = [](const std::vector<std::size_t>& v) {
      std::size_t d = 0;
      for (std::size_t i = 1; i < v.size(); ++i) d += v[i] < v[i - 1];
      return d;
    };
    CHECK(descents(batched.call_lengths) <= (c.emit_state ? count / 256 : 2));
    CHECK(descents(batched.call_lengths) >= (c.emit_state ? count / 256 - 2 : 0));
    CHECK(descents(single.call_lengths) > count / 4);
    // Each clean word's record is what the engine says of it.
    if (format == io::WordFormat::kTsv) {
      std::istringstream in_lines(input), out_lines(batched.out);
      std::string w, rec;
      std::getline(in_lines, w);  // the header
      std::size_t checked = 0;
      while (std::getline(in_lines, w) && std::getline(out_lines, rec)) {
        if (w.find_first_not_of("ab") != std::string::npos || w.size() > 64 || w.size() == 13) continue;
        CHECK(rec == w + (engine.run(w).accepted ? "\tTRUE" : "\tFALSE"));
        ++checked;
      }
      CHECK(checked > count / 2);
    }
  }
}

TEST_CASE("classify_stream: with nothing more at hand, each line is answered before the next is read",
          "[io][stream]") {
  std::mt19937_64 rng = derived_rng(12, "stream-trickle");
  const model::Engine engine(model::random_model(rng, {"ab", 1, 1, 4}));
  std::ostringstream out;
  std::vector<std::size_t> records_before;  // records written when line k's first byte was asked for
  Trickle trickle("ab\nbbb\nc\naab\nb", [&](std::size_t) {
    std::size_t records = 0;
    for (const char c : out.str()) records += c == '\n';
    records_before.push_back(records);
  });
  std::istream in(&trickle);
  model::Runner runner(engine);
  const io::StreamSummary s = io::classify_stream(in, out, options_for(io::WordFormat::kTsv, 100),
                                                  [&](std::string_view w) { return runner.run(w); });
  CHECK(records_before == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(s.lines == 5);
  CHECK(s.errors == 1);
}

TEST_CASE("classify_stream: a failure that is no word's error keeps the records before it", "[io][stream]") {
  std::mt19937_64 rng = derived_rng(13, "stream-fail");
  const model::Engine engine(model::random_model(rng, {"ab", 1, 1, 4}));
  model::Runner runner(engine);
  auto record = [&](const std::string& w) { return w + (engine.run(w).accepted ? "\tTRUE\n" : "\tFALSE\n"); };
  // All at hand, one batch, run by length: b, ab, then bbb throws. Lines 1
  // and 2 (ab, b) are classified and written; bbb and the lines after it
  // (abab was never run) are not.
  std::istringstream in("ab\nb\nbbb\nabab\n");
  std::ostringstream out;
  std::vector<std::string> calls;
  CHECK_THROWS_AS(io::classify_stream(in, out, options_for(io::WordFormat::kTsv, 100),
                                      [&](std::string_view w) {
                                        calls.emplace_back(w);
                                        if (w == "bbb") throw std::logic_error("not a word's error");
                                        return runner.run(w);
                                      }),
                  std::logic_error);
  CHECK(calls == std::vector<std::string>{"b", "ab", "bbb"});
  CHECK(out.str() == record("ab") + record("b"));
}

TEST_CASE("classify_stream: on any number of threads, the same records and summary", "[io][stream]") {
  std::mt19937_64 rng = derived_rng(14, "stream-threads");
  const model::Engine engine(model::random_model(rng, {"ab", 2, 2, 6}));
  // Two batches and a bit: words of lengths 0-80 (the long ones weigh on
  // the split by symbols), bad symbols and bytes, labels, lines over the
  // limit, and per-word errors thrown by the callback.
  const std::size_t count = model::kBatchWords + 3000;
  const std::string input = stream_input(rng, count, {80, 100, true, true});
  for (const io::WordFormat format : {io::WordFormat::kTsv, io::WordFormat::kJsonl}) {
    for (const bool emit_state : {false, true}) {
      auto stream = [&](int threads, std::set<int>* used) {
        std::vector<model::Runner> runners;
        for (int t = 0; t < threads; ++t) runners.emplace_back(engine);
        model::RunOptions run;
        run.trace = format == io::WordFormat::kJsonl;
        run.keep_state = emit_state;
        io::StreamOptions o = options_for(format, 90);
        o.emit_state = emit_state;
        o.threads = threads;
        std::mutex m;
        std::istringstream in(input);
        std::ostringstream out;
        Streamed s;
        s.summary = io::classify_stream(in, out, o, [&](int t, std::string_view w) {
          if (used) {
            const std::lock_guard<std::mutex> lock(m);
            used->insert(t);
          }
          if (w.size() == 13) throw std::runtime_error("thirteen");
          return runners[static_cast<std::size_t>(t)].run(w, run);
        });
        s.out = out.str();
        return s;
      };
      const Streamed one = stream(1, nullptr);
      CHECK(one.summary.errors > count / 10);
      CHECK(one.summary.labelled > count / 20);
      for (const int threads : {2, 3, 7}) {
        INFO("threads " << threads << ", jsonl " << (format == io::WordFormat::kJsonl) << ", state " << emit_state);
        std::set<int> used;
        const Streamed many = stream(threads, &used);
        CHECK(many.out == one.out);
        CHECK(many.summary.lines == one.summary.lines);
        CHECK(many.summary.errors == one.summary.errors);
        CHECK(many.summary.first_error_line == one.summary.first_error_line);
        CHECK(many.summary.labelled == one.summary.labelled);
        CHECK(many.summary.label_differences == one.summary.label_differences);
        CHECK(many.summary.first_difference_line == one.summary.first_difference_line);
        CHECK(used.size() == static_cast<std::size_t>(threads));  // every thread ran words
      }
    }
  }
}
