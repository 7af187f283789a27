#include "memory_plan.hpp"

#include "kernels.hpp"

#include "ops/post_order.hpp"
#include "ops/type_error.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace eqsat::backend {

namespace {

using ops::TermRef;

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t s = 0;
  return __builtin_add_overflow(a, b, &s) ? kSaturated : s;
}

// Bytes of a value whose dimensions are all known (else 0: decided at run time).
std::int64_t bytes_of(const ops::TensorType& t) {
  if (!t.is_static()) return 0;
  return ops::checked_num_bytes(t).value_or(kSaturated);
}

std::int64_t bytes_of(const ops::Type& type) {
  if (const auto* t = std::get_if<ops::TensorType>(&type)) return bytes_of(*t);
  std::int64_t sum = 0;
  for (const auto& e : std::get<ops::TupleType>(type).elements) sum = add(sum, bytes_of(e));
  return sum;
}

// The same terms with the graph's inputs retyped to the shapes they will
// have, so that every dimension that follows from them is known. Bodies
// are closed and stay as they are.
class Retyper {
 public:
  explicit Retyper(std::unordered_map<TermRef, TermRef> inputs) : memo_(std::move(inputs)) {}
  TermRef operator()(TermRef t) {
    auto retype = [&](TermRef u) {
      if (memo_.contains(u)) return;
      TermRef out = u;
      if (u->kind() != ops::OpKind::Fn && !u->operands().empty()) {
        std::vector<TermRef> operands;
        for (TermRef o : u->operands()) operands.push_back(memo_.at(o));
        if (!std::ranges::equal(operands, u->operands()))
          out = ops::Term::make(u->kind(), u->attrs(), std::move(operands));
      }
      memo_.emplace(u, out);
    };
    ops::for_each_post_order(t, ops::Bodies::Skip, retype,
                             [&](TermRef u) { return !memo_.contains(u); });
    return memo_.at(t);
  }

 private:
  std::unordered_map<TermRef, TermRef> memo_;
};

// Peak bytes of evaluating `outputs` over `leaves` (inputs or a body's
// parameters, alive throughout), in the executor's order.
std::int64_t peak_of(const std::vector<TermRef>& leaves, const std::vector<TermRef>& outputs,
                     std::unordered_map<TermRef, std::int64_t>& body_peaks);

std::int64_t body_peak(TermRef fn, std::unordered_map<TermRef, std::int64_t>& body_peaks) {
  if (auto it = body_peaks.find(fn); it != body_peaks.end()) return it->second;
  const std::vector<TermRef> outs(fn->operands().begin(), fn->operands().end());
  const std::int64_t peak = peak_of({}, outs, body_peaks);
  body_peaks.emplace(fn, peak);
  return peak;
}

std::int64_t peak_of(const std::vector<TermRef>& leaves, const std::vector<TermRef>& outputs,
                     std::unordered_map<TermRef, std::int64_t>& body_peaks) {
  // Post-order from the outputs, in output and operand order (deterministic).
  std::vector<TermRef> order;
  std::unordered_map<TermRef, std::size_t> position;
  ops::for_each_post_order(outputs, ops::Bodies::Skip, [&](TermRef t) {
    position.emplace(t, order.size());
    order.push_back(t);
  });
  // Last reader of each value; leaves and outputs live to the end.
  std::vector<std::size_t> last(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    last[i] = i;
    if (order[i]->kind() == ops::OpKind::Fn) continue;
    for (TermRef o : order[i]->operands()) last[position[o]] = i;
  }
  // Outputs are kept to the end; constants are pinned for the whole run.
  for (TermRef t : outputs) last[position[t]] = order.size();
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i]->kind() == ops::OpKind::Const) last[i] = order.size();
  std::int64_t live = 0;
  for (TermRef leaf : leaves) live = add(live, bytes_of(leaf->type()));
  std::vector<std::vector<std::int64_t>> dying(order.size() + 1);
  std::int64_t peak = live;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const TermRef t = order[i];
    const auto kind = t->kind();
    const bool free = kind == ops::OpKind::Fn || kind == ops::OpKind::Get ||
                      kind == ops::OpKind::Input || kind == ops::OpKind::Nominal ||
                      (!t->is_tuple() && kind != ops::OpKind::Const && is_view(t));
    const std::int64_t bytes = free ? 0 : bytes_of(t->type());
    live = add(live, bytes);
    std::int64_t during = live;
    if (kind == ops::OpKind::Scan || kind == ops::OpKind::Call)
      during = add(during, body_peak(t->operand(0), body_peaks));
    peak = std::max(peak, during);
    dying[last[i]].push_back(bytes);
    for (std::int64_t b : dying[i]) live = live == kSaturated ? live : live - b;
  }
  return peak;
}

}  // namespace

std::int64_t planned_bytes(const ops::Graph& graph,
                           const std::vector<ops::TensorType>& input_types) {
  std::unordered_map<TermRef, TermRef> retyped_inputs;
  std::vector<TermRef> leaves;
  for (std::size_t i = 0; i < graph.inputs.size(); ++i) {
    const TermRef input = graph.inputs[i];
    const TermRef typed =
        i < input_types.size()
            ? ops::Term::input(input->attrs().get<std::string>(ops::AttrKey::Name), input_types[i])
            : input;
    retyped_inputs.emplace(input, typed);
    leaves.push_back(typed);
  }
  std::vector<TermRef> outputs;
  try {
    Retyper retype(std::move(retyped_inputs));
    for (const auto& o : graph.outputs) outputs.push_back(retype(o.term));
  } catch (const ops::TypeError&) {
    // The inputs do not fit the graph: running reports it with its own
    // message. Plan with the written types meanwhile.
    leaves = graph.inputs;
    outputs.clear();
    for (const auto& o : graph.outputs) outputs.push_back(o.term);
  }
  std::unordered_map<TermRef, std::int64_t> body_peaks;
  return peak_of(leaves, outputs, body_peaks);
}

}  // namespace eqsat::backend
