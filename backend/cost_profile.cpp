#include "cost_profile.hpp"

#include "ops/diagnostic.hpp"
#include "ops/source_file.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace eqsat::backend {

namespace {

// The weights by their key in a profile.
struct Weight {
  const char* key;
  double CostWeights::*field;
};
constexpr Weight kWeights[] = {
    {"call_overhead_ns", &CostWeights::call_overhead_ns},
    {"ns_per_byte", &CostWeights::ns_per_byte},
    {"ns_per_flop", &CostWeights::ns_per_flop},
    {"ns_per_transcendental", &CostWeights::ns_per_transcendental},
    {"ns_per_pow", &CostWeights::ns_per_pow},
    {"ns_per_select", &CostWeights::ns_per_select},
    {"ns_per_gemm_flop", &CostWeights::ns_per_gemm_flop},
    {"scan_step_overhead_ns", &CostWeights::scan_step_overhead_ns},
};

// The start of read_source_file's messages, left out of ours.
constexpr std::string_view kCannotRead = "cannot read file: ";

}  // namespace

CostWeights load_cost_profile(const std::string& path) {
  std::string text;
  try {
    text = ops::read_source_file(path);  // the OS reason; a directory refused
  } catch (const ops::DiagnosticError& e) {
    std::string reason = e.diagnostics().front().message;
    if (reason.starts_with(kCannotRead)) reason.erase(0, kCannotRead.size());
    throw std::runtime_error(path + ": cannot read the cost profile: " + reason);
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not a cost profile: " + e.what());
  }
  if (!j.is_object()) throw std::runtime_error(path + ": not a cost profile: expected an object");
  CostWeights w;
  for (const Weight& weight : kWeights) {
    if (!j.contains(weight.key)) continue;
    const auto& v = j[weight.key];
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
      throw std::runtime_error(path + ": " + weight.key + " must be a positive number");
    w.*weight.field = v.get<double>();
  }
  return w;
}

std::string cost_profile_json(const CostWeights& weights, const std::string& machine) {
  nlohmann::ordered_json j;
  j["machine"] = machine;
  j["threads"] = std::thread::hardware_concurrency();
  for (const Weight& weight : kWeights) j[weight.key] = weights.*weight.field;
  return j.dump(2) + "\n";
}

std::string default_cost_profile_path() {
  if (const char* p = std::getenv("EQSAT_COST_PROFILE"); p && *p) return p;
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".config" / "eqsat" / "cost_profile.json").string();
  return "";
}

CostWeights default_cost_weights() {
  const std::string path = default_cost_profile_path();
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return CostWeights{};
  return load_cost_profile(path);
}

CostWeights cost_weights_for(const std::string& path) {
  return path.empty() ? default_cost_weights() : load_cost_profile(path);
}

}  // namespace eqsat::backend
