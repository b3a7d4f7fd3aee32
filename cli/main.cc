#include <iostream>

#include "cli/app.h"
#include "util/interrupt.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  softhat::install_interrupt_handler();
  std::vector<std::string> args(argv + 1, argv + argc);
  return softhat::cli::run(args, std::cin, std::cout, std::cerr);
}
