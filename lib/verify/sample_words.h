// The random words `check` and `verify` test at a length: half positives and
// half near-miss negatives from the corpus generator (uniform positives from
// the language's border, each paired with a negative one edit away), so that
// long words test the boundary, not only the easy side; topped up with
// uniform and blocky random words where the language has too few. The words
// depend only on the seed, the length and the language.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lang/language.h"
#include "words/source.h"

namespace softhat::verify {

// `max_memory` bounds the sampler's count tables (0: no limit).
std::vector<std::string> balanced_words(const lang::Language& language, std::size_t length, std::size_t samples,
                                        std::uint64_t seed, std::size_t max_memory);

// The bytes `samples` words at each of `lengths` take, held whole
// (saturating): checked against --max-memory before any is drawn.
std::size_t sampled_words_bytes(const std::vector<std::size_t>& lengths, std::size_t samples);

// The rows `check` and `verify` test a language on, in order: every word of
// length 0..max_len, then balanced_words at each of `lengths`.
std::vector<words::WordSource> language_rows(const lang::Language& language, std::size_t max_len,
                                             const std::vector<std::size_t>& lengths, std::size_t samples,
                                             std::uint64_t seed, std::size_t max_memory);

}  // namespace softhat::verify
