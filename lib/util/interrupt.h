// Ctrl-C (SIGINT) and SIGTERM as a request, not a kill: the first signal
// sets a flag that long loops poll (verify, generate, simulate, sweep,
// streams), which then throw Interrupted; files are only ever written whole
// (io::write_file_atomically), so an interrupted command leaves no partial
// output file. The CLI maps Interrupted to exit status 128 + the signal
// (130 for SIGINT, 143 for SIGTERM), as shells report it. A second signal
// kills at once (the default action is restored by the first).
#pragma once

#include <stdexcept>

namespace softhat {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

// Installs the handlers (the CLI does, once).
void install_interrupt_handler();
// Whether a signal has arrived.
bool interrupted();
// Throws Interrupted if a signal has arrived.
void throw_if_interrupted();
// 128 + the signal that arrived (130 for SIGINT, 143 for SIGTERM).
int interrupted_exit_status();
// Tests: raise or clear the flag without a signal (as SIGINT).
void set_interrupted(bool value);

}  // namespace softhat
