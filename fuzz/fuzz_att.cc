// Fuzz target: the .att reader (automata::dfa_from_att). Any text (at most
// 4,096 bytes, at most 2,000 states) either throws an InputError that names
// the file, or gives a minimal DFA; then a second, deliberately naive reading
// of the same text (arcs and final states collected line by line, the word
// run through them directly) agrees with the DFA on every word of length up
// to 4 over the DFA's alphabet (shorter for large alphabets).
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "automata/dfa.h"
#include "fuzz/fuzz_check.h"
#include "util/error.h"
#include "util/symbols.h"
#include "words/words.h"

namespace {
using namespace softhat;

// The reference reading: "src dst label" and "src dst in out [weight]" are
// arcs, one or two fields a final state; the first arc's source is the
// start (else the first final state). Only texts the reader accepted get
// here, so malformed lines need no care.
struct Reference {
  std::map<std::pair<std::string, std::string>, std::string> next;  // (state, label) -> state
  std::set<std::string> finals;
  std::string start;
  bool has_start = false;

  explicit Reference(std::string_view text) {
    std::string first_final;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
      for (char& c : line) {
        if (c == '\t' || c == '\r') c = ' ';
      }
      std::istringstream fields(line);
      std::vector<std::string> f;
      for (std::string x; fields >> x;) f.push_back(x);
      if (f.size() >= 3) {
        if (!has_start) start = f[0], has_start = true;
        next[{f[0], f[2]}] = f[1];
      } else if (!f.empty()) {
        if (first_final.empty()) first_final = f[0];
        finals.insert(f[0]);
      }
    }
    if (!has_start) start = first_final, has_start = true;
  }

  bool accepts(const std::string& codes) const {
    std::string q = start;
    for (char c : codes) {
      const auto it = next.find({q, sym::encode(std::string(1, c))});
      if (it == next.end()) return false;
      q = it->second;
    }
    return finals.count(q) > 0;
  }
};

// States are compared as numbers ("007" is state 7): canonical names.
std::string canonical(const std::string& state) {
  const std::size_t nz = state.find_first_not_of('0');
  return nz == std::string::npos ? "0" : state.substr(nz);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  automata::Dfa dfa;
  try {
    dfa = automata::dfa_from_att(text, automata::AttSource{"fuzz.att"}, std::nullopt, 2000);
  } catch (const InputError& e) {
    FUZZ_CHECK(std::string_view(e.what()).find("fuzz.att") != std::string_view::npos,
               std::string("error does not name the file: ") + e.what());
    return 0;
  }
  FUZZ_CHECK(automata::minimize(dfa).states() == dfa.states(), "the DFA is not minimal");
  Reference ref(text);
  // Renumber the reference's states canonically.
  Reference canon = ref;
  canon.next.clear();
  canon.finals.clear();
  canon.start = canonical(ref.start);
  for (const auto& [key, to] : ref.next) canon.next[{canonical(key.first), key.second}] = canonical(to);
  for (const std::string& f : ref.finals) canon.finals.insert(canonical(f));
  // Every word up to length 4, or shorter where the alphabet is large (at
  // most 5,000 words).
  std::size_t max_len = 4;
  while (max_len > 1 && words::count_words(dfa.alphabet.size(), max_len) > 5000) --max_len;
  words::for_each_word(dfa.alphabet, max_len, [&](const std::string& w) {
    FUZZ_CHECK(dfa.accepts(w) == canon.accepts(w), "the DFA and the naive reading disagree on '" + sym::encode(w) + "'");
    return true;
  });
  return 0;
}
