// The softhat command line as a function, so tests drive every subcommand
// in-process with their own streams. main() only forwards to it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace softhat::cli {

// args excludes the program name. Returns the exit status (0, 1, 2 or 3).
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace softhat::cli
