// Deterministic randomness. Every random stream is derived from the user's
// --seed and a label (language name, length, ...), never from the order in
// which work happens, so results are identical whatever runs first and on
// however many threads.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

namespace softhat {

inline constexpr std::uint64_t kDefaultSeed = 20261130;

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a: a stable hash (std::hash is not stable across implementations).
inline std::uint64_t stable_hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

inline std::mt19937_64 derived_rng(std::uint64_t seed, std::string_view label, std::uint64_t k = 0) {
  return std::mt19937_64(splitmix64(splitmix64(seed ^ stable_hash(label)) + k));
}

// Uniform integer in [lo, hi] without std::uniform_int_distribution, whose
// output differs between standard libraries (reproducible corpora need this).
inline std::uint64_t uniform_int(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t span = hi - lo + 1;
  if (span == 0) return rng();  // the whole 64-bit range
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  std::uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return lo + x % span;
}

}  // namespace softhat
