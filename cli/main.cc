#include <unistd.h>

#include <iostream>

#include "cli/app.h"
#include "util/fd_input.h"
#include "util/interrupt.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  softhat::install_interrupt_handler();
  std::vector<std::string> args(argv + 1, argv + argc);
  // stdin through a buffer whose waits see SIGINT/SIGTERM (util/fd_input.h).
  softhat::util::FdInputBuf stdin_buffer(STDIN_FILENO);
  std::istream in(&stdin_buffer);
  return softhat::cli::run(args, in, std::cout, std::cerr);
}
