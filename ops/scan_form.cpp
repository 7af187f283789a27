#include "scan_form.hpp"

#include "op.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <unordered_set>

namespace eqsat::ops {

namespace {

// The largest tap magnitude accepted.
constexpr std::int64_t kMaxTap = std::int64_t{1} << 62;

[[noreturn]] void fail(const SExpr& e, const std::string& message) {
  throw DiagnosticError(e.where, message);
}

// `EXPR` or `(EXPR :taps (K...))`. An op application with attributes,
// such as `(ones :shape (3))`, is an EXPR.
SlotEntry slot_entry(const SExpr& entry, bool sequence) {
  SlotEntry s{&entry, {0}};
  const auto head = entry.head();
  const bool head_is_op = !head.empty() && (parse_op(head) || head == "const" || head == "load" ||
                                            head == "get" || head == "call" || head == "scan");
  const bool with_taps = entry.is_list() && entry.items.size() >= 2 &&
                         entry.items[1].is_keyword() &&
                         (entry.items[1].text == "taps" || !head_is_op);
  if (!with_taps) {
    if (!sequence)
      fail(entry, fmt::format("a mit-sot is written (INIT :taps (K...)) with negative taps, "
                              "got {}",
                              entry.describe()));
    return s;
  }
  const SExpr& key = entry.items[1];
  if (key.text != "taps") fail(key, fmt::format("a scan slot has no attribute :{}", key.text));
  if (entry.items.size() != 3) fail(entry, "a slot with taps is written (EXPR :taps (K...))");
  const SExpr& taps = entry.items[2];
  s.expr = &entry.items[0];
  s.taps.clear();
  if (taps.is_list())
    for (const SExpr& t : taps.items) {
      if (t.kind != SExpr::Kind::Int)
        fail(t, fmt::format("a tap is an integer, got {}", t.describe()));
      // Taps are negated and added to step counts: past ±2^62 that overflows.
      if (t.int_value < -kMaxTap || t.int_value > kMaxTap)
        fail(t, fmt::format("a tap must be between -{} and {} (2^62), got {}", kMaxTap, kMaxTap,
                            t.int_value));
      s.taps.push_back(t.int_value);
    }
  if (!taps.is_list() || s.taps.empty())
    fail(taps, fmt::format(":taps expects a non-empty list of integers, got {}", taps.describe()));
  IntList sorted = s.taps;
  std::ranges::sort(sorted);
  const bool distinct = std::ranges::adjacent_find(sorted) == sorted.end();
  if (sequence && (!distinct || sorted.front() < 0))
    fail(taps,
         fmt::format("sequence taps must be distinct and >= 0, got ({})", fmt::join(s.taps, " ")));
  if (!sequence && (!distinct || sorted.back() >= 0))
    fail(taps,
         fmt::format("mit-sot taps must be distinct and < 0, got ({})", fmt::join(s.taps, " ")));
  s.rank.clear();
  for (std::int64_t t : s.taps)
    s.rank.push_back(
        static_cast<std::size_t>(std::ranges::lower_bound(sorted, t) - sorted.begin()));
  s.taps = std::move(sorted);
  return s;
}

const std::vector<SExpr>& slot_list(const SExpr& v, std::string_view key) {
  if (!v.is_list()) fail(v, fmt::format(":{} expects a list, got {}", key, v.describe()));
  return v.items;
}

// The value `v` of keyword `key` (one of the scan's keywords) into `form`.
void read_scan_keyword(ScanForm& form, const std::string& key, const SExpr& v) {
  ScanSpec& spec = form.spec;
  if (key == "n-steps") {
    form.n_steps = &v;
  } else if (key == "sequences") {
    for (const SExpr& entry : slot_list(v, key)) form.sequences.push_back(slot_entry(entry, true));
  } else if (key == "mit-sot") {
    for (const SExpr& entry : slot_list(v, key)) form.mitsots.push_back(slot_entry(entry, false));
  } else if (key == "sit-sot") {
    for (const SExpr& entry : slot_list(v, key)) form.sitsots.push_back(&entry);
  } else if (key == "non-sequences") {
    for (const SExpr& entry : slot_list(v, key)) form.nonsequences.push_back(&entry);
  } else if (key == "nit-sot") {
    if (v.kind != SExpr::Kind::Int || v.int_value < 0)
      fail(v, fmt::format(":nit-sot expects a count >= 0, got {}", v.describe()));
    spec.num_nitsot = v.int_value;
  } else if (key == "until") {
    if (v.kind != SExpr::Kind::Bool)
      fail(v, fmt::format(":until expects true or false, got {}", v.describe()));
    spec.until = v.bool_value;
  } else {  // keep
    form.keep_where = &v;
    for (const SExpr& k : slot_list(v, key)) {
      if (k.is_symbol("all"))
        spec.keep.push_back(0);
      else if (k.kind == SExpr::Kind::Int && k.int_value >= 1)
        spec.keep.push_back(k.int_value);
      else
        fail(k, fmt::format(":keep entries are `all` or an integer >= 1, got {}", k.describe()));
    }
  }
}

}  // namespace

ScanForm read_scan_form(const SExpr& e) {
  static const std::unordered_set<std::string> kKeys = {
      "n-steps", "sequences", "mit-sot", "sit-sot", "nit-sot", "non-sequences", "until", "keep"};
  ScanForm form;
  std::unordered_set<std::string> seen;
  for (std::size_t i = 1; i < e.items.size(); ++i) {
    const SExpr& item = e.items[i];
    if (item.head() == "fn") {
      if (form.fn) fail(item, "scan takes one body");
      form.fn = &item;
      continue;
    }
    if (!item.is_keyword())
      fail(item, fmt::format("unexpected {} in scan; give its slots with keywords (:sequences, "
                             ":mit-sot, :sit-sot, :nit-sot, :non-sequences) and its body as "
                             "(fn (PARAMS...) OUTPUTS...)",
                             item.describe()));
    const std::string& key = item.text;
    if (!kKeys.contains(key)) fail(item, fmt::format("scan has no attribute :{}", key));
    if (!seen.insert(key).second) fail(item, fmt::format("duplicate attribute :{}", key));
    if (i + 1 >= e.items.size()) fail(item, fmt::format("missing value after :{}", key));
    read_scan_keyword(form, key, e.items[++i]);
  }
  if (!form.fn) fail(e, "scan needs a body (fn (PARAMS...) OUTPUTS...)");
  return form;
}

}  // namespace eqsat::ops
