#include "io/file_util.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/read_file.h"

namespace softhat::io {

bool write_all(int fd, std::string_view contents) {
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t k = ::write(fd, contents.data() + done, contents.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = ENOSPC;  // a write of 0 bytes sets no errno
      return false;
    }
    done += static_cast<std::size_t>(k);
  }
  return true;
}

std::string write_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
  const fs::path resolved = fs::weakly_canonical(path, ec);
  return ec || resolved.empty() ? path : resolved.string();
}

namespace {
// A device, FIFO or socket: renaming a file over it would replace the node
// (as root, -o /dev/null once left a regular file there), so it is written.
void write_special_file(const std::string& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  if (!write_all(fd, contents)) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    throw InputError(fmt::format("cannot write {}: {}", path, reason));
  }
  if (::close(fd) != 0) throw InputError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}
}  // namespace

void write_file_atomically(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    write_special_file(path, contents);
    return;
  }
  const fs::path target(write_target(path));
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw InputError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write {}: {} ({})", path, what, reason));
  };
  if (!write_all(fd, contents)) fail("write failed");
  // mkstemp creates the file 0600; give it the permissions a plain open would (0666 minus the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) fail("chmod failed");
  if (::fsync(fd) != 0) fail("fsync failed");
  if (::close(fd) != 0) {
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write {}: close failed ({})", path, std::strerror(errno)));
  }
  if (std::rename(tmpl.c_str(), target.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write {}: {}", path, reason));
  }
}

std::string read_file(const std::string& path) { return util::read_file(path); }

}  // namespace softhat::io
