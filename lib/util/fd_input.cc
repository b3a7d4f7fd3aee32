#include "util/fd_input.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"
#include "util/interrupt.h"

namespace softhat::util {

FdInputBuf::int_type FdInputBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  for (;;) {
    throw_if_interrupted();
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) throw InputError(fmt::format("cannot read stdin: {}", std::strerror(errno)));
    if (ready <= 0) continue;
    const ssize_t k = ::read(fd_, buffer_.data(), buffer_.size());
    if (k > 0) {
      setg(buffer_.data(), buffer_.data(), buffer_.data() + k);
      return traits_type::to_int_type(*gptr());
    }
    if (k == 0) return traits_type::eof();
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
    throw InputError(fmt::format("cannot read stdin: {}", std::strerror(errno)));
  }
}

}  // namespace softhat::util
