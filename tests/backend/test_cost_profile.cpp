// Cost profiles: the shipped profile holds the built-in weights, a profile
// written by cost_profile_json reads back, and bad files are refused with
// the file's name.
#include "backend/cost_profile.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace eqsat;

namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

bool same_weights(const backend::CostWeights& a, const backend::CostWeights& b) {
  return a.call_overhead_ns == b.call_overhead_ns && a.ns_per_byte == b.ns_per_byte &&
         a.ns_per_flop == b.ns_per_flop && a.ns_per_transcendental == b.ns_per_transcendental &&
         a.ns_per_pow == b.ns_per_pow && a.ns_per_select == b.ns_per_select &&
         a.ns_per_gemm_flop == b.ns_per_gemm_flop &&
         a.scan_step_overhead_ns == b.scan_step_overhead_ns;
}

}  // namespace

TEST_CASE("the shipped cost profile holds the built-in weights") {
  const auto shipped = backend::load_cost_profile(EQSAT_SOURCE_DIR "/backend/cost_profile.json");
  CHECK(same_weights(shipped, backend::CostWeights{}));
}

TEST_CASE("a written profile reads back and missing keys keep their defaults") {
  backend::CostWeights w;
  w.ns_per_byte = 0.125;
  w.scan_step_overhead_ns = 33;
  const std::string path =
      temp_file("eqsat_profile_roundtrip.json", backend::cost_profile_json(w, "test machine"));
  CHECK(same_weights(backend::load_cost_profile(path), w));
  const std::string partial = temp_file("eqsat_profile_partial.json", R"({"ns_per_flop": 2})");
  backend::CostWeights want;
  want.ns_per_flop = 2;
  CHECK(same_weights(backend::load_cost_profile(partial), want));
  std::remove(path.c_str());
  std::remove(partial.c_str());
}

TEST_CASE("unreadable and invalid profiles are errors naming the file") {
  const std::string bad_json = temp_file("eqsat_profile_bad.json", "{not json");
  const std::string negative = temp_file("eqsat_profile_neg.json", R"({"ns_per_byte": -1})");
  CHECK_THROWS_WITH(backend::load_cost_profile("/nonexistent/p.json"),
                    "/nonexistent/p.json: cannot read the cost profile: No such file or "
                    "directory");
  CHECK_THROWS_WITH(backend::load_cost_profile("/"),
                    "/: cannot read the cost profile: it is a directory");
  CHECK_THROWS_WITH(backend::load_cost_profile(bad_json),
                    Catch::Matchers::StartsWith(bad_json + ": not a cost profile"));
  CHECK_THROWS_WITH(backend::load_cost_profile(negative),
                    negative + ": ns_per_byte must be a positive number");
  std::remove(bad_json.c_str());
  std::remove(negative.c_str());
}
