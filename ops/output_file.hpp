// Writing a user's output file so that nothing is lost: the data goes to a
// temporary file next to the target, which is renamed over it only once
// every byte is written. A failure leaves the old file (if any) untouched
// and says why, with the OS reason (`No space left on device`).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace eqsat::ops {

// Writes the concatenation of `parts` to `path` atomically. Throws
// DiagnosticError `PATH: error: cannot write file: REASON`.
void write_file_atomically(const std::string& path, std::initializer_list<std::string_view> parts);

}  // namespace eqsat::ops
