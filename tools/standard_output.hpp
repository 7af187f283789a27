// A reader that goes away early: `eqsat print g.eg | head -1`, a FIFO named
// as `-o` whose reader closes it. By default SIGPIPE would kill eqsat
// mid-write (exit 141, a temporary left behind); the `eqsat` program
// ignores it instead, so that every failed write is an EPIPE reported like
// any other write error: `-o FIFO` as `cannot write file: Broken pipe`
// (ops/output_file.hpp), standard output by finish_standard_output. Only
// the program does this: Python, hosting the module, already ignores
// SIGPIPE and raises BrokenPipeError itself.
#pragma once

#include <ostream>

namespace eqsat::tools {

// Makes a write to a pipe with no reader fail with EPIPE instead of
// killing the process (the disposition is inherited by nothing eqsat runs).
void ignore_broken_pipes();

// Flushes standard output once the command is done and returns its exit
// status: `status` when everything written reached it, else 1 (unless the
// command failed already) after `error: cannot write standard output:
// REASON` on `err` (the output would be silently cut short otherwise).
int finish_standard_output(int status, std::ostream& err);

}  // namespace eqsat::tools
