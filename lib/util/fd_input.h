// stdin (or any descriptor) as a std::streambuf whose waits poll for
// SIGINT/SIGTERM: libstdc++'s own file buffer retries read(2) after EINTR,
// so a softhat waiting on an idle FIFO or terminal would never see the
// signal. underflow() waits in poll(2) a tenth of a second at a time and
// throws Interrupted when a signal came, or InputError when the descriptor
// cannot be read (stdin a directory: EISDIR).
#pragma once

#include <streambuf>
#include <vector>

namespace softhat::util {

class FdInputBuf : public std::streambuf {
 public:
  explicit FdInputBuf(int fd, std::size_t buffer = 1 << 16) : fd_(fd), buffer_(buffer) {}

 protected:
  int_type underflow() override;

 private:
  int fd_;
  std::vector<char> buffer_;
};

}  // namespace softhat::util
