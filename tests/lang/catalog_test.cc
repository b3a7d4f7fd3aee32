// The catalogue: the built-in languages load and cover the required spread;
// malformed files are reported with path, line and what is wrong.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cli/select.h"
#include "lang/catalog.h"
#include "logic/formula.h"
#include "util/error.h"
#include "temp_path.h"

using namespace softhat;
using namespace softhat::lang;
using cli::select_languages;
using cli::Selection;

namespace {
std::string load_error(const std::string& toml) {
  Catalog c;
  try {
    c.add_toml(toml, "user/x.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("catalogue: built-in languages cover the required spread", "[lang]") {
  const Catalog catalog = Catalog::builtin();
  REQUIRE(catalog.languages().size() >= 20);
  std::map<std::string, int> classes;
  std::set<logic::Op> ops;
  bool mixed_since_until = false;
  for (const Language& l : catalog.languages()) {
    ++classes[l.spec.language_class];
    INFO(l.name());
    // Two oracles to compare, or, for a construction and for a language
    // defined by an automaton or a regex alone, one oracle for its
    // transformer (a regex has its own DFA besides); tasks carry their own
    // oracle (task/khop.h).
    const bool alone = l.spec.construction || (!l.formula && (l.automaton || l.regex_dfa));
    if (l.is_task()) CHECK(l.sources().empty());
    else CHECK(l.sources().size() >= (alone ? 1u : 2u));
    if (l.defined_by() == "regex") CHECK(l.regex_dfa);
    CHECK(l.spec.source == "languages/" + l.name() + ".toml");
    if (!l.formula) continue;
    bool has_s = false, has_u = false;
    for (logic::Formula f : logic::subformulas(*l.formula)) {
      ops.insert(f->op);
      has_s = has_s || f->op == logic::Op::kSince;
      has_u = has_u || f->op == logic::Op::kUntil;
    }
    mixed_since_until = mixed_since_until || (has_s && has_u);
  }
  CHECK(classes["star-free"] >= 12);
  CHECK(classes["regular"] >= 3);
  CHECK(classes["counting"] >= 3);
  CHECK(mixed_since_until);
  for (logic::Op op : {logic::Op::kYesterday, logic::Op::kOnce, logic::Op::kHistorically, logic::Op::kSince,
                       logic::Op::kNext, logic::Op::kEventually, logic::Op::kGlobally, logic::Op::kUntil,
                       logic::Op::kMod, logic::Op::kCompare, logic::Op::kFirst}) {
    INFO(static_cast<int>(op));
    CHECK(ops.count(op));
  }
  for (const char* name : {"parity", "even-length", "majority", "anbn", "dyck-1", "flip-flop", "dyck-1-depth-2",
                           "astar-bstar", "ab-star", "no-aa", "contains-ab", "dyck-2", "dyck-3", "khop-1",
                           "khop-2", "khop-4"}) {
    CHECK_NOTHROW(catalog.find(name));
  }
}

TEST_CASE("catalogue: malformed files name the path, the line and the problem", "[lang]") {
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a\"\nregex = \"a\"\nclass = \"star-free\"\n") ==
        "(no error)");
  CHECK(load_error("name = \"x\"\nalphabet = ") ==
        "user/x.toml:2:12: Error while parsing key-value pair: encountered end-of-file");
  CHECK(load_error("name = \"x\"\nformula = \"a\"\nregex = \"a\"\nclass = \"star-free\"\n") ==
        "user/x.toml: missing required key 'alphabet'");
  CHECK(load_error("name = \"x\"\nalphabet = 12\nformula = \"a\"\nregex = \"a\"\nclass = \"star-free\"\n") ==
        "user/x.toml:2: 'alphabet' must be a string, found an integer");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformular = \"a\"\n") ==
        "user/x.toml:3: unknown key 'formular' (known: name, alphabet, formula, regex, class, checker, "
        "automaton, construction, task, hops, description, reference)");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a &\"\nregex = \"a\"\nclass = \"star-free\"\n") ==
        "user/x.toml: language 'x': formula: unexpected end of input at 3, expected a formula");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a\"\nregex = \"(a\"\nclass = \"star-free\"\n") ==
        "user/x.toml: language 'x': invalid regex '(a': missing ): (a");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a\"\nclass = \"star-free\"\n") ==
        "user/x.toml: language 'x' needs an oracle to check its formula against: a regex or a [checker] table");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a\"\nregex = \"a\"\nclass = \"nice\"\n") ==
        "user/x.toml: language 'x': unknown class 'nice' (known: star-free, regular, counting, context-free)");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a\"\nclass = \"counting\"\n[checker]\nkind = "
                   "\"dyk\"\nsymbols = \"ab\"\n") ==
        "user/x.toml: language 'x': unknown checker kind 'dyk' (known: dyck, anbn, majority, prefix-majority, twice, "
        "dyck-prefix, parity)");
  CHECK(load_error("name = \"x\"\nalphabet = \"ab\"\nformula = \"a\"\nclass = \"counting\"\n[checker]\nkind = "
                   "\"dyck\"\n") ==
        "user/x.toml:5: missing required key 'symbols'");
  CHECK(load_error("name = \"X Y\"\nalphabet = \"ab\"\nformula = \"a\"\nregex = \"a\"\nclass = \"star-free\"\n") ==
        "user/x.toml: name 'X Y' may only use letters, digits, '-', '_' and '.'");
  // Upper case and '.' are allowed (names of .att files, e.g. 04.04.SF.0.0.3).
  CHECK(load_error("name = \"Sf.0.3\"\nalphabet = \"ab\"\nformula = \"a\"\nregex = \"a\"\nclass = \"star-free\"\n") ==
        "(no error)");
}

TEST_CASE("catalogue: a regex alone or an automaton alone defines a language", "[lang][inputs]") {
  const std::string head = "name = \"x\"\nclass = \"star-free\"\n";
  // A regex alone: RE2 and the regex's own DFA.
  Catalog c;
  c.add_toml(head + "alphabet = \"ab\"\nregex = \"a*(ba+)*b?\"\n", "user/x.toml");
  const Language& r = c.find("x");
  CHECK(r.defined_by() == "regex");
  REQUIRE(r.regex_dfa);
  CHECK(r.regex_dfa->accepts("abab"));
  CHECK(!r.regex_dfa->accepts("abba"));
  CHECK(has_regular_dfa(r));
  CHECK(regular_dfa(r)->states() == r.regex_dfa->states());
  // Features the DFA construction refuses, and literals outside the alphabet: input errors naming the file.
  CHECK_THAT(load_error(head + "alphabet = \"ab\"\nregex = \"^a\"\n"),
             Catch::StartsWith("user/x.toml: language 'x': regex '^a': the anchor '^' at byte 0"));
  CHECK_THAT(load_error(head + "alphabet = \"ab\"\nregex = \"a|c\"\n"),
             Catch::StartsWith("user/x.toml: language 'x': regex 'a|c': "));
  // A regex with a formula is an oracle: no DFA of its own.
  Catalog both;
  both.add_toml(head + "alphabet = \"ab\"\nformula = \"O a\"\nregex = \"[ab]*a[ab]*\"\n", "user/x.toml");
  CHECK(!both.find("x").regex_dfa);
  CHECK(both.find("x").defined_by() == "formula");
  // An automaton alone; the alphabet may be left out (the arcs' symbols); inline text.
  Catalog a;
  a.add_toml(head + "automaton = \"\"\"\n0 1 b\n1 1 a\n1\n\"\"\"\n", "user/x.toml");
  CHECK(a.find("x").alphabet() == "ba");
  CHECK(a.find("x").defined_by() == "automaton");
  CHECK(a.find("x").automaton->accepts("baa"));
  // A file name, relative to the TOML file, through the reader given.
  Catalog f;
  std::string asked;
  f.add_toml(head + "alphabet = \"ab\"\nautomaton = \"fsa/x.att\"\n", "user/x.toml", [&](const std::string& p) {
    asked = p;
    return std::optional<std::string>("0\t0\ta\ta\n0\n");
  });
  CHECK(asked == "user/fsa/x.att");
  CHECK(f.find("x").spec.automaton_file == "user/fsa/x.att");
  CHECK(f.find("x").automaton->accepts("aaa"));
  CHECK(!f.find("x").automaton->accepts("ab"));
  // Errors in an automaton file name that file and line; inline text names the TOML lines.
  Catalog g;
  CHECK_THROWS_WITH(g.add_toml(head + "alphabet = \"ab\"\nautomaton = \"x.att\"\n", "user/x.toml",
                               [](const std::string&) { return std::optional<std::string>("0 1 a a\n0 1 b c\n"); }),
                    "user/x.toml: language 'x': user/x.att:2: input 'b' and output 'c' differ: a transducer, not an "
                    "acceptor");
  CHECK_THROWS_WITH(g.add_toml(head + "alphabet = \"ab\"\nautomaton = \"x.att\"\n", "user/x.toml",
                               [](const std::string&) { return std::optional<std::string>(); }),
                    "user/x.toml:4: automaton: cannot read user/x.att");
  CHECK(load_error(head + "alphabet = \"ab\"\nautomaton = \"\"\"\n0 1 a\n1 1 <eps>\n1\n\"\"\"\n") ==
        "user/x.toml:6: an epsilon arc ('<eps>'): only deterministic acceptors without epsilon arcs are read (remove "
        "them first, e.g. fstrmepsilon and fstdeterminize)");
  CHECK(load_error(head + "automaton = \"0\\n1\\n\"\n") ==
        "user/x.toml: language 'x': the automaton has no arcs, so no alphabet to read from it: give the alphabet "
        "(on the command line, or alphabet = in a catalogue file)");
  // A checker alone is still not enough (nothing defines a DFA or a transformer).
  CHECK_THAT(load_error(head + "alphabet = \"ab\"\n[checker]\nkind = \"majority\"\nsymbols = \"ab\"\n"),
             Catch::Contains("needs an oracle"));
}

TEST_CASE("catalogue: the built-in automaton-only language reads its embedded .att file", "[lang][inputs]") {
  const Catalog catalog = Catalog::builtin();
  const Language& l = catalog.find("04.04.SF.0.0.6");
  CHECK(l.defined_by() == "automaton");
  CHECK(l.spec.automaton_file == "languages/04.04.SF.0.0.6.att");
  CHECK(l.alphabet() == "abcd");
  REQUIRE(l.automaton);
  CHECK(l.automaton->accepts("aab"));
  CHECK(l.automaton->accepts("abcab"));
  CHECK(!l.automaton->accepts("abc"));
  CHECK(!l.automaton->accepts("bab"));
  CHECK(catalog.find("c-after-ab").defined_by() == "regex");
  // The catalogue loads under a small --max-states (the limit applies to the
  // languages a command selects, which are rebuilt under it).
  CHECK_NOTHROW(Catalog::builtin(2));
  Selection s;
  s.names = {"04.04.SF.0.0.6"};
  CHECK_THROWS_AS(select_languages(Catalog::builtin(2), s, 2), automata::LimitError);
  CHECK(select_languages(Catalog::builtin(2), s).at(0).max_states == automata::kDefaultMaxStates);
  try {
    select_languages(catalog, s, 2);
  } catch (const LimitError& e) {
    CHECK(e.limit() == Limit::kStates);  // the CLI names the flag from this, the message does not
    CHECK(std::string(e.what()).find("--max-states") == std::string::npos);
  }
}

TEST_CASE("catalogue: --catalog folders add languages, duplicates are refused", "[lang]") {
  namespace fs = std::filesystem;
  const fs::path dir = softhat::test::temp_path("catalog");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "mine.toml") << "name = \"mine\"\nalphabet = \"xy\"\nformula = \"x S y\"\n"
                                      "regex = \"[xy]*yx*[xy]\"\nclass = \"star-free\"\n";
  std::ofstream(dir / "notes.txt") << "not a language";
  Catalog catalog = Catalog::builtin();
  const std::size_t before = catalog.languages().size();
  catalog.add_directory(dir.string());
  CHECK(catalog.languages().size() == before + 1);
  CHECK(catalog.find("mine").spec.source == (dir / "mine.toml").string());
  std::ofstream(dir / "zdup.toml") << "name = \"contains-ab\"\nalphabet = \"ab\"\nformula = \"a\"\nregex = "
                                      "\"a\"\nclass = \"star-free\"\n";
  Catalog again = Catalog::builtin();
  CHECK_THROWS_WITH(again.add_directory(dir.string()),
                    Catch::Contains("language 'contains-ab' is already defined by languages/contains-ab.toml"));
  CHECK_THROWS_WITH(again.add_directory((dir / "none").string()), Catch::Contains("not a readable directory"));
  CHECK_THROWS_WITH(catalog.find("contains-abc"), "unknown language 'contains-abc': did you mean contains-a, contains-ab?");
  fs::remove_all(dir);
}

TEST_CASE("selection: a command-line formula is built like a catalogue entry", "[lang]") {
  const Catalog catalog = Catalog::builtin();
  Selection s;
  s.formula = "(b & Y a) | O(b & Y a)";
  s.alphabet = "ab";
  s.regex = "[ab]*ab[ab]*";
  const auto langs = select_languages(catalog, s);
  REQUIRE(langs.size() == 1);
  const Language& listed = catalog.find("contains-ab");
  CHECK(*langs[0].formula == *listed.formula);  // the same interned formula
  CHECK(langs[0].sources() == listed.sources());
  Selection bad;
  bad.formula = "a";
  CHECK_THROWS_WITH(select_languages(catalog, bad), "--formula needs --alphabet (e.g. --alphabet ab)");
  Selection both;
  both.all = true;
  both.names = {"x"};
  CHECK_THROWS_WITH(select_languages(catalog, both),
                    "give language names, --all, --formula, --regex, --att or --task, not several of them");
  Selection bad_regex = s;
  bad_regex.regex = "[ab";
  CHECK_THROWS_WITH(select_languages(catalog, bad_regex),
                    "command line: language 'command-line': invalid regex '[ab': missing ]: [ab");
}

TEST_CASE("catalogue: tasks and constructions are checked like every entry", "[lang]") {
  const std::string head = "name = \"x\"\nalphabet = \"abcd\"\nclass = \"transduction\"\n";
  CHECK(load_error(head + "task = \"khop\"\nhops = 3\n") == "(no error)");
  CHECK(load_error(head + "task = \"khop\"\n") == "user/x.toml: a task needs an integer 'hops'");
  CHECK(load_error(head + "task = \"khop\"\nhops = \"2\"\n") == "user/x.toml:5: a task needs an integer 'hops'");
  CHECK(load_error(head + "hops = 2\n") == "user/x.toml:4: 'hops' goes with 'task'");
  CHECK(load_error(head + "task = \"sort\"\nhops = 2\n") == "user/x.toml: task 'x': unknown kind 'sort' (known: khop)");
  CHECK(load_error(head + "task = \"khop\"\nhops = 0\n") == "user/x.toml: task 'x': hops 0 is outside 1..64");
  CHECK(load_error(head + "task = \"khop\"\nhops = 2\nformula = \"a\"\n") ==
        "user/x.toml: task 'x': a task has its own oracle and construction; it takes no formula, regex, checker, "
        "automaton or construction");
  const std::string dyck = "name = \"x\"\nalphabet = \"()[]\"\nclass = \"context-free\"\n[checker]\nkind = "
                           "\"dyck\"\nsymbols = \"()[]\"\n";
  CHECK(load_error("construction = \"dyck\"\n" + dyck) == "(no error)");
  CHECK(load_error("construction = \"yao\"\n" + dyck) ==
        "user/x.toml: language 'x': unknown construction 'yao' (known: dyck)");
  CHECK(load_error(dyck) ==
        "user/x.toml: language 'x' needs an oracle to check its formula against: a regex or a [checker] table");
  const Catalog catalog = Catalog::builtin();
  CHECK(catalog.find("khop-4").transduce("abacbabc") == "~~~~~~~~");
  CHECK(catalog.find("khop-1").transduce("abacbabc") == "~~b~acab");
}
