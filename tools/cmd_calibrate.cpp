// `eqsat calibrate [-o PROFILE.json]`: measures the cost model's weights on
// this machine (backend/calibrate.hpp) and writes them as a cost profile,
// by default where `optimize` and `run` look for it
// ($EQSAT_COST_PROFILE, else ~/.config/eqsat/cost_profile.json).
#include "command.hpp"

#include "backend/calibrate.hpp"
#include "backend/cost_profile.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

namespace eqsat::tools {

namespace {

// "AMD EPYC, 2 cores": the CPU model from /proc/cpuinfo and the core count.
std::string machine_description() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  return fmt::format("{}, {} cores", model, std::thread::hardware_concurrency());
}

int run_calibrate(const std::string& out_option) {
  const std::string out = out_option.empty() ? backend::default_cost_profile_path() : out_option;
  if (out.empty()) {
    std::cerr << "error: no default profile location (HOME is not set); pass -o FILE\n";
    return UserError;
  }
  const backend::CostWeights w =
      backend::calibrate([](const std::string& line) { std::cout << line << "\n"; });
  std::error_code ec;
  const auto parent = std::filesystem::path(out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream f(out);
  f << backend::cost_profile_json(w, machine_description());
  f.close();
  if (!f) {
    std::cerr << fmt::format("error: {}: cannot write file\n", out);
    return UserError;
  }
  std::cout << fmt::format("wrote {}\n", out);
  return Success;
}

void add_calibrate_command(CLI::App& app, Action& action) {
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Measure the cost model's weights on this machine and write a cost profile");
  cmd->add_option("-o", *out,
                  "the profile to write (default: $EQSAT_COST_PROFILE, else "
                  "~/.config/eqsat/cost_profile.json)");
  cmd->callback([out, &action] { action = [out] { return run_calibrate(*out); }; });
}

const CommandRegistration kRegistration{"calibrate", add_calibrate_command};

}  // namespace

}  // namespace eqsat::tools
