// Reading a user's text file (a graph, a rule file) whole, with the errors
// a user can act on: the OS reason when it cannot be opened (`No such file
// or directory`), a directory refused, and a size limit so that a device
// such as /dev/zero or a huge file is refused instead of filling memory.
#pragma once

#include <cstddef>
#include <string>

namespace eqsat::ops {

// The largest source file read_source_file accepts by default (64 MiB).
inline constexpr std::size_t kMaxSourceBytes = std::size_t{64} << 20;

// The whole contents of `path`. Throws DiagnosticError `FILE: error:
// cannot read file: REASON` when it cannot be opened or read, when it is a
// directory, or when it holds more than `max_bytes`.
std::string read_source_file(const std::string& path, std::size_t max_bytes = kMaxSourceBytes);

// `cannot read file: REASON` for the current errno (or a directory),
// the message read_source_file and the .npy reader give.
std::string cannot_read_message(const std::string& path);

}  // namespace eqsat::ops
