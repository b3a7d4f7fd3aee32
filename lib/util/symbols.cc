#include "util/symbols.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "util/error.h"

namespace softhat::sym {
namespace {

// Code 0x80 + k is table[k]; `count` entries are valid. Entries are written
// once, before `count` is raised (release), so readers that load `count`
// (acquire) see them.
std::array<std::atomic<char32_t>, kMaxNonAscii> table{};
std::atomic<std::size_t> count{0};
std::mutex write_lock;

bool symbol_code_point(char32_t cp) { return cp != 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF); }

}  // namespace

std::optional<char> find(char32_t cp) {
  if (cp < 0x80) return static_cast<char>(cp);
  const std::size_t n = count.load(std::memory_order_acquire);
  for (std::size_t k = 0; k < n; ++k) {
    if (table[k].load(std::memory_order_relaxed) == cp) return static_cast<char>(0x80 + k);
  }
  return std::nullopt;
}

char intern(char32_t cp) {
  if (!symbol_code_point(cp)) {
    throw InputError(fmt::format("{} cannot be a symbol", code_point_name(cp)));
  }
  if (auto code = find(cp)) return *code;
  std::lock_guard<std::mutex> guard(write_lock);
  if (auto code = find(cp)) return *code;
  const std::size_t n = count.load(std::memory_order_relaxed);
  if (n == kMaxNonAscii) {
    throw InputError(fmt::format("symbol '{}' ({}): more than {} distinct non-ASCII symbols in one run",
                                 utf8(cp), code_point_name(cp), kMaxNonAscii));
  }
  table[n].store(cp, std::memory_order_relaxed);
  count.store(n + 1, std::memory_order_release);
  return static_cast<char>(0x80 + n);
}

char32_t code_point(char code) {
  const auto u = static_cast<unsigned char>(code);
  if (u < 0x80) return u;
  const std::size_t k = u - 0x80;
  if (k >= count.load(std::memory_order_acquire)) return 0xFFFD;
  return table[k].load(std::memory_order_relaxed);
}

std::optional<Decoded> decode_one(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return std::nullopt;
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) return Decoded{b0, 1};
  std::size_t len;
  char32_t cp;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07;
  } else {
    return std::nullopt;
  }
  if (pos + len > text.size()) return std::nullopt;
  for (std::size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  return Decoded{cp, len};
}

std::string utf8(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

bool valid_utf8(std::string_view text, std::size_t* bad) {
  for (std::size_t pos = 0; pos < text.size();) {
    auto d = decode_one(text, pos);
    if (!d) {
      if (bad) *bad = pos;
      return false;
    }
    pos += d->length;
  }
  return true;
}

std::string encode(std::string_view codes) {
  std::string out;
  out.reserve(codes.size());
  for (char c : codes) {
    if (static_cast<unsigned char>(c) < 0x80) {
      out += c;
    } else {
      out += utf8(code_point(c));
    }
  }
  return out;
}

std::string encode(char code) { return encode(std::string_view(&code, 1)); }

std::optional<std::string> decode(std::string_view text, std::string* error) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const auto b0 = static_cast<unsigned char>(text[pos]);
    if (b0 < 0x80) {
      out += static_cast<char>(b0);
      ++pos;
      continue;
    }
    auto d = decode_one(text, pos);
    if (!d) {
      if (error) *error = fmt::format("invalid UTF-8 at byte {}", pos);
      return std::nullopt;
    }
    auto code = find(d->code_point);
    if (!code) {
      if (error) {
        *error = fmt::format("symbol '{}' ({}) at byte {} is in no alphabet", utf8(d->code_point),
                             code_point_name(d->code_point), pos);
      }
      return std::nullopt;
    }
    out += *code;
    pos += d->length;
  }
  return out;
}

std::string declare(std::string_view text) {
  std::string out;
  for (std::size_t pos = 0; pos < text.size();) {
    auto d = decode_one(text, pos);
    if (!d) throw InputError(fmt::format("invalid UTF-8 at byte {}", pos));
    out += d->code_point < 0x80 ? static_cast<char>(d->code_point) : intern(d->code_point);
    pos += d->length;
  }
  return out;
}

std::string code_point_name(char32_t cp) { return fmt::format("U+{:04X}", static_cast<std::uint32_t>(cp)); }

std::string describe(char code) {
  const auto u = static_cast<unsigned char>(code);
  if (u >= 0x80) return fmt::format("'{}'", encode(code));
  if (u < 0x20 || u == 0x7F) return fmt::format("'\\x{:02x}'", u);
  return fmt::format("'{}'", code);
}

const char* not_a_symbol(char32_t cp) {
  auto in = [cp](char32_t lo, char32_t hi) { return cp >= lo && cp <= hi; };
  if (!symbol_code_point(cp)) return "not a Unicode scalar value";
  if (cp < 0x20 || cp == 0x7F || in(0x80, 0x9F)) return "a control character";
  if (cp == 0x20 || cp == 0xA0 || cp == 0x1680 || in(0x2000, 0x200A) || cp == 0x2028 || cp == 0x2029 ||
      cp == 0x202F || cp == 0x205F || cp == 0x3000) {
    return "a space";
  }
  if (cp == 0xAD || cp == 0x180E || in(0x200B, 0x200F) || in(0x202A, 0x202E) || in(0x2060, 0x2064) ||
      in(0x2066, 0x206F) || cp == 0xFEFF) {
    return "an invisible format character";
  }
  if (in(0x0300, 0x036F) || in(0x1AB0, 0x1AFF) || in(0x1DC0, 0x1DFF) || in(0x20D0, 0x20FF) || in(0xFE20, 0xFE2F)) {
    return "a combining mark";
  }
  if (in(0xFDD0, 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return "a noncharacter";
  if (cp == 0xFFFD) return "the replacement character";
  return nullptr;
}

std::size_t count_code_points(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t pos = 0; pos < text.size(); ++n) {
    auto d = decode_one(text, pos);
    pos += d ? d->length : 1;
  }
  return n;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    auto d = decode_one(text, pos);
    const std::size_t next = pos + (d ? d->length : 1);
    if (next > max_bytes) break;
    end = pos = next;
  }
  return text.substr(0, end);
}

std::string escape_invalid(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    if (auto d = decode_one(text, pos)) {
      out.append(text.substr(pos, d->length));
      pos += d->length;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[pos]));
      ++pos;
    }
  }
  return out;
}

bool CodePointLess::operator()(std::string_view a, std::string_view b) const {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) continue;
    const char32_t x = code_point(a[i]), y = code_point(b[i]);
    if (x != y) return x < y;
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);  // two undeclared codes
  }
  return a.size() < b.size();
}

std::size_t declared() { return count.load(std::memory_order_acquire); }

std::string alphabet_set(std::string_view alphabet) {
  std::string out = "{";
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    if (i) out += ',';
    out += encode(alphabet[i]);
  }
  return out + "}";
}

}  // namespace softhat::sym
