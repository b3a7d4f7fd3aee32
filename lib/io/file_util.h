// Files written whole or not at all, and files read whole.
#pragma once

#include <string>
#include <string_view>

namespace softhat::io {

// Writes `contents` to a temporary file in the same folder, then renames it
// over `path`; on any failure removes the temporary file and throws InputError.
// A symbolic link is written through: its target is replaced, the link stays.
// A path that names a device, FIFO or socket (say -o /dev/stdout) cannot be
// replaced: it is opened and written to, in one go, and a failed write (say
// /dev/full) is an InputError.
void write_file_atomically(const std::string& path, std::string_view contents);
// The path a write replaces: a symbolic link's target (resolved), else `path`.
std::string write_target(const std::string& path);
// Writes all of `contents` to fd (EINTR retried); false with errno set on
// failure (ENOSPC for a write that takes no byte).
bool write_all(int fd, std::string_view contents);
// Throws InputError if the file cannot be read.
std::string read_file(const std::string& path);

}  // namespace softhat::io
