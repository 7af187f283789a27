#include "run_inputs.hpp"

#include "cli_checks.hpp"
#include "input_value.hpp"

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

// The value an --input spec's text gives the input `name` of `type`: a
// value written on the command line, or the .npy file it names.
ops::Array given_value(const std::string& name, const std::string& text,
                       const ops::TensorType& type) {
  return looks_like_value(text) ? parse_input_value(name, text, type.dtype) : ops::read_npy(text);
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
  // Values written on the command line are small: read at once.
  std::vector<ops::TensorType> types;
  std::vector<std::optional<ops::Array>> written(graph.inputs.size());
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const auto& name = graph.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name);
    if (files[i] && looks_like_value(*files[i])) {
      written[i] = parse_input_value(name, *files[i], graph.inputs[i]->tensor_type().dtype);
      types.push_back(written[i]->type());
      continue;
    }
    if (files[i]) {
      types.push_back(ops::read_npy_type(*files[i]));
      continue;
    }
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
    inputs.push_back(written[i] ? *written[i]
                     : files[i] ? ops::read_npy(*files[i])
                                : random_array(graph.inputs[i]->tensor_type(), rng));
  return inputs;
}

void InputFlags::add_to(CLI::App& cmd) {
  cmd.add_option(
         "--input", specs,
         "an input value: NAME=FILE.npy, or NAME=VALUE as 0.5 or [[1,2],[3,4]] (repeatable)")
      ->allow_extra_args(false)
      ->check([](const std::string& s) {
        return s.find('=') == std::string::npos
                   ? std::string("expected NAME=FILE.npy or NAME=VALUE")
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

std::vector<std::optional<ops::Array>> InputFlags::given(const ops::Graph& graph) const {
  std::vector<std::optional<ops::Array>> values(graph.inputs.size());
  for (const std::string& spec : specs) {
    const auto eq = spec.find('=');
    for (std::size_t i = 0; i < graph.inputs.size(); ++i)
      if (graph.inputs[i]->attrs().get<std::string>(ops::AttrKey::Name) == spec.substr(0, eq))
        values[i] =
            given_value(spec.substr(0, eq), spec.substr(eq + 1), graph.inputs[i]->tensor_type());
  }
  return values;
}

void InputFlags::add_files_to(std::vector<InputFile>& inputs) const {
  for (const std::string& spec : specs)
    if (!looks_like_value(spec.substr(spec.find('=') + 1)))
      inputs.push_back({"an --input file", spec.substr(spec.find('=') + 1)});
}

}  // namespace eqsat::tools
