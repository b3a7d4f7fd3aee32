// S-RASP programs (docs/srasp.md: the surface syntax, its types and
// semantics): the parsed, type-checked program, its fragment, and the
// reference interpreter.
//
// A program is straight-line: each statement defines one new vector (a value
// per position) from the predefined `tok` and `pos` and earlier statements.
// Symbols are held as the symbol codes of util/symbols.h; a `sym` value is a
// short string of codes (one symbol, or a bounded string built by concat).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace softhat::rasp {

enum class Type : unsigned char { kBool, kInt, kSym };
const char* type_name(Type t);

// A malformed program: "NAME:LINE:COL: what (expected ...)". Exit 2.
class ProgramError : public InputError {
 public:
  ProgramError(const std::string& what, std::size_t line, std::size_t column)
      : InputError(what), line_(line), column_(column) {}
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }

 private:
  std::size_t line_, column_;
};

// Where a variable is read: at the statement's own position (kHere; in a
// score, [i]), or at the attended position ([j]).
enum class At : unsigned char { kHere, kOther };

struct Expr {
  enum class Kind : unsigned char {
    kInt, kBool, kSym,      // literals
    kVar,                   // a vector: `var` >= 0 a statement, kTok, kPos, kN (pad polynomials)
    kNeg, kNot, kAdd, kSub, kMul, kAnd, kOr,
    kEq, kNe, kLt, kLe, kGt, kGe,
    kIf, kConcat,
  };
  static constexpr int kTok = -1, kPos = -2, kN = -3;
  Kind kind = Kind::kInt;
  Type type = Type::kInt;
  std::int64_t number = 0;  // kInt, kBool (0/1)
  std::string symbol;       // kSym: one symbol code
  int var = 0;              // kVar
  At at = At::kHere;        // kVar
  std::vector<Expr> args;
  std::size_t line = 0, column = 0;
  int height = 1;  // of the tree (bounded by the parser: recursion over it stays shallow)
};

enum class Dir : unsigned char { kLeftmost, kRightmost };
enum class Mask : unsigned char { kAll, kBefore, kUpTo, kAfter, kFrom };  // all, j<i, j<=i, j>i, j>=i
const char* mask_text(Mask m);

struct Statement {
  enum class Kind : unsigned char { kMap, kPsum, kSelect };
  std::string name;
  Type type = Type::kBool;
  Kind kind = Kind::kMap;
  Expr expr;  // kMap: the value at i; kPsum: the summand; kSelect: the default (read at i)
  Dir dir = Dir::kLeftmost;
  Mask mask = Mask::kAll;
  Expr score;  // kSelect: over [i] and [j]
  Expr value;  // kSelect: read at the selected j
  std::size_t line = 0;
};

enum class Fragment : unsigned char { kBRasp, kCRasp, kBRaspPos, kSRasp };
const char* fragment_name(Fragment f);

struct Program {
  std::string name;      // the file, as messages name it
  std::string alphabet;  // input symbols (codes), in declared order
  std::optional<Expr> pad;  // pad(n), over n
  std::vector<Statement> statements;
  int output = -1;  // the statement `output` names
  Fragment fragment = Fragment::kBRasp;
  // Acceptor programs: the output is '1' or '0' at the last position and
  // '#' elsewhere (checked per word by run_acceptor).
  std::string pad_symbol;  // the code of '#'

  std::size_t length_with_padding(std::size_t n) const;  // N = n + pad(n); throws InputError if pad(n) < 0 or overflows
};

// Parses and type-checks `text`; throws ProgramError at the first problem.
Program parse_program(std::string_view text, const std::string& name);
// Reads a .srasp file (io::read_file: a regular file, size-checked) and parses it.
Program load_program(const std::string& path);

// The vectors of a run: one value per position, for every statement.
struct Trace {
  std::size_t n = 0, padded = 0;       // |w| and N
  std::vector<std::vector<std::int64_t>> numbers;  // int and bool statements (empty for sym ones)
  std::vector<std::vector<std::string>> symbols;   // sym statements (empty otherwise)
};

// The §1.3 semantics, literally (O(N^2) per attention statement), with exact
// 64-bit integers: an overflow throws std::overflow_error naming the
// statement (never a wrong value). `word` is symbol codes over the alphabet.
// max_padded bounds N (the memory it needs); past it, LimitError.
Trace interpret(const Program& program, std::string_view word, std::size_t max_padded);
// The transduction: out(0)...out(N-1), every '#' deleted.
std::string run_program(const Program& program, std::string_view word, std::size_t max_padded);
// An acceptor program's verdict: its output must be exactly "1" or "0",
// else std::invalid_argument (a per-word error).
bool run_acceptor(const Program& program, std::string_view word, std::size_t max_padded);

}  // namespace softhat::rasp
