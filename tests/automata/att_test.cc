// The strict AT&T reader (automata::dfa_from_att): every malformed input is
// an InputError naming the file, the line and the cause; and every MLRegTest
// acceptor of ../shared/data/mlregtest reads into a DFA that accepts exactly
// what a tiny independent reading of the same file accepts, on random words
// and random walks along its arcs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "automata/dfa.h"
#include "util/error.h"
#include "util/symbols.h"
#include "words/words.h"

using namespace softhat;

namespace {

automata::Dfa att(const std::string& text, std::optional<std::string> alphabet = std::string("ab"),
                  std::size_t max_states = automata::kDefaultMaxStates) {
  return automata::dfa_from_att(text, {"x.att"}, alphabet, max_states);
}

std::string message(const std::string& text, std::optional<std::string> alphabet = std::string("ab"),
                    std::size_t max_states = automata::kDefaultMaxStates) {
  try {
    att(text, alphabet, max_states);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("att: the forms of an acceptor line", "[att]") {
  // in = out (MLRegTest), the acceptor form, weights (ignored), spaces or
  // tabs, CRLF, blank lines, duplicate arcs: all "a then anything, ending in b".
  const char* texts[] = {
      "0\t1\ta\ta\n1\t1\ta\ta\n1\t2\tb\tb\n2\t1\ta\ta\n2\t2\tb\tb\n2\n",
      "0 1 a\n1 1 a\n1 2 b\n2 1 a\n2 2 b\n2\n",
      "0 1 a a 0.5\n1 1 a a -1\n1 2 b b 1e3\n2 1 a a 0\n2 2 b b 2\n2 0.25\n",
      "0  1 \t a a\r\n\r\n1 1 a a\r\n1 2 b b\r\n2 1 a a\r\n2 2 b b\r\n2\r\n",
      "0\t1\ta\ta\n0\t1\ta\ta\n1\t1\ta\ta\n1\t2\tb\tb\n2\t1\ta\ta\n2\t2\tb\tb\n2\n2\n",
      // Large, sparse state numbers.
      "70 123456789012 a\n123456789012 123456789012 a\n123456789012 5 b\n5 123456789012 a\n5 5 b\n5\n",
  };
  for (const char* text : texts) {
    INFO(text);
    const automata::Dfa d = att(text);
    CHECK(d.states() == 4);  // with the sink
    words::for_each_word("ab", 9, [&](const std::string& w) {
      REQUIRE(d.accepts(w) == (!w.empty() && w.front() == 'a' && w.back() == 'b'));
      return true;
    });
  }
}

TEST_CASE("att: the initial state is the first arc's source, and missing arcs reject", "[att]") {
  // Final-state lines before the first arc do not make their state initial.
  const automata::Dfa d = att("3\n5 3 a a\n3 3 b b\n");
  CHECK(!d.accepts(""));
  CHECK(d.accepts("a"));
  CHECK(d.accepts("abbb"));
  CHECK(!d.accepts("aa"));
  CHECK(!d.accepts("b"));
  // Final states and no arcs: the first one listed is initial, the language is {empty word}.
  const automata::Dfa eps = att("0\n");
  CHECK(eps.accepts(""));
  CHECK(!eps.accepts("a"));
  CHECK(!eps.accepts("b"));
  // Arcs, no final state: the empty language.
  const automata::Dfa none = att("0 0 a a\n0 0 b b\n");
  CHECK(none.states() == 1);
  CHECK(!none.accepts(""));
  CHECK(!none.accepts("ab"));
}

TEST_CASE("att: the alphabet is --alphabet, or the arcs' symbols in order of first appearance", "[att]") {
  CHECK(att("0 1 c c\n1 0 a a\n0 1 b b\n1\n", std::nullopt).alphabet == "cab");
  // A given alphabet may have symbols no arc uses (they go to the sink).
  const automata::Dfa d = att("0 1 a a\n1\n", std::string("abc"));
  CHECK(d.alphabet == "abc");
  CHECK(d.accepts("a"));
  CHECK(!d.accepts("c"));
  // UTF-8 symbols are code points, declared as symbol codes.
  const automata::Dfa u = att("0\t1\t\xC3\xA1\t\xC3\xA1\n1\t1\t\xC7\x8E\t\xC7\x8E\n1\n", std::nullopt);
  REQUIRE(u.alphabet.size() == 2);
  CHECK(sym::encode(u.alphabet) == "\xC3\xA1\xC7\x8E");  // á ǎ
  CHECK(u.accepts(sym::decode("\xC3\xA1\xC7\x8E\xC7\x8E").value()));
  CHECK(!u.accepts(sym::decode("\xC7\x8E").value()));
}

TEST_CASE("att: every bad input names the file, the line and the cause", "[att]") {
  struct Row {
    const char* text;
    const char* expected;
  };
  const Row rows[] = {
      {"0 1 a a\n0 2 a a\n1\n2\n",
       "x.att:2: nondeterministic: state 0 has two arcs on 'a', to 1 (line 1) and to 2; only deterministic "
       "acceptors are read (determinize first, e.g. fstdeterminize)"},
      {"0 1 <eps> <eps>\n1\n",
       "x.att:1: an epsilon arc ('<eps>'): only deterministic acceptors without epsilon arcs are read (remove them "
       "first, e.g. fstrmepsilon and fstdeterminize)"},
      {"0 1 a a\n1 2 <epsilon>\n2\n",
       "x.att:2: an epsilon arc ('<epsilon>'): only deterministic acceptors without epsilon arcs are read (remove "
       "them first, e.g. fstrmepsilon and fstdeterminize)"},
      {"0 1 \xCE\xB5 \xCE\xB5\n1\n",
       "x.att:1: an epsilon arc ('\xCE\xB5'): only deterministic acceptors without epsilon arcs are read (remove them "
       "first, e.g. fstrmepsilon and fstdeterminize)"},
      {"0 1 a b\n1\n", "x.att:1: input 'a' and output 'b' differ: a transducer, not an acceptor"},
      {"0 1 a <eps>\n1\n", "x.att:1: input 'a' and output '<eps>' differ: a transducer, not an acceptor"},
      {"0 1 a a x\n1\n", "x.att:1: weight 'x' is not a (finite) number"},
      {"0 1 a a\n1 one\n", "x.att:2: weight 'one' is not a (finite) number"},
      {"0 1 a a\n1 inf\n", "x.att:2: weight 'inf' is not a (finite) number"},
      {"0 1 a a 1.5x\n1\n", "x.att:1: weight '1.5x' is not a (finite) number"},
      {"", "x.att: an empty automaton (no arcs and no final states)"},
      {"\n \n\t\n", "x.att: an empty automaton (no arcs and no final states)"},
      {"0 1 c c\n1\n", "x.att:1: symbol 'c' is not in the alphabet {a,b}"},
      {"0 1 a a\n1 2 ab ab\n2\n",
       "x.att:2: symbol 'ab' is more than one code point (a symbol is one Unicode code point)"},
      {"0 1 <rho> <rho>\n1\n",
       "x.att:1: symbol '<rho>' is more than one code point (a symbol is one Unicode code point)"},
      {"0 1 \xFF \xFF\n1\n", "x.att:1: symbol bytes 0xff are not valid UTF-8"},
      {"0 1 a a 0 0\n1\n",
       "x.att:1: 6 fields; expected 'src dst in out [weight]', 'src dst label' or 'state [weight]'"},
      {"0 x a a\n", "x.att:1: 'x' is not a state number (a non-negative integer)"},
      {"0 1 a a\n-1\n", "x.att:2: '-1' is not a state number (a non-negative integer)"},
      {"0 1 a a\n1.0\n", "x.att:2: '1.0' is not a state number (a non-negative integer)"},
      {"0 1 a a\n+1\n", "x.att:2: '+1' is not a state number (a non-negative integer)"},
      {"0 1 a a\n1234567890123456789\n", "x.att:2: state number 1234567890123456789 is too large (more than 18 digits)"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    CHECK(message(row.text) == row.expected);
  }
  // Without --alphabet: a control character is not a symbol.
  CHECK(message("0 1 \x01 \x01\n1\n", std::nullopt) == "x.att:1: symbol U+0001 cannot be a symbol: a control character");
  // The line number counts from AttSource::first_line (text inline in a TOML file).
  try {
    automata::dfa_from_att("0 1 a a\n0 1 b c\n", {"lang.toml", 7}, std::string("ab"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "lang.toml:8: input 'b' and output 'c' differ: a transducer, not an acceptor");
  }
}

TEST_CASE("att: more states than --max-states is a LimitError naming the line", "[att]") {
  const std::string text = "0 1 a a\n1 2 a a\n2 3 a a\n3\n";
  CHECK(att(text, std::string("ab"), 4).states() == 5);
  CHECK_THROWS_AS(att(text, std::string("ab"), 3), automata::LimitError);
  CHECK(message(text, std::string("ab"), 3) == "x.att:3: the automaton has more than 3 states");
  // Final-state lines count their states too.
  CHECK(message("0 1 a a\n7\n", std::string("ab"), 2) ==
        "x.att:2: the automaton has more than 2 states");
}

#ifdef SOFTHAT_MLREGTEST_DIR
namespace {

// A tiny independent reading of an MLRegTest file: arcs by (state, symbol
// text), final states, the first arc's source.
struct Naive {
  std::map<std::pair<std::string, std::string>, std::string> arcs;
  std::set<std::string> finals;
  std::string start;
  std::vector<std::string> symbols;  // in order of first appearance
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;  // state -> (symbol, target)

  explicit Naive(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string t; std::getline(fields, t, '\t');) f.push_back(t);
      if (f.size() == 1) {
        finals.insert(f[0]);
      } else if (f.size() == 4) {
        if (start.empty()) start = f[0];
        arcs[{f[0], f[2]}] = f[1];
        out[f[0]].emplace_back(f[2], f[1]);
        if (std::find(symbols.begin(), symbols.end(), f[2]) == symbols.end()) symbols.push_back(f[2]);
      }
    }
  }
  bool accepts(const std::vector<std::string>& word) const {
    std::string q = start;
    for (const std::string& a : word) {
      auto it = arcs.find({q, a});
      if (it == arcs.end()) return false;
      q = it->second;
    }
    return finals.count(q) > 0;
  }
};

}  // namespace

TEST_CASE("att: all 72 MLRegTest acceptors read into DFAs that agree with an independent reading", "[att]") {
  namespace fs = std::filesystem;
  const fs::path dir = SOFTHAT_MLREGTEST_DIR;
  std::vector<fs::path> files;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".att") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 72);
  std::mt19937_64 rng(20240607);
  std::size_t positives = 0, words = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    INFO(file.filename().string());
    const Naive naive(text);
    const automata::Dfa dfa = automata::dfa_from_att(text, {file.string()});
    // The alphabet: the arcs' symbols in order of first appearance.
    REQUIRE(dfa.alphabet.size() == naive.symbols.size());
    for (std::size_t i = 0; i < naive.symbols.size(); ++i) REQUIRE(sym::encode(dfa.alphabet[i]) == naive.symbols[i]);
    // The file's size from its name: Sigma.Tau.CLASS.k.t.i.
    CHECK(dfa.alphabet.size() == std::stoul(file.filename().string().substr(0, 2)));
    auto check = [&](const std::vector<std::string>& word) {
      std::string codes;
      for (const std::string& a : word) codes += *sym::decode(a);
      const bool expected = naive.accepts(word);
      ++words;
      positives += expected;
      if (dfa.accepts(codes) != expected) {
        std::string shown;
        for (const std::string& a : word) shown += a;
        FAIL("disagree on \"" << shown << "\": naive " << expected);
      }
    };
    for (int t = 0; t < 300; ++t) {
      // Uniform random words of length 0..40 (mostly negatives for most files),
      std::vector<std::string> word(std::uniform_int_distribution<std::size_t>(0, 40)(rng));
      for (std::string& a : word) a = naive.symbols[std::uniform_int_distribution<std::size_t>(0, naive.symbols.size() - 1)(rng)];
      check(word);
      // random walks along the arcs (mostly positives), and the walk with one symbol changed.
      std::vector<std::string> walk;
      std::string q = naive.start;
      const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 40)(rng);
      for (std::size_t i = 0; i < n; ++i) {
        auto it = naive.out.find(q);
        if (it == naive.out.end()) break;
        const auto& [a, to] = it->second[std::uniform_int_distribution<std::size_t>(0, it->second.size() - 1)(rng)];
        walk.push_back(a);
        q = to;
      }
      check(walk);
      if (!walk.empty()) {
        walk[std::uniform_int_distribution<std::size_t>(0, walk.size() - 1)(rng)] =
            naive.symbols[std::uniform_int_distribution<std::size_t>(0, naive.symbols.size() - 1)(rng)];
        check(walk);
      }
    }
  }
  // The test must see both verdicts often.
  CHECK(positives > words / 10);
  CHECK(positives < words * 9 / 10);
}
#endif
