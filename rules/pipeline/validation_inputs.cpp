#include "rules/pipeline/validation_inputs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>

namespace eqsat::rules {

namespace {

// The length of an unknown dimension in set 0 (the largest any set gives it).
constexpr std::int64_t kOrdinaryLength = 3;

// An element of set k ≥ 1 that is an edge value, for a float type T.
template <class T>
T float_edge(std::mt19937_64& rng) {
  constexpr T kMax = std::numeric_limits<T>::max();
  constexpr T kInf = std::numeric_limits<T>::infinity();
  const T edges[] = {T(0),
                     T(-0.0),
                     T(1),
                     T(-1),
                     T(1000),
                     T(-1000),
                     kMax,
                     -kMax,
                     kInf,
                     -kInf,
                     std::numeric_limits<T>::quiet_NaN()};
  return edges[std::uniform_int_distribution<std::size_t>(0, std::size(edges) - 1)(rng)];
}

template <class T>
T int_edge(std::mt19937_64& rng) {
  const T edges[] = {T(0), T(1), T(-1), T(1000), T(-1000)};
  return edges[std::uniform_int_distribution<std::size_t>(0, std::size(edges) - 1)(rng)];
}

// The concrete dimensions input set k gives `declared`.
ops::Dims set_dims(const ops::Dims& declared, std::size_t k, std::mt19937_64& rng) {
  static constexpr std::int64_t kByMode[] = {1, 0, kOrdinaryLength};
  ops::Dims dims = declared;
  for (auto& d : dims) {
    if (d != ops::kUnknownDim) continue;
    d = k == 0 ? kOrdinaryLength : kByMode[(k - 1) % 3];
    if (k >= 3 && std::uniform_int_distribution<int>(0, 3)(rng) == 0) d = 1;
  }
  return dims;
}

ops::Array draw(const ops::TensorType& type, std::size_t k, std::mt19937_64& rng) {
  ops::Array a(type.dtype, set_dims(type.dims, k, rng));
  ops::visit_dtype(type.dtype, [&]<class T>(std::type_identity<T>) {
    T* p = a.data<T>();
    for (std::int64_t i = 0; i < a.size(); ++i) {
      const bool edge = k > 0 && std::uniform_int_distribution<int>(0, 2)(rng) == 0;
      if constexpr (std::is_same_v<T, bool>) {
        p[i] = (rng() >> 63) != 0;
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = edge ? int_edge<T>(rng)
                    : static_cast<T>(std::uniform_int_distribution<int>(-3, 3)(rng));
      } else {
        p[i] = edge ? float_edge<T>(rng)
                    : static_cast<T>(std::uniform_real_distribution<double>(-2, 2)(rng));
      }
    }
  });
  return a;
}

}  // namespace

ValidationInputs::ValidationInputs(const ops::Graph& graph,
                                   std::vector<std::optional<ops::Array>> fixed, std::uint64_t seed)
    : inputs_(graph.inputs), fixed_(std::move(fixed)), seed_(seed) {
  fixed_.resize(inputs_.size());
}

std::vector<ops::Array> ValidationInputs::input_set(std::size_t k) const {
  std::mt19937_64 rng(seed_ * 0x9E3779B97F4A7C15ULL + k);
  std::vector<ops::Array> set;
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    set.push_back(fixed_[i] ? *fixed_[i] : draw(inputs_[i]->tensor_type(), k, rng));
  return set;
}

std::vector<ops::TensorType> ValidationInputs::largest_types() const {
  std::vector<ops::TensorType> types;
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (fixed_[i]) {
      types.push_back(fixed_[i]->type());
      continue;
    }
    ops::TensorType t = inputs_[i]->tensor_type();
    for (auto& d : t.dims)
      if (d == ops::kUnknownDim) d = kOrdinaryLength;
    types.push_back(t);
  }
  return types;
}

bool ValidationInputs::random() const {
  for (const auto& f : fixed_)
    if (!f) return true;
  return false;
}

std::string ValidationInputs::describe(const std::vector<ops::Array>& set) const {
  std::string text;
  for (std::size_t i = 0; i < set.size() && i < inputs_.size(); ++i) {
    if (!text.empty()) text += "; ";
    const ops::Array& a = set[i];
    text += fmt::format("{} = {} [", inputs_[i]->attrs().get<std::string>(ops::AttrKey::Name),
                        ops::to_string(a.type()));
    for (std::int64_t e = 0; e < a.size() && e < 8; ++e)
      text += fmt::format("{}{:.6g}", e ? " " : "", a.element(e));
    text += a.size() > 8 ? " ...]" : "]";
    if (fixed_[i]) text += " (given)";
  }
  return text.empty() ? "no inputs" : text;
}

}  // namespace eqsat::rules
