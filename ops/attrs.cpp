#include "attrs.hpp"

#include "hash.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>

namespace eqsat::ops {

namespace {
constexpr std::array kKeyNames = {
#define EQSAT_ATTR_NAME(id, text) std::string_view(text),
    EQSAT_ATTR_KEYS(EQSAT_ATTR_NAME)
#undef EQSAT_ATTR_NAME
};

std::size_t hash_ints(std::size_t h, const IntList& v) {
  for (auto x : v) h = hash_combine(h, std::hash<std::int64_t>{}(x));
  return hash_combine(h, v.size());
}

struct ValueHash {
  std::size_t operator()(bool b) const { return b ? 1 : 2; }
  std::size_t operator()(std::int64_t i) const { return std::hash<std::int64_t>{}(i); }
  std::size_t operator()(double d) const { return std::hash<double>{}(d); }
  std::size_t operator()(const std::string& s) const { return std::hash<std::string>{}(s); }
  std::size_t operator()(DType d) const { return static_cast<std::size_t>(d) + 17; }
  std::size_t operator()(const IntList& v) const { return hash_ints(3, v); }
  std::size_t operator()(const TensorType& t) const {
    return hash_ints(static_cast<std::size_t>(t.dtype), t.dims);
  }
  std::size_t operator()(const std::vector<TensorType>& types) const {
    std::size_t h = 5;
    for (const auto& t : types) h = hash_combine(h, (*this)(t));
    return h;
  }
  std::size_t operator()(const ScanSpec& s) const {
    std::size_t h = 7;
    for (const auto& taps : s.sequence_taps) h = hash_ints(h, taps);
    h = hash_combine(h, 11);
    for (const auto& taps : s.mitsot_taps) h = hash_ints(h, taps);
    h = hash_combine(h, static_cast<std::size_t>(s.num_sitsot));
    h = hash_combine(h, static_cast<std::size_t>(s.num_nitsot));
    h = hash_combine(h, static_cast<std::size_t>(s.num_nonsequences));
    h = hash_combine(h, s.has_n_steps * 2 + s.until);
    return hash_ints(h, s.keep);
  }
  std::size_t operator()(const Array& a) const { return a.hash(); }
};
}  // namespace

std::string_view attr_key_name(AttrKey key) {
  return kKeyNames[static_cast<int>(key)];
}

std::optional<AttrKey> parse_attr_key(std::string_view name) {
  for (std::size_t i = 0; i < kKeyNames.size(); ++i)
    if (kKeyNames[i] == name) return static_cast<AttrKey>(i);
  return std::nullopt;
}

bool attr_value_equal(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&]<class T>(const T& x) {
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, Array>) {
          return x.same_value(y);
        } else if constexpr (std::is_same_v<T, double>) {
          return std::memcmp(&x, &y, sizeof y) == 0;  // bitwise, so NaN interns too
        } else {
          return x == y;
        }
      },
      a);
}

std::size_t attr_value_hash(const AttrValue& v) {
  return hash_combine(v.index(), std::visit(ValueHash{}, v));
}

Attrs::Attrs(std::initializer_list<Entry> entries) {
  for (const auto& [key, value] : entries) set(key, value);
}

Attrs& Attrs::set(AttrKey key, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, AttrKey k) { return e.first < k; });
  if (it != entries_.end() && it->first == key)
    it->second = std::move(value);
  else
    entries_.insert(it, {key, std::move(value)});
  return *this;
}

void Attrs::erase(AttrKey key) {
  std::erase_if(entries_, [&](const Entry& e) { return e.first == key; });
}

const AttrValue* Attrs::find(AttrKey key) const {
  for (const auto& e : entries_)
    if (e.first == key) return &e.second;
  return nullptr;
}

std::size_t Attrs::hash() const {
  std::size_t h = entries_.size();
  for (const auto& [key, value] : entries_)
    h = hash_combine(hash_combine(h, static_cast<std::size_t>(key)), attr_value_hash(value));
  return h;
}

bool operator==(const Attrs& a, const Attrs& b) {
  return std::equal(a.entries_.begin(), a.entries_.end(), b.entries_.begin(), b.entries_.end(),
                    [](const Attrs::Entry& x, const Attrs::Entry& y) {
                      return x.first == y.first && attr_value_equal(x.second, y.second);
                    });
}

}  // namespace eqsat::ops
