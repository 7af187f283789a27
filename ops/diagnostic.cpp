#include "diagnostic.hpp"

#include <absl/container/node_hash_set.h>

#include <mutex>

namespace eqsat::ops {

namespace {

// The interned names (a node set: its strings never move).
struct FileNames {
  std::mutex mutex;
  absl::node_hash_set<std::string> names;
};

FileNames& file_names() {
  static FileNames* table = new FileNames;  // never destroyed: names outlive every static
  return *table;
}

const std::string* intern(std::string_view name) {
  FileNames& t = file_names();
  const std::lock_guard lock(t.mutex);
  return &*t.names.emplace(name).first;
}

}  // namespace

// Constant-initialized (an empty string's constructor is constexpr), so a
// static's FileName made before this file's statics still finds it.
const std::string FileName::kEmpty;

FileName::FileName(std::string_view name) : name_(name.empty() ? &kEmpty : intern(name)) {}

std::string SourceLocation::text() const {
  if (line != 0) return fmt::format("{}:{}:{}", file, line, column);
  if (!node.empty()) return fmt::format("{}: node {}", file, node);
  return file.str();
}

std::string Diagnostic::to_string() const {
  return fmt::format("{}: error: {}", where.text(), message);
}

namespace {
std::string join(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) {
    if (!s.empty()) s.push_back('\n');
    s.append(d.to_string());
  }
  return s;
}
}  // namespace

DiagnosticError::DiagnosticError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::string capped_quote(std::string_view text) {
  if (text.size() <= 64) return std::string(text);
  std::size_t cut = 48;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}...({} bytes)", text.substr(0, cut), text.size());
}

}  // namespace eqsat::ops
