#include "program.hpp"

#include "function.hpp"
#include "runtime_error.hpp"

#include <fmt/format.h>

namespace eqsat::backend {

namespace detail {

struct ProgramState {
  Context context;
  std::vector<ops::TermRef> inputs;
  std::vector<std::string> output_names;
  std::unique_ptr<Function> main;
  std::vector<ops::Array> outputs;  // scratch
  std::vector<OpTiming> timings;
};

}  // namespace detail

namespace {

// An input value must have its leaf's dtype, rank and every known dim.
void check_input(const detail::Context& context, ops::TermRef leaf, const ops::Array& value) {
  const ops::TensorType& want = leaf->tensor_type();
  bool fits = value.dtype() == want.dtype && value.rank() == want.rank();
  for (int i = 0; fits && i < want.rank(); ++i)
    fits = want.dims[i] == ops::kUnknownDim || want.dims[i] == value.shape()[i];
  if (fits) return;
  const std::string name =
      leaf->kind() == ops::OpKind::Input
          ? leaf->attrs().get<std::string>(ops::AttrKey::Name)
          : fmt::format("nominal {}", leaf->attrs().get<std::int64_t>(ops::AttrKey::Slot));
  context.fail_at(leaf, fmt::format("input {}: expected {}, got {}", name, ops::to_string(want),
                                    ops::to_string(value.type())));
}

std::shared_ptr<detail::ProgramState> make_state(
    std::vector<ops::TermRef> inputs, std::vector<ops::TermRef> outputs,
    std::unordered_map<ops::TermRef, ops::SourceLocation> locations) {
  auto state = std::make_shared<detail::ProgramState>();
  state->context.locations = std::move(locations);
  state->inputs = inputs;
  state->main =
      std::make_unique<detail::Function>(state->context, std::move(inputs), std::move(outputs));
  return state;
}

std::vector<ops::Array> run_state(detail::ProgramState& state, std::vector<ops::Array>& inputs) {
  if (inputs.size() != state.inputs.size())
    throw RuntimeError(fmt::format("expected {} input{}, got {}", state.inputs.size(),
                                   state.inputs.size() == 1 ? "" : "s", inputs.size()));
  std::vector<const ops::Array*> args;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_input(state.context, state.inputs[i], inputs[i]);
    args.push_back(&inputs[i]);
  }
  std::vector<ops::Array> outputs;
  state.main->run(args, outputs);
  inputs.clear();
  // An output that is an input, a constant, a view of one or another
  // output shares its buffer: give the caller a copy it owns.
  for (auto& o : outputs)
    if (!o.unique()) o = o.clone();
  return outputs;
}

}  // namespace

std::vector<ops::Array> Program::run(std::vector<ops::Array> inputs) {
  state_->context.pool.begin_run();
  return run_state(*state_, inputs);
}

const std::vector<ops::TermRef>& Program::inputs() const {
  return state_->inputs;
}

const std::vector<std::string>& Program::output_names() const {
  return state_->output_names;
}

std::uint64_t Program::buffers_allocated() const {
  return state_->context.pool.allocations();
}

std::uint64_t Program::bytes_allocated() const {
  return state_->context.pool.bytes_allocated();
}

void Program::set_profiling(bool on) {
  state_->timings.clear();
  if (on) {
    for (auto& label : state_->main->instruction_labels())
      state_->timings.push_back(OpTiming{std::move(label), 0, 0});
  }
  state_->main->set_timings(on ? &state_->timings : nullptr);
}

const std::vector<OpTiming>& Program::op_timings() const {
  return state_->timings;
}

void Program::release_memory() {
  state_->context.clear_pools();
  state_->main->release_copies();
}

void Program::set_memory_limit(std::optional<std::uint64_t> bytes) {
  state_->context.pool.set_limit(bytes);
}

std::size_t Program::num_instructions() const {
  return state_->main->num_instructions();
}

std::size_t Program::num_bodies() const {
  return state_->context.bodies.size();
}

Program compile(const ops::Graph& graph) {
  std::vector<ops::TermRef> outputs;
  std::vector<std::string> names;
  for (const auto& o : graph.outputs) {
    outputs.push_back(o.term);
    names.push_back(o.name);
  }
  Program p;
  p.state_ = make_state(graph.inputs, std::move(outputs), graph.locations);
  p.state_->output_names = std::move(names);
  return p;
}

std::vector<ops::Array> evaluate(const std::vector<ops::TermRef>& terms,
                                 const std::vector<std::pair<ops::TermRef, ops::Array>>& bindings) {
  std::vector<ops::TermRef> leaves;
  std::vector<ops::Array> values;
  for (const auto& [leaf, value] : bindings) {
    leaves.push_back(leaf);
    values.push_back(value);
  }
  auto state = make_state(std::move(leaves), terms, {});
  return run_state(*state, values);
}

}  // namespace eqsat::backend
