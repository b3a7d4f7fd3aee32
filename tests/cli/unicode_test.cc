// The command line with non-ASCII symbols: words on stdin and every output
// are UTF-8, one code point per symbol; invalid UTF-8 and symbols outside the
// alphabet are error records in place (the stream goes on, exit 2); corpora,
// manifests, shards, model files, catalogue files, show/list/explain.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "io/file_util.h"
#include "logic/eval.h"
#include "logic/parse.h"
#include "temp_path.h"
#include "util/symbols.h"

using namespace softhat;

namespace {
using Result = test::CliResult;
Result run(const std::vector<std::string>& args, const std::string& input = "") { return test::run_cli(args, input); }
constexpr auto lines = test::lines_of;

const std::string kA = "\u00e1";  // á, 2 bytes
const std::string kO = "\u01ce";  // ǎ, 2 bytes
const std::string kAlphabet = "a" + kA + "b";
const std::string kFormula = "'" + kA + "' S b";  // 'á' S b: some b, then only á

// Every code point of a UTF-8 line is one of the alphabet's (given as UTF-8).
bool over(const std::string& word, const std::string& alphabet) {
  std::string codes;
  return sym::valid_utf8(word) && sym::decode(word) && sym::decode(alphabet) &&
         [&] {
           const std::string w = *sym::decode(word), a = *sym::decode(alphabet);
           for (char c : w) {
             if (a.find(c) == std::string::npos) return false;
           }
           return true;
         }();
}
}  // namespace

TEST_CASE("unicode cli: classify decodes UTF-8 words, bad lines are error records in place", "[unicode][cli]") {
  const std::string input = "b" + kA + kA + "\n" +          // TRUE
                            "b" + kA + "ab\n" +             // FALSE
                            "\n" +                          // the empty word: FALSE
                            "ab" + kA + "\r\n" +            // CRLF: TRUE
                            "b\xff" + kA + "\n" +           // invalid UTF-8
                            "b" + kA + "\xc3\n" +           // truncated sequence at the end
                            "b" + kO + "\n" +               // a declared-nowhere symbol
                            "bc\n" +                        // an ASCII symbol outside
                            "b" + kA + "\n";                // the stream went on
  const Result r = run({"classify", "--formula", kFormula, "--alphabet", kAlphabet}, input);
  CHECK(r.status == 2);
  const std::vector<std::string> out = lines(r.out);
  REQUIRE(out.size() == 9);
  CHECK(out[0] == "b" + kA + kA + "\tTRUE");
  CHECK(out[1] == "b" + kA + "ab\tFALSE");
  CHECK(out[2] == "\tFALSE");
  CHECK(out[3] == "ab" + kA + "\tTRUE");
  CHECK(out[4] == "b\\xff" + kA + "\tERROR\tinvalid UTF-8 at byte 2 (0xff)");
  CHECK(out[5] == "b" + kA + "\\xc3\tERROR\tinvalid UTF-8 at byte 4 (0xc3)");
  CHECK(out[6] == "b" + kO + "\tERROR\tsymbol '" + kO + "' (U+01CE) at 2 is not in the alphabet {a," + kA + ",b}");
  CHECK(out[7] == "bc\tERROR\tsymbol 'c' at 2 is not in the alphabet {a," + kA + ",b}");
  CHECK(out[8] == "b" + kA + "\tTRUE");
  for (const std::string& line : out) CHECK(sym::valid_utf8(line));
  CHECK(r.err == "softhat: 4 of 9 lines had errors (first: line 5)\n");

  const Result j = run({"classify", "--formula", kFormula, "--alphabet", kAlphabet, "--format", "jsonl"},
                       "b" + kA + "\n\xfe" + kA + "\n");
  CHECK(j.status == 2);
  const std::vector<std::string> records = lines(j.out);
  REQUIRE(records.size() == 2);
  const auto good = nlohmann::json::parse(records[0]);
  CHECK(good["word"] == "b" + kA);
  CHECK(good["accepted"] == true);
  const auto bad = nlohmann::json::parse(records[1]);
  CHECK(bad["word"] == "\\xfe" + kA);
  CHECK(bad["error"] == "invalid UTF-8 at byte 1 (0xfe)");
}

TEST_CASE("unicode cli: --max-length counts symbols and never cuts a sequence", "[unicode][cli]") {
  std::string long_word = "b";
  for (int i = 0; i < 40; ++i) long_word += kA;  // 41 symbols, 81 bytes
  const Result ok = run({"--max-length", "41", "classify", "--formula", kFormula, "--alphabet", kAlphabet},
                        long_word + "\n");
  CHECK(ok.status == 0);
  CHECK(ok.out == long_word + "\tTRUE\n");
  const Result over_limit = run({"--max-length", "40", "classify", "--formula", kFormula, "--alphabet", kAlphabet},
                                long_word + "\nb\n");
  CHECK(over_limit.status == 2);
  const std::vector<std::string> out = lines(over_limit.out);
  REQUIRE(out.size() == 2);
  // The first 32 bytes end inside an á: the echo stops before it.
  CHECK(out[0] == "b" + std::string(long_word.substr(1, 30)) + "...\tERROR\tthe word has 41 symbols, more than "
                                                               "the limit of 40; raise --max-length");
  CHECK(sym::valid_utf8(out[0]));
  CHECK(out[1] == "b\tFALSE");
}

TEST_CASE("unicode cli: compile, run and the model file keep the alphabet as UTF-8", "[unicode][cli]") {
  const auto path = test::temp_path("unicode.safetensors");
  const Result c = run({"compile", "--formula", kFormula, "--alphabet", kAlphabet, "-o", path.string()});
  REQUIRE(c.status == 0);
  const std::string bytes = io::read_file(path.string());
  CHECK(bytes.find("\\\"alphabet\\\":\\\"a" + kA + "b\\\"") != std::string::npos);  // in the config's JSON string
  CHECK(bytes.find("\\\"format_version\\\":2") != std::string::npos);
  CHECK(bytes.find("tok:" + kA) != std::string::npos);
  const std::string input = "b" + kA + "\nab\n" + kA + "\nx\n";
  const Result a = run({"classify", "--formula", kFormula, "--alphabet", kAlphabet}, input);
  const Result b = run({"run", "--model", path.string()}, input);
  CHECK(a.out == b.out);
  CHECK(b.status == 2);
  CHECK(lines(b.out).at(0) == "b" + kA + "\tTRUE");
  const Result e = run({"explain", "--model", path.string(), "b" + kA + kA, "--mode", "hard"});
  CHECK(e.status == 0);
  CHECK(e.out.find("on 'b" + kA + kA + "' (n = 3") != std::string::npos);
  CHECK(sym::valid_utf8(e.out));
  const Result bad = run({"explain", "--model", path.string(), "b" + kO});
  CHECK(bad.status == 2);
  CHECK(bad.err == "softhat: symbol '" + kO + "' (U+01CE) at 2 is not in the alphabet {a," + kA + ",b}\n");
  std::filesystem::remove(path);
}

TEST_CASE("unicode cli: generate writes valid UTF-8, one code point per symbol", "[unicode][cli][corpus]") {
  const Result tsv = run({"generate", "--formula", kFormula, "--alphabet", kAlphabet, "--lengths", "1-6",
                          "--per-length", "4", "--negatives", "border", "--allow-shortage"});
  REQUIRE(tsv.status == 0);
  const logic::Formula f = logic::parse(kFormula, *sym::decode(kAlphabet));
  std::size_t with_accent = 0;
  for (const std::string& line : lines(tsv.out)) {
    const std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    const std::string word = line.substr(0, tab);
    INFO(line);
    REQUIRE(over(word, kAlphabet));
    CHECK(line.substr(tab + 1) == (logic::accepts(f, *sym::decode(word)) ? "TRUE" : "FALSE"));
    with_accent += word.find(kA) != std::string::npos;
  }
  CHECK(with_accent > 0);
  const Result jsonl = run({"generate", "--formula", kFormula, "--alphabet", kAlphabet, "--lengths", "3-5",
                            "--per-length", "3", "--negatives", "border", "--format", "jsonl"});
  REQUIRE(jsonl.status == 0);
  for (const std::string& line : lines(jsonl.out)) {
    const auto j = nlohmann::json::parse(line);
    const std::string word = j["word"];
    CHECK(over(word, kAlphabet));
    CHECK(sym::count_code_points(word) == j["length"].get<std::size_t>());
    if (j["kind"] == "border") CHECK(over(j["from"].get<std::string>(), kAlphabet));
  }
  // A folder with a manifest, and the same corpus from two shards merged.
  const auto dir = test::temp_path("unicode-corpus");
  std::filesystem::remove_all(dir);
  const std::vector<std::string> gen = {"generate", "--formula", kFormula, "--alphabet", kAlphabet,
                                        "--split", "train:2-4", "--split", "test:5-6", "--per-length", "3"};
  std::vector<std::string> whole = gen;
  whole.insert(whole.end(), {"--out", dir.string()});
  REQUIRE(run(whole).status == 0);
  const auto manifest = nlohmann::json::parse(io::read_file((dir / "manifest.json").string()));
  CHECK(manifest["alphabet"] == kAlphabet);
  CHECK(manifest["formula"] == kFormula);
  const std::string train = io::read_file((dir / "train.tsv").string());
  CHECK(sym::valid_utf8(train));
  std::vector<std::string> merge = {"merge"};
  for (int k = 0; k < 2; ++k) {
    const std::string part = test::temp_path("unicode-shard-" + std::to_string(k) + ".json").string();
    std::vector<std::string> shard = gen;
    shard.insert(shard.end(), {"--shard", std::to_string(k) + "/2", "--out", part});
    REQUIRE(run(shard).status == 0);
    merge.push_back(part);
  }
  const Result merged = run(merge);
  REQUIRE(merged.status == 0);
  const Result one = run(gen);
  CHECK(merged.out == one.out);
  CHECK(one.out.find(kA) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("unicode cli: a catalogue file with a non-ASCII alphabet, list, show, check, verify", "[unicode][cli]") {
  const auto dir = test::temp_path("unicode-catalog");
  std::filesystem::create_directories(dir);
  {
    std::ofstream toml(dir / "acute.toml");
    toml << "name = \"acute-majority\"\nalphabet = \"" << kA << "b\"\nclass = \"counting\"\n"
         << "formula = \"#'" << kA << "' > #b\"\ndescription = \"more " << kA << " than b\"\nreference = \"-\"\n"
         << "[checker]\nkind = \"majority\"\nsymbols = \"" << kA << "b\"\n";
  }
  const Result list = run({"--catalog", dir.string(), "list"});
  REQUIRE(list.status == 0);
  CHECK(list.out.find("acute-majority") != std::string::npos);
  CHECK(list.out.find(kA + "b") != std::string::npos);
  const Result show = run({"--catalog", dir.string(), "show", "acute-majority"});
  CHECK(show.status == 0);
  CHECK(show.out.find("{" + kA + ",b}") != std::string::npos);
  CHECK(show.out.find("majority(" + kA + "b)") != std::string::npos);
  CHECK(show.out.find("#'" + kA + "' > #b") != std::string::npos);
  const Result check = run({"--catalog", dir.string(), "check", "acute-majority", "--max-len", "6"});
  CHECK(check.status == 0);
  const Result verify = run({"--catalog", dir.string(), "verify", "acute-majority", "--max-len", "6", "--lengths",
                             "20", "--samples", "10"});
  CHECK(verify.status == 0);
  const Result classify = run({"--catalog", dir.string(), "classify", "acute-majority"}, kA + kA + "b\nb" + kA + "\n");
  CHECK(classify.out == kA + kA + "b\tTRUE\nb" + kA + "\tFALSE\n");
  {
    std::ofstream toml(dir / "acute.toml");
    toml << "name = \"bad\"\nalphabet = \"a\u0301b\"\nclass = \"star-free\"\nformula = \"a\"\n"
         << "regex = \"a\"\ndescription = \"-\"\nreference = \"-\"\n";
  }
  const Result bad = run({"--catalog", dir.string(), "list"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("language 'bad': alphabet symbol U+0301 at 1 is a combining mark") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("unicode cli: --alphabet errors, and a k-hop task over accented letters", "[unicode][cli]") {
  const Result repeated = run({"analyze", "--alphabet", kA + "b" + kA, "--formula", "b"});
  CHECK(repeated.status == 2);
  CHECK(repeated.err == "softhat: command line: language 'command-line': alphabet repeats '" + kA + "' at 2\n");
  const Result invalid = run({"analyze", "--alphabet", "a\xff", "--formula", "a"});
  CHECK(invalid.status == 2);
  CHECK(invalid.err ==
        "softhat: command line: language 'command-line': alphabet has invalid UTF-8 at byte 1 (0xff)\n");
  const Result bare = run({"analyze", "--alphabet", kAlphabet, "--formula", kA + " S b"});
  CHECK(bare.status == 2);
  CHECK(bare.err.find("unexpected '" + kA + "' at 0: symbols other than lowercase ASCII letters and digits are "
                      "written quoted, as '" + kA + "'") != std::string::npos);
  const std::string vowels = "\u00e1\u00e9\u00ed";  // á é í
  const Result t = run({"transduce", "--task", "khop", "--hops", "1", "--alphabet", vowels},
                       "\u00e1\u00e9\u00ed\u00e1\u00e9\n");
  CHECK(t.status == 0);
  CHECK(t.out == "\u00e1\u00e9\u00ed\u00e1\u00e9\t~~~\u00e9\u00ed\n");  // like abcab -> ~~~bc
  const Result v = run({"verify", "--task", "khop", "--hops", "2", "--alphabet", vowels, "--max-len", "5",
                        "--lengths", "30", "--samples", "5"});
  CHECK(v.status == 0);
}

TEST_CASE("unicode cli: every construction writes a UTF-8 model file over a non-ASCII alphabet that runs as compiled",
          "[unicode][cli]") {
  // Model files keep labels and notes that name symbols (tok:á, open á, the
  // Dyck pairs): they must be written as UTF-8, not as internal codes (a
  // Dyck or S-RASP model over á once failed with an internal error).
  const auto dir = test::temp_path("unicode-models");
  std::filesystem::create_directories(dir);
  const std::string pairs = "()" + kA + kO;  // ( ) and á ǎ
  {
    std::ofstream toml(dir / "dyck.toml");
    toml << "name = \"dyck-acute\"\nalphabet = \"" << pairs << "\"\nconstruction = \"dyck\"\n"
         << "class = \"context-free\"\ndescription = \"-\"\n[checker]\nkind = \"dyck\"\nsymbols = \"" << pairs
         << "\"\n";
    std::ofstream att(dir / "acute.att");
    att << "0\t1\t" << kA << "\t" << kA << "\n1\t1\tb\tb\n1\n";
    std::ofstream prog(dir / "compact.srasp");
    prog << "input alphabet {" << kA << ", b, c}\n"
         << "keep : bool := tok != '" << kA << "' && tok != '#'\n"
         << "cnt  : int  := psum(keep)\n"
         << "want : int  := pos + 1\n"
         << "out  : sym  := lmost j [all] (keep[j] && cnt[j] == want[i]) -> tok else '#'\n"
         << "output out\n";
  }
  const std::string catalog = (dir / "").string();
  struct Case {
    std::vector<std::string> compile, reference;  // compile -o FILE, and the command the file must agree with
    std::string words;
  };
  const std::string prog = (dir / "compact.srasp").string(), att = (dir / "acute.att").string();
  const std::vector<Case> cases = {
      {{"compile", "--formula", kFormula, "--alphabet", kAlphabet},
       {"classify", "--formula", kFormula, "--alphabet", kAlphabet},
       "b" + kA + "\nab\n" + kA + "\n"},
      {{"compile", "--regex", "(a|" + kA + ")*b", "--alphabet", kAlphabet},
       {"classify", "--regex", "(a|" + kA + ")*b", "--alphabet", kAlphabet},
       kA + "ab\nb" + kA + "\n"},
      {{"compile", "--att", att}, {"classify", "--att", att}, kA + "bb\nb" + kA + "\n" + kA + "\n"},
      {{"--catalog", catalog, "compile", "dyck-acute"},
       {"--catalog", catalog, "classify", "dyck-acute"},
       "(" + kA + kO + ")\n" + kA + "(" + kO + ")\n" + kO + kA + "\n"},
      {{"compile", "--task", "khop", "--hops", "1", "--alphabet", kAlphabet},
       {"transduce", "--task", "khop", "--hops", "1", "--alphabet", kAlphabet},
       "a" + kA + "ba" + kA + "\n"},
      {{"rasp", "compile", prog}, {"transduce", "--program", prog}, kA + "bc" + kA + "b\ncb" + kA + "\n"},
  };
  for (const Case& c : cases) {
    INFO(c.compile.back());
    const std::string path = (dir / "m.safetensors").string();
    std::vector<std::string> args = c.compile;
    args.insert(args.end(), {"-o", path});
    const Result made = run(args);
    REQUIRE(made.status == 0);
    const std::string bytes = io::read_file(path);
    REQUIRE(bytes.size() > 8);
    std::uint64_t header = 0;  // safetensors: an 8-byte little-endian length, then the JSON header
    for (int i = 7; i >= 0; --i) header = header * 256 + static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
    REQUIRE(header + 8 <= bytes.size());
    CHECK(sym::valid_utf8(bytes.substr(8, header)));
    const Result expected = run(c.reference, c.words), got = run({"run", "--model", path}, c.words);
    CHECK(expected.status == 0);
    CHECK(got.status == 0);
    CHECK(got.out == expected.out);
    CHECK(lines(got.out).size() == lines(c.words).size());
  }
  std::filesystem::remove_all(dir);
}
