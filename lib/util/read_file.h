// Reading an input file whole, safely: the size is checked (fstat) before
// anything is read, a path that is not a regular file (a FIFO, a device, a
// directory) is refused where a regular file is needed (model files,
// catalogues, automata) and otherwise read as a stream with the same bound,
// and every wait polls for SIGINT/SIGTERM, so `--model /dev/zero` or a FIFO
// nobody writes to end with exit 2 or 130/143, never an exhausted memory or
// a hang.
#pragma once

#include <cstddef>
#include <string>

#include "util/error.h"

namespace softhat::util {

inline constexpr std::size_t kMaxInputFile = std::size_t{1} << 30;  // 1 GiB

struct ReadOptions {
  std::size_t max_bytes = kMaxInputFile;
  bool regular_only = false;  // refuse FIFOs, devices and sockets
};

// Why a file could not be read: what() is "cannot read PATH: REASON".
class ReadError : public InputError {
 public:
  ReadError(const std::string& path, const std::string& reason);
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// Throws ReadError, or Interrupted if a signal came while waiting for data.
std::string read_file(const std::string& path, const ReadOptions& options = {});

}  // namespace softhat::util
