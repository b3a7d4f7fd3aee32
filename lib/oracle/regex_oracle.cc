#include "oracle/regex_oracle.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include "util/error.h"

namespace softhat::oracle {

namespace {
constexpr std::int64_t kRegexMemory = std::int64_t{512} << 20;  // RE2's default is 8 MiB
}

RegexOracle::RegexOracle(std::string pattern, std::string language) : pattern_(std::move(pattern)) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_max_mem(kRegexMemory);
  options.set_log_errors(false);
  options.set_dot_nl(true);
  re_ = std::make_unique<re2::RE2>(pattern_, options);
  if (!re_->ok()) {
    throw InputError(fmt::format("language '{}': invalid regex '{}': {}", language, pattern_, re_->error()));
  }
}

RegexOracle::~RegexOracle() = default;
RegexOracle::RegexOracle(RegexOracle&&) noexcept = default;
RegexOracle& RegexOracle::operator=(RegexOracle&&) noexcept = default;

bool RegexOracle::accepts(std::string_view word) const {
  return RE2::FullMatch(re2::StringPiece(word.data(), word.size()), *re_);
}

}  // namespace softhat::oracle
