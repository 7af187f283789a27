// User errors with a source position. Every error in a graph or rule file
// is reported as `FILE:LINE:COL: error: MESSAGE` (docs/language.md); a
// DiagnosticError carries one or more such lines.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::ops {

// A position in a source file; lines and columns count from 1. Line 0
// stands for the file as a whole.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

// One located message.
struct Diagnostic {
  SourceLocation where;
  std::string message;
  // `FILE:LINE:COL: error: MESSAGE`, or `FILE: error: MESSAGE` for line 0
  std::string to_string() const;
};

// Thrown for bad user input; what() is every diagnostic, one per line.
class DiagnosticError : public std::runtime_error {
 public:
  explicit DiagnosticError(std::vector<Diagnostic> diagnostics);
  DiagnosticError(const SourceLocation& where, const std::string& message)
      : DiagnosticError(std::vector<Diagnostic>{{where, message}}) {}
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// `text` as a message quotes a user's name or string: whole up to 64
// bytes, else its first 48 (cut at a character boundary) and its length,
// `abc...(10485760 bytes)`, so that a huge name makes a short message.
std::string capped_quote(std::string_view text);

}  // namespace eqsat::ops
