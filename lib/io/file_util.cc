#include "io/file_util.h"

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

void write_file_atomically(const std::string& path, std::string_view contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
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
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t k = ::write(fd, contents.data() + done, contents.size() - done);
    if (k < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    done += static_cast<std::size_t>(k);
  }
  // mkstemp creates the file 0600; give it the permissions a plain open would (0666 minus the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) fail("chmod failed");
  if (::fsync(fd) != 0) fail("fsync failed");
  if (::close(fd) != 0) {
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write {}: close failed ({})", path, std::strerror(errno)));
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write {}: {}", path, reason));
  }
}

std::string read_file(const std::string& path) { return util::read_file(path); }

}  // namespace softhat::io
