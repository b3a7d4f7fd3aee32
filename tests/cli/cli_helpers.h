// Driving the command line in-process from tests.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.h"

namespace softhat::test {

struct CliResult {
  int status;
  std::string out, err;
};

inline CliResult run_cli(const std::vector<std::string>& args, const std::string& input = "") {
  std::istringstream in(input);
  std::ostringstream out, err;
  const int status = cli::run(args, in, out, err);
  return {status, out.str(), err.str()};
}

inline std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace softhat::test
