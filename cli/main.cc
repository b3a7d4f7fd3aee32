#include <iostream>

#include "cli/app.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  return softhat::cli::run(args, std::cin, std::cout, std::cerr);
}
