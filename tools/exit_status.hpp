// What the program says and returns for an exception no command caught
// (docs/language.md, "Exit status"): running out of memory is the user's
// resource (exit 1, with the limits to set); anything else is a bug in
// eqsat (exit 3, `eqsat: internal error: ...`), never confused with bad
// input (1) or bad usage (2).
#pragma once

#include <exception>
#include <ostream>

namespace eqsat::tools {

// Prints the message for `error` on `err` and returns the exit status.
int report_escaped_error(std::exception_ptr error, std::ostream& err);

}  // namespace eqsat::tools
