#include "loaded_files.hpp"

#include "sexpr.hpp"
#include "source_file.hpp"

#include <filesystem>

namespace eqsat::ops {

namespace {

void collect_loads(const SExpr& e, const std::string& base_dir, std::vector<std::string>& out) {
  if (!e.is_list()) return;
  if (e.head() == "load" && e.items.size() == 2 && e.items[1].kind == SExpr::Kind::String)
    out.push_back(load_path(base_dir, e.items[1].text));
  for (const SExpr& item : e.items) collect_loads(item, base_dir, out);
}

}  // namespace

std::string load_path(const std::string& base_dir, const std::string& path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? path : (std::filesystem::path(base_dir) / p).string();
}

std::vector<std::string> files_loaded_by(const std::string& graph_file) {
  std::vector<std::string> files;
  try {
    const std::string text = read_source_file(graph_file);
    // Every `(load ...)` spells the symbol: a file without the word loads
    // nothing and need not be parsed here as well as by the graph parser.
    if (text.find("load") == std::string::npos) return files;
    const std::string base_dir = std::filesystem::path(graph_file).parent_path().string();
    for (const SExpr& e : read_sexprs(text, graph_file)) collect_loads(e, base_dir, files);
  } catch (const DiagnosticError&) {
    return {};
  }
  return files;
}

}  // namespace eqsat::ops
