#include "value_names.hpp"

#include <cctype>

namespace eqsat::onnx {

std::string ValueNames::make(const std::string& onnx_name) {
  std::string name;
  for (char c : onnx_name) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    name.push_back(keep ? c : '_');
  }
  if (name.empty() || name == "true" || name == "false" ||
      std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '-' || name[0] == '.')
    name = "_" + name;
  std::string unique = name;
  for (int k = 2; taken_.count(unique); ++k) unique = name + "_" + std::to_string(k);
  taken_.insert(unique);
  return unique;
}

}  // namespace eqsat::onnx
