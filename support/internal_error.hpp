// Internal errors: a broken invariant of eqsat itself, never something the
// user wrote (that is a DiagnosticError, a TypeError or a backend
// RuntimeError, with a location). As Halide's `internal_assert`:
//
//   EQSAT_ASSERT(kind == OpKind::Scan) << "a scan view of " << op_name(kind);
//
// throws InternalError("FILE:LINE: kind == OpKind::Scan failed: a scan view
// of add") when the condition is false; the context after `<<` is only
// evaluated then. The command line reports it as `eqsat: internal error:
// ...` (tools/main.cpp), the one place any uncaught exception ends up.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace eqsat {

// A bug in eqsat. A std::logic_error, so code documented to throw one for a
// misuse of its API may use EQSAT_ASSERT.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {

// Collects the context of a failed assertion; throws when the statement
// ends (its destructor), so that `<<` can add context first.
class AssertFailure {
 public:
  AssertFailure(const char* condition, const char* file, int line) {
    out_ << file << ":" << line << ": " << condition << " failed";
  }
  AssertFailure(const AssertFailure&) = delete;
  AssertFailure& operator=(const AssertFailure&) = delete;
  [[noreturn]] ~AssertFailure() noexcept(false) { throw InternalError(out_.str()); }

  template <class T>
  AssertFailure& operator<<(const T& context) {
    out_ << (first_ ? ": " : "") << context;
    first_ = false;
    return *this;
  }

 private:
  std::ostringstream out_;
  bool first_ = true;
};

// Turns the `<<` chain into void so the macro is one expression (no
// dangling else).
struct AssertVoidify {
  void operator&(const AssertFailure&) {}
};

}  // namespace detail
}  // namespace eqsat

#define EQSAT_ASSERT(cond)                    \
  (cond) ? static_cast<void>(0)               \
         : ::eqsat::detail::AssertVoidify() & \
               ::eqsat::detail::AssertFailure(#cond, __FILE__, __LINE__)
