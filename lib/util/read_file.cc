#include "util/read_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/interrupt.h"
#include "util/memory.h"

namespace softhat::util {

ReadError::ReadError(const std::string& path, const std::string& reason)
    : InputError(fmt::format("cannot read {}: {}", path, reason)), reason_(reason) {}

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_file(const std::string& path, const ReadOptions& options) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer; reads wait in poll.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw ReadError(path, std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw ReadError(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw ReadError(path, "it is a directory");
  const bool regular = S_ISREG(st.st_mode);
  if (!regular && options.regular_only) {
    throw ReadError(path, fmt::format("it is {}, not a regular file", kind_of(st.st_mode)));
  }
  if (regular && static_cast<std::size_t>(st.st_size) > options.max_bytes) {
    throw ReadError(path, fmt::format("it has {} bytes, more than the limit of {}", static_cast<std::size_t>(st.st_size),
                                      format_bytes(options.max_bytes)));
  }
  std::string out;
  if (regular) out.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    throw_if_interrupted();
    if (!regular) {
      // A FIFO, a terminal, a device: wait for data a tenth of a second at a
      // time. (Linux reports no hang-up for a FIFO no writer has opened yet,
      // so this waits for the writer instead of reading an early end.)
      pollfd p{f.fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, 100);
      if (ready < 0 && errno != EINTR) throw ReadError(path, std::strerror(errno));
      if (ready <= 0) continue;
    }
    const ssize_t k = ::read(f.fd, buffer, sizeof buffer);
    if (k > 0) {
      if (out.size() + static_cast<std::size_t>(k) > options.max_bytes) {
        throw ReadError(path, fmt::format("it holds more than the limit of {}", format_bytes(options.max_bytes)));
      }
      out.append(buffer, static_cast<std::size_t>(k));
      continue;
    }
    if (k == 0) return out;
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) throw ReadError(path, std::strerror(errno));
  }
}

}  // namespace softhat::util
