#include "run_inputs.hpp"

#include "cli_checks.hpp"

#include "ops/npy.hpp"

#include <fmt/format.h>

#include <iostream>
#include <random>

namespace eqsat::tools {

namespace {

// The type a missing input gets from --random: unknown dimensions are 8.
ops::TensorType random_type(const ops::TensorType& type) {
  ops::TensorType t = type;
  for (auto& d : t.dims)
    if (d == ops::kUnknownDim) d = 8;
  return t;
}

// A reproducible array of `type` (unknown dims 8) drawn from `rng`.
ops::Array random_array(const ops::TensorType& type, std::mt19937_64& rng) {
  ops::Array a(type.dtype, random_type(type).dims);
  ops::visit_dtype(type.dtype, [&]<class T>(std::type_identity<T>) {
    T* p = a.data<T>();
    for (std::int64_t i = 0; i < a.size(); ++i) {
      const std::uint64_t r = rng();
      if constexpr (std::is_same_v<T, bool>)
        p[i] = (r >> 63) != 0;
      else if constexpr (std::is_integral_v<T>)
        p[i] = static_cast<T>(r >> 62);
      else
        p[i] = static_cast<T>(static_cast<double>(r >> 11) * 0x1.0p-53);
    }
  });
  return a;
}

}  // namespace

std::optional<std::vector<ops::Array>> gather_inputs(const ops::Graph& graph,
                                                     const std::vector<std::string>& specs,
                                                     std::optional<std::uint64_t> seed,
                                                     const TypesCheck& before_allocating) {
  std::vector<std::optional<std::string>> files(graph.inputs.size());
  auto input_index = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < graph.inputs.size(); ++i)
      if (graph.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name) == name) return i;
    return std::nullopt;
  };
  for (const std::string& spec : specs) {
    const auto eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    const auto i = input_index(name);
    if (!i) {
      std::cerr << fmt::format("error: --input {}: the graph has no input named {}\n", spec, name);
      return std::nullopt;
    }
    files[*i] = spec.substr(eq + 1);
  }
  // Every input's type first (file headers only), so that the caller can
  // plan the memory before anything is allocated.
  std::vector<ops::TensorType> types;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    if (files[i]) {
      types.push_back(ops::read_npy_type(*files[i]));
      continue;
    }
    const auto& name = graph.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name);
    if (!seed) {
      std::cerr << fmt::format(
          "error: input {} has no value; pass --input {}=FILE.npy or --random SEED\n", name, name);
      return std::nullopt;
    }
    types.push_back(random_type(graph.inputs[i]->tensor_type()));
  }
  if (before_allocating) before_allocating(types);
  std::mt19937_64 rng(seed.value_or(0));
  std::vector<ops::Array> inputs;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i)
    inputs.push_back(files[i] ? ops::read_npy(*files[i])
                              : random_array(graph.inputs[i]->tensor_type(), rng));
  return inputs;
}

void InputFlags::add_to(CLI::App& cmd) {
  cmd.add_option("--input", specs, "an input value: NAME=FILE.npy (repeatable)")
      ->allow_extra_args(false)
      ->check([](const std::string& s) {
        return s.find('=') == std::string::npos ? std::string("expected NAME=FILE.npy")
                                                : std::string();
      });
  cmd.add_option("--random", seed,
                 "fill missing inputs with reproducible random values (unknown dims: 8)")
      ->check(seed_number());
  // A name given twice is a usage error, not a silent choice of the last.
  cmd.parse_complete_callback([this] {
    for (std::size_t i = 0; i < specs.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (specs[i].substr(0, specs[i].find('=')) == specs[j].substr(0, specs[j].find('=')))
          throw CLI::ValidationError(
              "--input", fmt::format("{} gives input {} a second value (first: --input {})",
                                     specs[i], specs[i].substr(0, specs[i].find('=')), specs[j]));
  });
}

void InputFlags::add_files_to(std::vector<InputFile>& inputs) const {
  for (const std::string& spec : specs)
    inputs.push_back({"an --input file", spec.substr(spec.find('=') + 1)});
}

}  // namespace eqsat::tools
