#include "diagnostic.hpp"

#include <fmt/format.h>

namespace eqsat::ops {

std::string Diagnostic::to_string() const {
  if (where.line == 0) return fmt::format("{}: error: {}", where.file, message);
  return fmt::format("{}:{}:{}: error: {}", where.file, where.line, where.column, message);
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
