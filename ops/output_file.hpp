// Writing a user's output file so that nothing is lost: the data goes to a
// temporary file next to the target, which is renamed over it only once
// every byte is written. A failure leaves the old file (if any) untouched
// and says why, with the OS reason (`No space left on device`).
//
// A special file named as the output (`/dev/null`, `/dev/stdout`, a named
// pipe) is written through as a stream, never renamed over: the device
// node or pipe stays what it is, as root too. A pipe no process reads and
// a socket are refused.
//
// The temporary is `.NAME.tmp-PID-N` (NAME cut so that the whole fits in
// 255 bytes). One left by a killed run (its process is gone) is removed by
// the next write of the same file; another process's live one never is.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace eqsat::ops {

// Writes the concatenation of `parts` to `path` atomically. Throws
// DiagnosticError `PATH: error: cannot write file: REASON`.
void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> parts);

// The hidden temporary file write_file_atomically writes `path` through,
// for process `pid` and counter `n`.
std::string temporary_path_for(const std::string& path, long pid, unsigned n);

// Removes the temporaries of `path` (named as by temporary_path_for) whose
// process no longer runs; returns how many were removed.
int remove_stale_temporaries(const std::string& path);

}  // namespace eqsat::ops
