#include "memory_plan.hpp"

#include "kernels.hpp"

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
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    TermRef out = t;
    if (t->kind() != ops::OpKind::Fn && !t->operands().empty()) {
      std::vector<TermRef> operands;
      for (TermRef o : t->operands()) operands.push_back((*this)(o));
      if (!std::ranges::equal(operands, t->operands()))
        out = ops::Term::make(t->kind(), t->attrs(), std::move(operands));
    }
    memo_.emplace(t, out);
    return out;
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
  std::vector<std::pair<TermRef, std::size_t>> stack;
  for (TermRef root : outputs) {
    if (position.contains(root)) continue;
    stack.push_back({root, 0});
    position.emplace(root, kSaturated);  // on the stack
    while (!stack.empty()) {
      auto& [t, next] = stack.back();
      const bool enter = t->kind() != ops::OpKind::Fn;
      if (enter && next < t->operands().size()) {
        TermRef o = t->operand(next++);
        if (!position.contains(o)) {
          position.emplace(o, kSaturated);
          stack.push_back({o, 0});
        }
        continue;
      }
      position[t] = order.size();
      order.push_back(t);
      stack.pop_back();
    }
  }
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
