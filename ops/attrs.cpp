#include "attrs.hpp"

#include "attr_schema.hpp"
#include "hash.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <utility>

#include <boost/hana.hpp>

namespace eqsat::ops {

namespace {

namespace hana = boost::hana;

constexpr std::size_t kNumKeys = kNumAttrKeys;

template <std::size_t I>
constexpr std::string_view member_name() {
  return hana::to<const char*>(hana::first(hana::at_c<I>(hana::accessors<AttrSchema>())));
}

// The number of members of aggregate T: the most initializers T{...} takes.
struct AnyMember {
  template <class T>
  operator T() const;
};
template <class T, class... Fields>
constexpr std::size_t aggregate_size() {
  if constexpr (requires { T{Fields{}..., AnyMember{}}; })
    return aggregate_size<T, Fields..., AnyMember>();
  else
    return sizeof...(Fields);
}
template <class T>
constexpr bool adapts_every_member() {
  return aggregate_size<T>() == decltype(hana::length(hana::accessors<T>()))::value;
}
static_assert(adapts_every_member<ScanSpec>() && adapts_every_member<TensorType>(),
              "BOOST_HANA_ADAPT_STRUCT in attrs.hpp must list every member");

// Keywords from member names: `n_steps` is `n-steps`, `inline_` is `inline`.
template <std::size_t... I>
std::array<std::string, kNumKeys> keywords(std::index_sequence<I...>) {
  auto keyword = [](std::string_view member) {
    std::string k(member.substr(0, member.find_last_not_of('_') + 1));
    std::ranges::replace(k, '_', '-');
    return k;
  };
  return {keyword(member_name<I>())...};
}
const std::array<std::string, kNumKeys>& key_names() {
  static const auto names = keywords(std::make_index_sequence<kNumKeys>());
  return names;
}

template <class T>
constexpr bool is_vector = false;
template <class T>
constexpr bool is_vector<std::vector<T>> = true;

// A hash of any attribute value, derived from its type: a Hana struct
// combines its members, a vector its elements.
template <class T>
std::size_t hash_value(const T& x) {
  if constexpr (hana::Struct<T>::value) {
    std::size_t h = 7;
    hana::for_each(hana::members(x), [&](const auto& m) { h = hash_combine(h, hash_value(m)); });
    return h;
  } else if constexpr (is_vector<T>) {
    std::size_t h = x.size();
    for (const auto& e : x) h = hash_combine(h, hash_value(e));
    return h;
  } else if constexpr (std::is_same_v<T, Array>) {
    return x.hash();
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<std::size_t>(x) + 17;
  } else {
    return std::hash<T>{}(x);
  }
}
}  // namespace

std::string_view attr_key_name(AttrKey key) {
  return key_names()[static_cast<int>(key)];
}

std::optional<AttrKey> parse_attr_key(std::string_view name) {
  for (std::size_t i = 0; i < kNumKeys; ++i)
    if (key_names()[i] == name) return static_cast<AttrKey>(i);
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
  return hash_combine(v.index(), std::visit([](const auto& x) { return hash_value(x); }, v));
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
