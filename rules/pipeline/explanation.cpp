#include "rules/pipeline/explanation.hpp"

#include "rules/tensor/op_symbols.hpp"

#include "ops/graph_printer.hpp"
#include "ops/type_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unordered_map>

namespace eqsat::rules {

namespace {

// Terms of the graph language for the proof forest's term ids, memoized.
class TermsOfIds {
 public:
  explicit TermsOfIds(const TensorEGraph& g) : g_(g), proofs_(*g.egraph().proofs()) {}

  ops::TermRef operator()(egraph::EClassId id) {
    if (auto it = done_.find(id.value()); it != done_.end()) return it->second;
    // Iteratively, children first: terms may be deep.
    std::vector<std::pair<egraph::EClassId, bool>> stack{{id, false}};
    while (!stack.empty()) {
      auto [t, expanded] = stack.back();
      if (done_.contains(t.value())) {
        stack.pop_back();
        continue;
      }
      const auto kids = proofs_.children(t);
      if (!expanded) {
        stack.back().second = true;
        for (egraph::EClassId k : kids)
          if (!done_.contains(k.value())) stack.push_back({k, false});
        continue;
      }
      stack.pop_back();
      std::vector<ops::TermRef> operands;
      for (egraph::EClassId k : kids) operands.push_back(done_.at(k.value()));
      done_.emplace(t.value(), ops::Term::make(*op_of_symbol(proofs_.op(t)),
                                               g_.analysis().payloads().attrs(proofs_.payload(t)),
                                               std::move(operands)));
    }
    return done_.at(id.value());
  }

 private:
  const TensorEGraph& g_;
  const egraph::ProofForest& proofs_;
  std::unordered_map<std::uint32_t, ops::TermRef> done_;
};

}  // namespace

TermExplanation explain_terms(TensorEGraph& g, ops::TermRef a, ops::TermRef b) {
  const egraph::EClassId ia = g.term_id(a), ib = g.term_id(b);
  if (!g.egraph().clean())
    g.egraph().rebuild();  // a term new to the e-graph may join by congruence
  TermExplanation out{"", a, b, {}};
  TermsOfIds term(g);
  for (const egraph::ProofStep& s : g.egraph().explain(ia, ib)) {
    // A commuted left side NAME#K of a `:comm` rule is rule NAME.
    const std::string_view rule = s.rule.name();
    TermStep step{std::string(rule.substr(0, rule.find('#'))), s.forward, s.position, {}, {}};
    // The proof forest names a child by the first term of its class; in a
    // loop body that term may read a parameter of another body (a constant
    // class shared by two loops), so the step's terms may not be rebuilt.
    // The rule and the position are still the step.
    try {
      step.before = term(s.before);
      step.after = term(s.after);
    } catch (const ops::TypeError&) {
      step.before = step.after = nullptr;
    }
    out.steps.push_back(std::move(step));
  }
  return out;
}

ops::TermRef replace_at(ops::TermRef t, std::span<const std::uint32_t> position, ops::TermRef by) {
  if (position.empty()) return by;
  std::vector<ops::TermRef> operands(t->operands().begin(), t->operands().end());
  operands.at(position.front()) = replace_at(operands[position.front()], position.subspan(1), by);
  return ops::Term::make(t->kind(), t->attrs(), std::move(operands));
}

std::string to_string(const TermExplanation& e, const ops::Graph& context) {
  std::string text =
      fmt::format("{}: {} step{}\n", e.name, e.steps.size(), e.steps.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    const TermStep& s = e.steps[i];
    const std::string terms =
        s.before ? fmt::format("{} => {}", ops::print_expression(s.before, context),
                               ops::print_expression(s.after, context))
                 : "(its terms mix two loop bodies' parameters: not shown)";
    text += fmt::format("  {}. {}{} at ({}): {}\n", i + 1, s.rule,
                        s.forward ? "" : " (right to left)", fmt::join(s.position, " "), terms);
  }
  return text;
}

}  // namespace eqsat::rules
