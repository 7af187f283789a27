// User errors with a source position. Every error in a graph or rule file
// is reported as `FILE:LINE:COL: error: MESSAGE` (docs/language.md); a
// DiagnosticError carries one or more such lines.
#pragma once

#include <fmt/format.h>

#include <compare>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace eqsat::ops {

// A source file's name, interned: every FileName of one name refers to the
// same stored string, so the location each node of a parsed file carries
// (a graph's terms, the shipped rules' patterns) is copied and compared
// without touching the name. Names live as long as the process (a process
// reads few files); making one from a string looks it up under a lock.
class FileName {
 public:
  // The empty name: no lookup (a default location is made for every node
  // of a pattern read from the shipped rules).
  FileName() : name_(&kEmpty) {}
  FileName(std::string_view name);  // implicit: a string names a file
  FileName(const std::string& name) : FileName(std::string_view(name)) {}
  FileName(const char* name) : FileName(std::string_view(name)) {}

  const std::string& str() const { return *name_; }
  operator const std::string&() const { return *name_; }
  bool empty() const { return name_->empty(); }

  friend bool operator==(const FileName& a, const FileName& b) { return a.name_ == b.name_; }
  friend std::strong_ordering operator<=>(const FileName& a, const FileName& b) {
    return a.str().compare(b.str()) <=> 0;
  }
  friend std::ostream& operator<<(std::ostream& out, const FileName& f) { return out << f.str(); }

 private:
  static const std::string kEmpty;  // the empty name's stored string
  const std::string* name_;
};

// A position in a source file; lines and columns count from 1. Line 0
// stands for the file as a whole, or for the node `node` of a model file
// (ONNX: "'proj' (MatMul)", its name or first output and its op type),
// which has no lines.
struct SourceLocation {
  SourceLocation() = default;
  SourceLocation(FileName file, int line = 0, int column = 0, FileName node = {})
      : file(file), line(line), column(column), node(node) {}

  FileName file;
  int line = 0;
  int column = 0;
  FileName node;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
  // `FILE:LINE:COL`, `FILE: node NODE`, or `FILE` for line 0.
  std::string text() const;
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

template <>
struct fmt::formatter<eqsat::ops::FileName> : fmt::formatter<std::string_view> {
  template <class Context>
  auto format(const eqsat::ops::FileName& f, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(f.str(), ctx);
  }
};
