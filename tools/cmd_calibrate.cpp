// `eqsat calibrate [-o PROFILE.json]`: measures the cost model's weights on
// this machine (backend/calibrate.hpp) and writes them as a cost profile,
// by default where `optimize` and `run` look for it
// ($EQSAT_COST_PROFILE, else ~/.config/eqsat/cost_profile.json, whose
// directory is created). The path is checked before the measurements and
// written atomically.
#include "command.hpp"
#include "output_paths.hpp"

#include "backend/calibrate.hpp"
#include "backend/cost_profile.hpp"
#include "ops/output_file.hpp"

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
  // The default location's directory is created; -o's must exist, as
  // every other output's.
  if (out_option.empty()) {
    const auto parent = std::filesystem::path(out).parent_path();
    if (!parent.empty()) prepare_output_dir(parent.string(), "the default profile's directory");
  }
  check_outputs({{out_option.empty() ? "the default profile" : "-o", out}}, {});
  const backend::CostWeights w =
      backend::calibrate([](const std::string& line) { std::cout << line << "\n"; });
  ops::write_file_atomically(out, {backend::cost_profile_json(w, machine_description())});
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
  on_run_reporting_user_errors(*cmd, action, [out] { return run_calibrate(*out); });
}

const CommandRegistration kCalibrateRegistration{"calibrate", add_calibrate_command};

}  // namespace

}  // namespace eqsat::tools
