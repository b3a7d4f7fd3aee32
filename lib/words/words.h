// Word sources for verification: every word up to a length, in
// length-lexicographic order (so the first disagreement found is a shortest
// one), and seeded random words of a given length.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace softhat::words {

// Calls visit(word) for every word over `alphabet` of length 0..max_len, in
// length-lexicographic order (alphabet order). Stops early if visit returns false.
void for_each_word(std::string_view alphabet, std::size_t max_len,
                   const std::function<bool(const std::string&)>& visit);

// Every word of length 0..max_len, in the same order (for small alphabets and lengths).
std::vector<std::string> all_words(std::string_view alphabet, std::size_t max_len);

// Number of words of length 0..max_len (saturates at UINT64_MAX).
std::uint64_t count_words(std::size_t alphabet_size, std::size_t max_len);

// The default exhaustive length: the largest L <= 10 with |alphabet|^L <= 2200
// (10 for binary alphabets, 7 for ternary, 5 for 4 letters, 4 for 5).
std::size_t default_max_len(std::size_t alphabet_size);

// A random word of length n. Even `index`: uniform; odd `index`: "blocky",
// 1 to 6 runs of one symbol each with random cut points, which reaches
// languages such as a*b* whose members uniform words almost never hit.
std::string random_word(std::mt19937_64& rng, std::string_view alphabet, std::size_t n, std::uint64_t index);

}  // namespace softhat::words

namespace softhat::words {

// Adversarial words of length n (distinct, in a fixed order): every constant
// run a^n; for every pair of symbols a != b a single b at the end, at the
// start and in the middle of a run of a (a blocking symbol far from the
// query), and the periodic word abab...; where n allows.
std::vector<std::string> adversarial_words(std::string_view alphabet, std::size_t n);

// Parses a length list such as "0-12,16,32,1000" (ranges inclusive, in the
// order given, duplicates dropped). Throws InputError naming the bad item.
std::vector<std::size_t> parse_length_list(const std::string& text, std::size_t max_length = 100000000);

}  // namespace softhat::words
