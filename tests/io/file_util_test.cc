// Output files: written whole through a temporary file and a rename, except
// where a rename would replace what the path names: a symbolic link is
// written through (the link stays), a FIFO or device is written to.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "io/file_util.h"
#include "temp_path.h"
#include "util/error.h"

using namespace softhat;
namespace fs = std::filesystem;

TEST_CASE("write_file_atomically: files, links written through, FIFOs and devices written to", "[io][files]") {
  const fs::path dir = test::temp_path("file-util");
  fs::remove_all(dir);
  fs::create_directories(dir);

  // A plain file, replaced whole; no temporary file is left.
  const fs::path file = dir / "out.txt";
  io::write_file_atomically(file.string(), "first");
  io::write_file_atomically(file.string(), "second");
  CHECK(io::read_file(file.string()) == "second");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

  // A link to it: the target gets the contents, the link is still a link.
  const fs::path link = dir / "link.txt";
  fs::create_symlink(file.filename(), link);
  io::write_file_atomically(link.string(), "through the link");
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(io::read_file(file.string()) == "through the link");

  // A FIFO: its reader gets the bytes, and the FIFO is still a FIFO. The
  // read end is opened first (without blocking), so the write finds a reader
  // and nothing waits, whatever the code under test does.
  const fs::path fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rd >= 0);
  io::write_file_atomically(fifo.string(), "down the pipe");
  char buf[64] = {};
  const ssize_t k = ::read(rd, buf, sizeof buf);
  ::close(rd);
  CHECK(std::string(buf, k > 0 ? static_cast<std::size_t>(k) : 0) == "down the pipe");
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));

  // A full device: a clear error, and the device is still a device. Not as
  // root: there a regression would replace the machine's /dev/full with a
  // file (the FIFO above takes the same path through the code).
  if (::geteuid() != 0 && fs::exists("/dev/full")) {
    CHECK_THROWS_WITH(io::write_file_atomically("/dev/full", "x"), "cannot write /dev/full: No space left on device");
    CHECK(fs::is_character_file(fs::symlink_status("/dev/full")));
  }
  // A folder cannot be written.
  CHECK_THROWS_AS(io::write_file_atomically(dir.string(), "x"), InputError);
  CHECK(fs::is_directory(dir));
  fs::remove_all(dir);
}
