// k-hop induction heads (Sanford, Hsu & Telgarsky, ICML 2024; docs/theory.md,
// 'k-hop induction heads'): a transduction with one output symbol per input position.
//
//   find(i)   = 1 + max{ j < i : w_j = w_i }  (positions from 1), undefined
//               if w_i does not occur before i;
//   hop_k(i)  = w_{find^k(i)} (k-fold composition, undefined absorbing), and
//               the symbol '~' where it is undefined.
//
// Example (k = 2): abacbabc -> ~~~~b~ca; (k = 1): abcab -> ~~~bc.
#pragma once

#include <random>
#include <string>
#include <string_view>

namespace softhat::task {

inline constexpr char kUndefined = '~';

// The oracle: a direct O(n k) computation with last-occurrence tables.
std::string khop(std::string_view word, int hops);

// A random input word of length n as the task's generator makes them: each
// symbol uniform among those different from its predecessor (no equal
// adjacent symbols, as in Sanford et al.'s generator); alphabet size >= 2.
std::string khop_word(std::mt19937_64& rng, std::string_view alphabet, std::size_t n);

// The alphabet of the first `size` lowercase letters ("abcd" for 4); throws
// InputError unless 2 <= size <= 26.
std::string letters(int size);

}  // namespace softhat::task
