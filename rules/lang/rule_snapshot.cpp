#include "rules/lang/rule_snapshot.hpp"

#include "support/internal_error.hpp"

#include <cstring>
#include <type_traits>
#include <variant>

namespace eqsat::rules {

using ast::AttrPattern;
using ast::Condition;
using ast::ConditionArg;
using ast::Pattern;

namespace {

// Bytes of the format: version 1. A snapshot is made and read by one build,
// so numbers are in the machine's own order and enums by their value.
constexpr std::uint32_t kMagic = 0x31505345;  // "ESP1"

// FNV-1a over 8-byte words (the length first): a stable hash of the
// shipped texts, not a secret; a word at a time it costs microseconds.
void fnv1a(std::uint64_t& h, std::string_view bytes) {
  auto mix = [&h](std::uint64_t word) {
    h ^= word;
    h *= 0x100000001b3ULL;
  };
  mix(bytes.size());
  for (; bytes.size() >= 8; bytes.remove_prefix(8)) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data(), 8);
    mix(word);
  }
  std::uint64_t tail = 0;
  if (!bytes.empty()) std::memcpy(&tail, bytes.data(), bytes.size());
  mix(tail);
}

// Appends a program's parts; source files are written once and named by
// their index, since every node of a pattern carries its file.
class Writer {
 public:
  template <class T>
  void pod(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void size(std::size_t n) { pod(static_cast<std::uint32_t>(n)); }
  void text(std::string_view s) {
    size(s.size());
    out_.append(s);
  }
  void where(const ops::SourceLocation& w) {
    std::size_t i = 0;
    while (i < files_.size() && files_[i] != w.file) ++i;
    if (i == files_.size()) files_.push_back(w.file);
    size(i);
    pod(w.line);
    pod(w.column);
  }
  void attr_value(const ops::AttrValue& value) {
    size(value.index());
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, ops::IntList>) {
            size(v.size());
            for (std::int64_t x : v) pod(x);
          } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool> ||
                               std::is_same_v<T, ops::DType>) {
            pod(v);
          } else {
            EQSAT_ASSERT(false) << "a rule attribute holds a value without a literal form";
          }
        },
        value);
  }
  void pattern(const Pattern& p) {
    pod(p.kind);
    text(p.var);
    pod(p.number);
    pod(p.is_float);
    pod(p.op);
    size(p.children.size());
    for (const Pattern& c : p.children) pattern(c);
    size(p.attrs.size());
    for (const AttrPattern& a : p.attrs) {
      pod(a.key);
      text(a.var);
      attr_value(a.value);
      where(a.where);
    }
    where(p.where);
  }
  void condition(const Condition& c) {
    pod(c.predicate);
    size(c.args.size());
    for (const ConditionArg& a : c.args) {
      pod(a.kind);
      text(a.var);
      pod(a.int_value);
      pod(a.dtype);
    }
    where(c.where);
  }
  // The file names, then the body written so far.
  std::string finish(std::uint64_t hash) {
    Writer head;
    head.pod(kMagic);
    head.pod(hash);
    head.size(files_.size());
    for (const std::string& f : files_) head.text(f);
    return head.out_ + out_;
  }

 private:
  std::string out_;
  std::vector<std::string> files_;
};

// Reads what Writer wrote, in the same order.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T pod() {
    T v;
    EQSAT_ASSERT(in_.size() >= sizeof v) << "a rule snapshot ends early";
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return v;
  }
  std::size_t size() { return pod<std::uint32_t>(); }
  std::string text() {
    const std::size_t n = size();
    EQSAT_ASSERT(in_.size() >= n) << "a rule snapshot ends early";
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  void files() {
    for (std::size_t n = size(); n > 0; --n) files_.push_back(text());
  }
  ops::SourceLocation where() {
    const std::size_t i = size();
    EQSAT_ASSERT(i < files_.size()) << "a rule snapshot names file " << i;
    const int line = pod<int>();
    return {files_[i], line, pod<int>()};
  }
  template <std::size_t I = 0>
  ops::AttrValue attr_value(std::size_t index) {
    if constexpr (I == std::variant_size_v<ops::AttrValue>) {
      EQSAT_ASSERT(false) << "a rule snapshot holds attribute type " << index;
      return {};
    } else {
      using T = std::variant_alternative_t<I, ops::AttrValue>;
      if (index != I) return attr_value<I + 1>(index);
      if constexpr (std::is_same_v<T, ops::IntList>) {
        T v(size());
        for (std::int64_t& x : v) x = pod<std::int64_t>();
        return v;
      } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool> ||
                           std::is_same_v<T, ops::DType>) {
        return pod<T>();
      } else {
        return attr_value<I + 1>(index);
      }
    }
  }
  // Fills `p` (default-made) in place: a pattern of the shipped rules has
  // hundreds of nodes, each made once rather than made, moved and freed.
  void pattern(Pattern& p) {
    p.kind = pod<Pattern::Kind>();
    p.var = text();
    p.number = pod<double>();
    p.is_float = pod<bool>();
    p.op = pod<ops::OpKind>();
    p.children.resize(size());
    for (Pattern& c : p.children) pattern(c);
    p.attrs.resize(size());
    for (AttrPattern& a : p.attrs) {
      a.key = pod<ops::AttrKey>();
      a.var = text();
      a.value = attr_value(size());
      a.where = where();
    }
    p.where = where();
  }
  Condition condition() {
    Condition c;
    c.predicate = pod<Predicate>();
    c.args.resize(size());
    for (ConditionArg& a : c.args) {
      a.kind = pod<ConditionArg::Kind>();
      a.var = text();
      a.int_value = pod<std::int64_t>();
      a.dtype = pod<ops::DType>();
    }
    c.where = where();
    return c;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
  std::vector<ops::FileName> files_;  // interned once for every node
};

}  // namespace

std::uint64_t rule_sources_hash(std::span<const RuleSource> sources) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const RuleSource& s : sources) {
    fnv1a(h, s.file);
    fnv1a(h, s.text);
    fnv1a(h, s.default_ruleset);
  }
  return h;
}

std::string RuleSnapshot::write(const RuleProgram& program, std::span<const RuleSource> sources) {
  Writer w;
  w.size(program.rulesets_.size());
  for (const ast::RuleSetDecl& d : program.rulesets_) {
    w.text(d.name);
    w.where(d.where);
  }
  w.size(program.rewrites_.size());
  for (const ast::Rewrite& r : program.rewrites_) {
    w.text(r.name);
    w.text(r.ruleset);
    w.pattern(r.lhs);
    w.pattern(r.rhs);
    w.size(r.conditions.size());
    for (const Condition& c : r.conditions) w.condition(c);
    w.pod(r.bidirectional);
    w.pod(r.finite_domain);
    w.pod(r.commutative);
    w.where(r.where);
  }
  w.size(program.uses_.size());
  for (const ast::Use& u : program.uses_) {
    w.text(u.applier);
    w.text(u.ruleset);
    w.where(u.where);
  }
  w.size(program.schedule_.steps.size());
  for (const ast::ScheduleStep& s : program.schedule_.steps) {
    w.pod(s.kind);
    w.size(s.rulesets.size());
    for (const std::string& set : s.rulesets) w.text(set);
    w.pod(s.limits);
    w.where(s.where);
  }
  w.where(program.schedule_.where);
  return w.finish(rule_sources_hash(sources));
}

std::optional<RuleProgram> RuleSnapshot::read(std::string_view bytes, std::uint64_t hash) {
  Reader r(bytes);
  EQSAT_ASSERT(r.pod<std::uint32_t>() == kMagic) << "not a rule snapshot";
  if (r.pod<std::uint64_t>() != hash) return std::nullopt;
  r.files();
  RuleProgram p;
  p.rulesets_.resize(r.size());
  for (ast::RuleSetDecl& d : p.rulesets_) {
    d.name = r.text();
    d.where = r.where();
  }
  p.rewrites_.resize(r.size());
  for (ast::Rewrite& rw : p.rewrites_) {
    rw.name = r.text();
    rw.ruleset = r.text();
    r.pattern(rw.lhs);
    r.pattern(rw.rhs);
    rw.conditions.resize(r.size());
    for (Condition& c : rw.conditions) c = r.condition();
    rw.bidirectional = r.pod<bool>();
    rw.finite_domain = r.pod<bool>();
    rw.commutative = r.pod<bool>();
    rw.where = r.where();
  }
  p.uses_.resize(r.size());
  for (ast::Use& u : p.uses_) {
    u.applier = r.text();
    u.ruleset = r.text();
    u.where = r.where();
  }
  p.schedule_.steps.resize(r.size());
  for (ast::ScheduleStep& s : p.schedule_.steps) {
    s.kind = r.pod<ast::ScheduleStep::Kind>();
    s.rulesets.resize(r.size());
    for (std::string& set : s.rulesets) set = r.text();
    s.limits = r.pod<ast::Limits>();
    s.where = r.where();
  }
  p.schedule_.where = r.where();
  EQSAT_ASSERT(r.done()) << "a rule snapshot has bytes after its program";
  return p;
}

}  // namespace eqsat::rules
