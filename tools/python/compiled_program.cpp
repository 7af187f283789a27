#include "compiled_program.hpp"

namespace eqsat::python {

std::mutex& term_table_mutex() {
  static std::mutex m;
  return m;
}

TermTableLock::TermTableLock() {
  const pybind11::gil_scoped_release unlocked;
  term_table_mutex().lock();
}

namespace {

backend::Program compile_locked(const ops::Graph& graph) {
  const std::lock_guard lock(term_table_mutex());
  return backend::compile(graph);
}

}  // namespace

CompiledProgram::CompiledProgram(ops::Graph graph)
    : graph_(std::move(graph)), first_(compile_locked(graph_)) {
  idle_.push_back(first_);
}

std::vector<ops::Array> CompiledProgram::run(std::vector<ops::Array> inputs) {
  std::vector<backend::Program> mine;
  {
    const std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      mine.push_back(std::move(idle_.back()));
      idle_.pop_back();
    }
  }
  if (mine.empty()) mine.push_back(compile_locked(graph_));
  // The Program goes back to the pool whether the run succeeds or throws.
  struct GiveBack {
    CompiledProgram& owner;
    std::vector<backend::Program>& mine;
    ~GiveBack() {
      const std::lock_guard lock(owner.mutex_);
      owner.idle_.push_back(std::move(mine.back()));
    }
  } give_back{*this, mine};
  return mine.back().run(std::move(inputs));
}

}  // namespace eqsat::python
