// A graph compiled for the executor and callable from several Python
// threads at once. A backend::Program keeps per-run state (buffer pools,
// loop buffers), so each call runs on a Program of its own: taken from a
// pool of idle ones, compiled anew when every one is busy, and returned
// after the call. Calls run with the GIL released.
#pragma once

#include "backend/program.hpp"
#include "ops/graph.hpp"

#include <pybind11/pybind11.h>

#include <mutex>
#include <vector>

namespace eqsat::python {

// Serializes what may build terms (the term table is not thread-safe):
// the builder, parsing, optimizing and compiling, from any thread.
std::mutex& term_table_mutex();

// Holds the term table during a Python call that builds terms
// (py::call_guard<TermTableLock>). It waits for the table with the GIL
// released, so that a thread optimizing without the GIL can finish, then
// takes the GIL back: nobody waits for the table while holding the GIL.
class TermTableLock {
 public:
  TermTableLock();
  ~TermTableLock() { term_table_mutex().unlock(); }
  TermTableLock(const TermTableLock&) = delete;
  TermTableLock& operator=(const TermTableLock&) = delete;
};

class CompiledProgram {
 public:
  // Compiles `graph` once (throws RuntimeError for a graph with `grad`).
  explicit CompiledProgram(ops::Graph graph);

  // Runs on an idle Program (or a new one); safe from several threads.
  std::vector<ops::Array> run(std::vector<ops::Array> inputs);

  const std::vector<ops::TermRef>& inputs() const { return first_.inputs(); }
  const std::vector<std::string>& output_names() const { return first_.output_names(); }

 private:
  ops::Graph graph_;
  backend::Program first_;  // answers inputs() and output_names()
  std::mutex mutex_;        // guards idle_
  std::vector<backend::Program> idle_;
};

}  // namespace eqsat::python
