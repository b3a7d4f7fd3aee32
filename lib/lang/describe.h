// Text descriptions of languages for `softhat list` and `softhat show`.
#pragma once

#include <string>

#include "lang/catalog.h"

namespace softhat::lang {

std::string format_catalog_table(const Catalog& catalog);
std::string describe_language(const Language& language);
// DFA size, monoid size, star-free certificate or witness (formula languages).
std::string describe_automaton(const Language& language);

}  // namespace softhat::lang
