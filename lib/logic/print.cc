#include "logic/print.h"

#include <fmt/format.h>

#include "util/symbols.h"

namespace softhat::logic {
namespace {

// Binding strength, loosest first (formula-language.md, Syntax).
enum Prec : int { kIff = 0, kImpl = 1, kOr = 2, kAnd = 3, kSince = 4, kUnary = 5, kPrimary = 6 };

int prec_of(const Node& n) {
  switch (n.op) {
    case Op::kIff: return kIff;
    case Op::kImplies: return kImpl;
    case Op::kOr: return kOr;
    case Op::kAnd: return kAnd;
    case Op::kSince:
    case Op::kUntil: return kSince;
    case Op::kNot:
    case Op::kYesterday:
    case Op::kOnce:
    case Op::kHistorically:
    case Op::kNext:
    case Op::kEventually:
    case Op::kGlobally: return kUnary;
    case Op::kCompare: return kSince;  // a primary, but parenthesized under unary ops for clarity
    default: return kPrimary;
  }
}

const char* unary_symbol(Op op) {
  switch (op) {
    case Op::kNot: return "!";
    case Op::kYesterday: return "Y ";
    case Op::kOnce: return "O ";
    case Op::kHistorically: return "H ";
    case Op::kNext: return "X ";
    case Op::kEventually: return "F ";
    case Op::kGlobally: return "G ";
    default: return "?";
  }
}

void print(Formula f, int context, std::string& out, const Names* names);

void print_term(const Term& t, std::string& out, const Names* names) {
  bool started = false;
  for (const auto& [c, f] : t.counts) {
    std::int64_t mag = c < 0 ? -c : c;
    if (!started) {
      if (c < 0) out += "0 - ";
    } else {
      out += c < 0 ? " - " : " + ";
    }
    started = true;
    if (mag != 1) out += fmt::format("{}*", mag);
    out += '#';
    print(f, kPrimary, out, names);
  }
  if (!started) {
    if (t.constant < 0) out += "0 - ";
    out += fmt::format("{}", t.constant < 0 ? -t.constant : t.constant);
  } else if (t.constant != 0) {
    out += fmt::format(" {} {}", t.constant < 0 ? '-' : '+',
                       t.constant < 0 ? -t.constant : t.constant);
  }
}

void print_body(Formula f, int context, std::string& out, const Names* names);

void print(Formula f, int context, std::string& out, const Names* names) {
  if (names) {
    if (auto it = names->find(f); it != names->end()) {
      out += it->second;
      return;
    }
  }
  print_body(f, context, out, names);
}

void print_body(Formula f, int context, std::string& out, const Names* names) {
  const Node& n = *f;
  const int p = prec_of(n);
  const bool paren = p < context;
  if (paren) out += '(';
  switch (n.op) {
    case Op::kTrue: out += "true"; break;
    case Op::kFalse: out += "false"; break;
    case Op::kFirst: out += "first"; break;
    case Op::kLast: out += "last"; break;
    case Op::kLetter: out += symbol_literal(n.letter); break;
    case Op::kMod: out += fmt::format("mod({},{})", n.m, n.r); break;
    case Op::kNot:
    case Op::kYesterday:
    case Op::kOnce:
    case Op::kHistorically:
    case Op::kNext:
    case Op::kEventually:
    case Op::kGlobally:
      out += unary_symbol(n.op);
      print(n.kids[0], kUnary, out, names);
      break;
    case Op::kAnd:
    case Op::kOr: {
      const char* sep = n.op == Op::kAnd ? " & " : " | ";
      for (std::size_t i = 0; i < n.kids.size(); ++i) {
        if (i) out += sep;
        print(n.kids[i], p + 1, out, names);
      }
      break;
    }
    case Op::kImplies:  // right-associative
      print(n.kids[0], kOr, out, names);
      out += " -> ";
      print(n.kids[1], kImpl, out, names);
      break;
    case Op::kIff:  // left-associative
      print(n.kids[0], kIff, out, names);
      out += " <-> ";
      print(n.kids[1], kImpl, out, names);
      break;
    case Op::kSince:
    case Op::kUntil:  // right-associative
      print(n.kids[0], kUnary, out, names);
      out += n.op == Op::kSince ? " S " : " U ";
      print(n.kids[1], kSince, out, names);
      break;
    case Op::kCompare:
      print_term(n.lhs, out, names);
      out += fmt::format(" {} ", cmp_symbol(n.cmp));
      print_term(n.rhs, out, names);
      break;
  }
  if (paren) out += ')';
}

const char* op_name(Op op) {
  switch (op) {
    case Op::kNot: return "!";
    case Op::kAnd: return "&";
    case Op::kOr: return "|";
    case Op::kImplies: return "->";
    case Op::kIff: return "<->";
    case Op::kYesterday: return "Y";
    case Op::kOnce: return "O";
    case Op::kHistorically: return "H";
    case Op::kSince: return "S";
    case Op::kNext: return "X";
    case Op::kEventually: return "F";
    case Op::kGlobally: return "G";
    case Op::kUntil: return "U";
    default: return "?";
  }
}

void dump_term(const Term& t, std::string& out);

void dump(Formula f, std::string& out) {
  const Node& n = *f;
  switch (n.op) {
    case Op::kTrue: out += "true"; return;
    case Op::kFalse: out += "false"; return;
    case Op::kFirst: out += "first"; return;
    case Op::kLast: out += "last"; return;
    case Op::kLetter: out += fmt::format("'{}'", sym::encode(n.letter)); return;
    case Op::kMod: out += fmt::format("(mod {} {})", n.m, n.r); return;
    case Op::kCompare:
      out += fmt::format("({} ", cmp_symbol(n.cmp));
      dump_term(n.lhs, out);
      out += ' ';
      dump_term(n.rhs, out);
      out += ')';
      return;
    default:
      out += '(';
      out += op_name(n.op);
      for (const Formula& k : n.kids) {
        out += ' ';
        dump(k, out);
      }
      out += ')';
  }
}

void dump_term(const Term& t, std::string& out) {
  out += '[';
  for (const auto& [c, f] : t.counts) {
    out += fmt::format("{}*#", c);
    dump(f, out);
    out += ' ';
  }
  out += fmt::format("{}]", t.constant);
}

}  // namespace

std::string symbol_literal(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return std::string(1, c);
  if (c == '\'') return "'\\''";
  if (c == '\\') return "'\\\\'";
  return fmt::format("'{}'", sym::encode(c));  // non-ASCII symbols as UTF-8
}

std::string to_string(Formula f) {
  std::string out;
  print(f, kIff, out, nullptr);
  return out;
}

std::string to_string(Formula f, const Names& names) {
  // The root itself is written out, its named subformulas by name.
  std::string out;
  print_body(f, kIff, out, &names);
  return out;
}

std::string to_string(const Term& t) {
  std::string out;
  print_term(t, out, nullptr);
  return out;
}

std::string dump(Formula f) {
  std::string out;
  dump(f, out);
  return out;
}

}  // namespace softhat::logic
