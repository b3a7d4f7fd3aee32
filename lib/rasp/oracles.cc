#include "rasp/oracles.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace softhat::rasp {

namespace {

std::vector<std::string> blocks(const std::string& w) {  // split on '|'
  std::vector<std::string> out{""};
  for (char c : w) {
    if (c == '|') out.push_back("");
    else out.back() += c;
  }
  return out;
}

std::string join_blocks(const std::vector<std::string>& b) {
  std::string out;
  for (std::size_t k = 0; k < b.size(); ++k) out += (k ? "|" : "") + b[k];
  return out;
}

// k-hop induction: from position i, hop to just after the previous occurrence
// of the current symbol, k times; '~' where a hop finds none.
std::string khop(const std::string& w, int hops) {
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::int64_t p = static_cast<std::int64_t>(i);
    for (int h = 0; h < hops && p >= 0; ++h) {
      std::int64_t found = -1;
      for (std::int64_t j = p - 1; j >= 0; --j) {
        if (w[static_cast<std::size_t>(j)] == w[static_cast<std::size_t>(p)]) {
          found = j;
          break;
        }
      }
      p = found >= 0 ? found + 1 : -1;
    }
    out += p >= 0 ? w[static_cast<std::size_t>(p)] : '~';
  }
  return out;
}

bool dyck2(const std::string& w) {  // a stack of open brackets
  std::string stack;
  for (char c : w) {
    if (c == '(' || c == '[') {
      stack += c;
    } else {
      if (stack.empty() || stack.back() != (c == ')' ? '(' : '[')) return false;
      stack.pop_back();
    }
  }
  return stack.empty();
}

const std::map<std::string, ProgramOracle, std::less<>>& table() {
  static const std::map<std::string, ProgramOracle, std::less<>> m = {
      {"rotate", [](const std::string& w) { return w.empty() ? w : w.back() + w.substr(0, w.size() - 1); }},
      {"firsthalf", [](const std::string& w) { return w.substr(0, (w.size() + 1) / 2); }},
      {"reverse", [](const std::string& w) { return std::string(w.rbegin(), w.rend()); }},
      {"mapreverse",
       [](const std::string& w) {
         auto b = blocks(w);
         for (auto& x : b) std::reverse(x.begin(), x.end());
         return join_blocks(b);
       }},
      {"mapdup",
       [](const std::string& w) {
         auto b = blocks(w);
         for (auto& x : b) x += x;
         return join_blocks(b);
       }},
      {"compact",
       [](const std::string& w) {
         std::string out;
         for (char c : w) {
           if (c != 'a') out += c;
         }
         return out;
       }},
      {"sortbin",
       [](const std::string& w) {
         std::string s = w;
         std::sort(s.begin(), s.end());
         return s;
       }},
      {"square",
       [](const std::string& w) {
         std::string out;
         for (std::size_t k = 0; k < w.size(); ++k) out += w;
         return out;
       }},
      {"msquare",
       [](const std::string& w) {
         std::string out;
         for (std::size_t k = 0; k < w.size(); ++k) {
           for (std::size_t t = 0; t < w.size(); ++t) out += t <= k ? static_cast<char>(w[t] - 'a' + 'A') : w[t];
         }
         return out;
       }},
      {"khop", [](const std::string& w) { return khop(w, 2); }},
      {"dyck2", [](const std::string& w) { return std::string(w.empty() ? "" : dyck2(w) ? "1" : "0"); }},
  };
  return m;
}

}  // namespace

const ProgramOracle* direct_oracle(std::string_view name) {
  const auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> oracle_names() {
  std::vector<std::string> names;
  for (const auto& entry : table()) names.push_back(entry.first);
  return names;
}

}  // namespace softhat::rasp
