// Fuzz target: the catalogue (TOML) loader. Any document is either a
// language (its formula, regex, checker or automaton built) or an InputError
// naming the file; nothing else escapes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "lang/catalog.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace softhat;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  lang::Catalog catalog;
  try {
    // Automaton files are not read (the file system is not the input).
    catalog.add_toml(text, "fuzz.toml", [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
  } catch (const InputError& e) {
    FUZZ_CHECK(std::string_view(e.what()).find("fuzz.toml") != std::string_view::npos,
               std::string("error does not name the file: ") + e.what());
    return 0;
  }
  FUZZ_CHECK(catalog.languages().size() == 1, "one document, one language");
  return 0;
}
