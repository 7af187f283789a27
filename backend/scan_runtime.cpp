// The run-time of `scan` (docs/language.md "Loops"): sequences with taps,
// mit-sots with initial history, sit-sots, nit-sots, non-sequences,
// :n-steps (default: what the sequences allow), :until (do-while: the step
// whose flag is true is kept) and :keep (only the last k steps stored).
// The body is compiled once; sequence taps, state histories and outputs are
// preallocated, so after the first step no step allocates a buffer.
#include "blas_start.hpp"
#include "function.hpp"
#include "kernel_support.hpp"
#include "support/internal_error.hpp"
#include "thread_pool.hpp"

#include <cstring>
#include <optional>

namespace eqsat::backend::detail {

namespace {

using ops::Array;

std::int64_t positive_mod(std::int64_t a, std::int64_t m) {
  const std::int64_t r = a % m;
  return r < 0 ? r + m : r;
}

std::size_t row_bytes(const Array& a) {
  return a.shape().empty() || a.shape()[0] == 0 ? 0 : a.nbytes() / a.shape()[0];
}

void copy_bytes(std::byte* dst, const std::byte* src, std::size_t n) {
  if (n > 0 && dst != src) std::memmove(dst, src, n);
}

Dims with_leading(std::int64_t n, const Dims& d) {
  Dims out{n};
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

// The rows along axis 0 of every state, sequence step and output that one
// loop computes: all of them, or rows [begin, end) of `rows` when the loop
// runs as blocks of rows on several threads (scan_rows.hpp).
struct RowBlock {
  std::int64_t begin = 0, end = 0, rows = 0;
  bool whole() const { return rows == 0; }
  // `shape`, whose axis 0 holds `rows` rows, cut to the block's.
  Dims of(Dims shape) const {
    if (!whole()) shape[0] = end - begin;
    return shape;
  }
  // Whether `got` is of(shape), without making it (at every step).
  bool is_of(const Dims& got, const Dims& shape) const {
    if (got.size() != shape.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != (i == 0 && !whole() ? end - begin : shape[i])) return false;
    return true;
  }
  // Where the block starts in a value of `bytes` bytes with `rows` rows.
  std::size_t offset(std::size_t bytes) const {
    return whole() ? 0 : bytes / static_cast<std::size_t>(rows) * begin;
  }
};

// One output of the loop: where its steps are stored. With :keep k the
// storage is a ring of min(k, n) rows; otherwise n rows, except in an
// :until loop, which may stop long before n: there the rows start at
// kFirstRows and double when full.
struct OutputBuffer {
  Array rows;
  std::int64_t capacity = 0;
  Dims shape;  // one step's shape (known once the first step ran, for nit-sots)
  bool allocated = false;
  bool grows = false;
  // A state's output keeping only its last step (`:keep 1`): the step's
  // row is the state itself, so it is not copied at each step but once,
  // from the state's ring, when the loop ends (last_state_rows).
  bool last_state = false;
};

constexpr std::int64_t kFirstRows = 64;

// Doubles the rows of a growing output (at most to `limit`), keeping the
// rows stored so far.
void grow(OutputBuffer& out, std::int64_t limit, BufferPool& pool) {
  const std::int64_t capacity = std::min(limit, std::max<std::int64_t>(1, 2 * out.capacity));
  Array bigger = pool.take(out.rows.dtype(), with_leading(capacity, out.shape));
  copy_bytes(bigger.bytes(), out.rows.bytes(), out.rows.nbytes());
  pool.give(std::move(out.rows));
  out.rows = std::move(bigger);
  out.capacity = capacity;
}

// True when `a` is one of the state buffers.
bool in_rings(const std::vector<std::vector<Array>>& rings, const Array& a) {
  for (const auto& ring : rings)
    for (const Array& r : ring)
      if (r.bytes() == a.bytes()) return true;
  return false;
}

// The number of steps: :n-steps, checked against what the sequences
// allow, else the fewest steps any sequence allows.
std::int64_t trip_count(ops::TermRef op, const ops::ScanSpec& spec, const Array* n_steps,
                        const std::vector<const Array*>& sequences) {
  std::int64_t n = std::numeric_limits<std::int64_t>::max();
  if (n_steps) {
    const auto exact = n_steps->integer_element(0);
    if (!exact) fail(op, fmt::format(":n-steps must be an integer, got {}", n_steps->element(0)));
    n = *exact;
    if (n < 0) fail(op, fmt::format(":n-steps must be >= 0, got {}", n));
  }
  for (std::size_t j = 0; j < sequences.size(); ++j) {
    const Array& seq = *sequences[j];
    const std::int64_t max_tap = spec.sequence_taps[j].back();
    const std::int64_t allowed = std::max<std::int64_t>(0, seq.shape()[0] - max_tap);
    if (spec.has_n_steps && allowed < n)
      fail(op, fmt::format(":n-steps is {} but sequence {} (length {}, taps up to {}) allows only "
                           "{} steps",
                           n, j + 1, seq.shape()[0], max_tap, allowed));
    if (!spec.has_n_steps) n = std::min(n, allowed);
  }
  return n;
}

// State histories: a ring of `depth` buffers per mit-sot and sit-sot;
// step s (from -depth) lives in ring[s mod depth].
struct States {
  std::vector<std::vector<Array>> rings;
  std::vector<Dims> shapes;  // one step's shape per state
};

// The rings filled from the initial values (`inits`: mit-sots, then
// sit-sots), a sit-sot's from the block's rows (a loop by rows has no
// mit-sots).
States load_states(ops::TermRef op, const ops::ScanSpec& spec,
                   const std::vector<const Array*>& inits, RowBlock block, BufferPool& pool) {
  States st;
  st.rings.resize(inits.size());
  st.shapes.resize(inits.size());
  for (std::size_t i = 0; i < spec.mitsot_taps.size(); ++i) {
    const Array& init = *inits[i];
    const std::int64_t depth = -spec.mitsot_taps[i].front();
    if (init.shape()[0] != depth)
      fail(op, fmt::format("mit-sot {} has taps down to {} and needs {} initial steps, got {}",
                           i + 1, -depth, depth, init.shape()[0]));
    st.shapes[i].assign(init.shape().begin() + 1, init.shape().end());
    for (std::int64_t r = 0; r < depth; ++r) {
      Array& slot = st.rings[i].emplace_back(pool.take(init.dtype(), st.shapes[i]));
      copy_bytes(slot.bytes(), init.bytes() + r * row_bytes(init), slot.nbytes());
    }
  }
  for (std::size_t i = spec.mitsot_taps.size(); i < inits.size(); ++i) {
    const Array& init = *inits[i];
    st.shapes[i] = block.of(init.shape());
    Array& slot = st.rings[i].emplace_back(pool.take(init.dtype(), st.shapes[i]));
    copy_bytes(slot.bytes(), init.bytes() + block.offset(init.nbytes()), slot.nbytes());
  }
  return st;
}

// The loop's output buffers: states' shapes are known, a nit-sot's once
// its first step ran (then its rows are allocated). `n` is the step count
// the loop may run.
std::vector<OutputBuffer> make_outputs(ops::TermRef op, const ops::ScanSpec& spec, std::int64_t n,
                                       const std::vector<Dims>& state_shapes, BufferPool& pool) {
  const auto& out_types = std::get<ops::TupleType>(op->type()).elements;
  const std::size_t num_states = state_shapes.size();
  std::vector<OutputBuffer> outputs(out_types.size());
  for (std::size_t o = 0; o < out_types.size(); ++o) {
    const std::int64_t keep = spec.keep.empty() ? 0 : spec.keep[o];
    outputs[o].grows = spec.until && keep == 0;
    outputs[o].capacity = std::min(keep > 0 ? keep : outputs[o].grows ? kFirstRows : n, n);
    outputs[o].last_state = o < num_states && keep == 1;
    if (o < num_states) {
      outputs[o].shape = state_shapes[o];
    } else {
      // A nit-sot's step shape is known after the first step; for a loop
      // of zero steps it is the static shape, unknown dims counting as 0.
      for (auto d : out_types[o].dims) outputs[o].shape.push_back(std::max<std::int64_t>(d, 0));
      outputs[o].shape.erase(outputs[o].shape.begin());
    }
    if (o < num_states || n == 0) {
      outputs[o].rows =
          pool.take(out_types[o].dtype, with_leading(outputs[o].capacity, outputs[o].shape));
      outputs[o].allocated = true;
    }
  }
  return outputs;
}

// Stores step t's body results (the block's rows of them) in the output
// rows (allocating a nit-sot's at its first step, growing an :until
// loop's as needed: never in a loop by rows, whose outputs are all taken
// before it starts).
void store_step(ops::TermRef op, const std::vector<Array>& results,
                std::vector<OutputBuffer>& outputs, std::int64_t t, std::int64_t n, RowBlock block,
                BufferPool& pool) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const Array& r = results[o];
    OutputBuffer& out = outputs[o];
    if (!out.allocated) {
      out.shape = r.shape();
      out.rows = pool.take(r.dtype(), with_leading(out.capacity, out.shape));
      out.allocated = true;
    }
    if (out.grows && t >= out.capacity) grow(out, n, pool);
    if (!block.is_of(r.shape(), out.shape))
      fail(op, fmt::format("body output {} has shape {} at step {}, expected {}", o + 1,
                           ops::dims_to_string(r.shape()), t,
                           ops::dims_to_string(block.of(out.shape))));
    if (out.last_state) continue;
    const std::size_t bytes = row_bytes(out.rows);
    copy_bytes(out.rows.bytes() + positive_mod(t, out.capacity) * bytes + block.offset(bytes),
               r.bytes(), r.nbytes());
  }
}

// Fills the row of each last_state output from its state after `steps`
// steps (state i's ring holds step s in ring[s mod depth]).
void last_state_rows(std::vector<OutputBuffer>& outputs,
                     const std::vector<std::vector<Array>>& rings, std::int64_t steps,
                     RowBlock block) {
  if (steps == 0) return;
  for (std::size_t i = 0; i < rings.size(); ++i) {
    if (!outputs[i].last_state) continue;
    const auto depth = static_cast<std::int64_t>(rings[i].size());
    const Array& state = rings[i][positive_mod(steps - 1, depth)];
    copy_bytes(outputs[i].rows.bytes() + block.offset(row_bytes(outputs[i].rows)), state.bytes(),
               state.nbytes());
  }
}

// Writes step t's new states (the first results) into the rings.
void advance_states(std::vector<Array>& results, std::vector<std::vector<Array>>& rings,
                    std::int64_t t, BufferPool& pool) {
  const std::size_t num_states = rings.size();
  // A result may be one of the ring buffers themselves (a body that
  // returns a parameter), so all are read before any is written.
  for (std::size_t i = 0; i < num_states; ++i)
    if (in_rings(rings, results[i])) results[i] = results[i].clone();
  for (std::size_t i = 0; i < num_states; ++i) {
    const auto depth = static_cast<std::int64_t>(rings[i].size());
    Array& slot = rings[i][positive_mod(t, depth)];
    if (results[i].unique() && results[i].dtype() == slot.dtype()) {
      // The new state's buffer joins the ring; the old one goes to the
      // pool for the body's next step: no copy, no allocation.
      pool.give(std::move(slot));
      slot = std::move(results[i]);
    } else {
      copy_bytes(slot.bytes(), results[i].bytes(), slot.nbytes());
    }
  }
}

// An output's value after `steps` steps: its last min(capacity, steps)
// rows, in step order.
Array kept_rows(OutputBuffer& out, std::int64_t steps, BufferPool& pool) {
  const std::int64_t kept = std::min(out.capacity, steps);
  if (kept == out.capacity && (steps <= out.capacity || positive_mod(steps, out.capacity) == 0))
    return std::move(out.rows);
  Array dst = pool.take(out.rows.dtype(), with_leading(kept, out.shape));
  const std::size_t bytes = row_bytes(out.rows);
  for (std::int64_t r = 0; r < kept; ++r) {
    const std::int64_t s = steps - kept + r;
    copy_bytes(dst.bytes() + r * bytes, out.rows.bytes() + positive_mod(s, out.capacity) * bytes,
               bytes);
  }
  pool.give(std::move(out.rows));
  return dst;
}

// The loop over a scalar body (scalar_body.hpp): every sequence is a
// vector, every state and non-sequence a single float of the body's dtype;
// each step reads the params into registers, runs the ops, and stores the
// outputs and new states in place. Returns false (nothing done) when the
// operands do not fit.
template <class T>
bool run_scalar_steps(const ScalarBody& body, const ops::ScanSpec& spec, std::int64_t n,
                      const std::vector<const Array*>& sequences,
                      std::vector<std::vector<Array>>& rings,
                      const std::vector<const Array*>& non_sequences,
                      std::vector<OutputBuffer>& outputs) {
  const DType dtype = ops::dtype_of<T>();
  for (const Array* a : sequences)
    if (a->dtype() != dtype || a->rank() != 1) return false;
  for (const auto& ring : rings)
    if (ring[0].dtype() != dtype || ring[0].rank() != 0) return false;
  for (const Array* a : non_sequences)
    if (a->dtype() != dtype || a->rank() != 0) return false;
  std::vector<T*> out_rows;
  for (OutputBuffer& out : outputs) {
    if (out.rows.dtype() != dtype || !out.shape.empty()) return false;
    out_rows.push_back(out.rows.data<T>());
  }
  std::vector<T> registers(body.constants.begin(), body.constants.end());
  std::vector<T*> state(rings.size());
  for (std::int64_t t = 0; t < n; ++t) {
    T* reg = registers.data();
    for (std::size_t j = 0; j < sequences.size(); ++j)
      for (auto k : spec.sequence_taps[j]) *reg++ = sequences[j]->data<T>()[t + k];
    for (std::size_t i = 0; i < spec.mitsot_taps.size(); ++i) {
      const auto depth = static_cast<std::int64_t>(rings[i].size());
      for (auto k : spec.mitsot_taps[i]) *reg++ = rings[i][positive_mod(t + k, depth)].data<T>()[0];
    }
    for (std::size_t i = spec.mitsot_taps.size(); i < rings.size(); ++i)
      *reg++ = rings[i][0].data<T>()[0];
    for (const Array* a : non_sequences) *reg++ = a->data<T>()[0];
    body.run(registers.data());
    for (std::size_t o = 0; o < outputs.size(); ++o)
      out_rows[o][positive_mod(t, outputs[o].capacity)] = registers[body.outputs[o]];
    for (std::size_t i = 0; i < rings.size(); ++i) {
      const auto depth = static_cast<std::int64_t>(rings[i].size());
      rings[i][positive_mod(t, depth)].data<T>()[0] = registers[body.outputs[i]];
    }
  }
  return true;
}

// The register loop writes nit-sot rows directly, so it takes them up front
// (store_step would allocate them at the first step, from its shape).
void allocate_sequence_outputs(const std::vector<ops::TensorType>& out_types,
                               std::size_t num_states, std::vector<OutputBuffer>& outputs,
                               BufferPool& pool) {
  for (std::size_t o = num_states; o < out_types.size(); ++o) {
    outputs[o].rows =
        pool.take(out_types[o].dtype, with_leading(outputs[o].capacity, outputs[o].shape));
    outputs[o].allocated = true;
  }
}

// Whether a tap reads the block's rows of a sequence's row in place
// (Array::row_view, rows_view) instead of a copy: when every row, and the
// block's first row within one, starts on the buffers' alignment.
bool reads_in_place(const Array& seq, RowBlock block) {
  const std::size_t bytes = row_bytes(seq);
  return bytes % Array::kAlignment == 0 && block.offset(bytes) % Array::kAlignment == 0;
}

// Per sequence tap, the row it reads: left empty when read in place, else
// a buffer of the block's rows, refilled from the sequence at each step.
std::vector<Array> tap_buffers(const ops::ScanSpec& spec,
                               const std::vector<const Array*>& sequences, RowBlock block,
                               BufferPool& pool) {
  std::vector<Array> tap_rows;
  for (std::size_t j = 0; j < sequences.size(); ++j) {
    const Dims row(sequences[j]->shape().begin() + 1, sequences[j]->shape().end());
    const bool in_place = reads_in_place(*sequences[j], block);
    for (std::size_t k = 0; k < spec.sequence_taps[j].size(); ++k)
      tap_rows.push_back(in_place ? Array() : pool.take(sequences[j]->dtype(), block.of(row)));
  }
  return tap_rows;
}

// The body's arguments at step t, in its parameter order: each sequence
// tap's row (the block's rows of it: a view, or a copy in `tap_rows`),
// each mit-sot tap's state from its ring, each sit-sot's state, the
// non-sequences.
void step_arguments(const ops::ScanSpec& spec, std::int64_t t,
                    const std::vector<const Array*>& sequences, RowBlock block,
                    std::vector<Array>& tap_rows, std::vector<std::vector<Array>>& rings,
                    const std::vector<const Array*>& non_sequences,
                    std::vector<const Array*>& args) {
  args.clear();
  std::size_t tap = 0;
  for (std::size_t j = 0; j < sequences.size(); ++j) {
    const std::size_t bytes = row_bytes(*sequences[j]);
    const bool in_place = reads_in_place(*sequences[j], block);
    for (auto k : spec.sequence_taps[j]) {
      if (in_place) {
        std::optional<Array> row = sequences[j]->row_view(t + k);
        if (row && !block.whole()) row = row->rows_view(block.begin, block.end);
        EQSAT_ASSERT(row) << "a sequence tap's row " << t + k << " is out of range";
        tap_rows[tap] = std::move(*row);
      } else {
        copy_bytes(tap_rows[tap].bytes(),
                   sequences[j]->bytes() + (t + k) * bytes + block.offset(bytes),
                   tap_rows[tap].nbytes());
      }
      args.push_back(&tap_rows[tap++]);
    }
  }
  for (std::size_t i = 0; i < spec.mitsot_taps.size(); ++i) {
    const auto depth = static_cast<std::int64_t>(rings[i].size());
    for (auto k : spec.mitsot_taps[i]) args.push_back(&rings[i][positive_mod(t + k, depth)]);
  }
  for (std::size_t i = spec.mitsot_taps.size(); i < rings.size(); ++i) args.push_back(&rings[i][0]);
  for (const Array* a : non_sequences) args.push_back(a);
}

// Asks the cache for step t's sequence rows (the block's; into L2) while
// step t - 1 runs: a row the loop reads in place (an LSTM's 16 x 512 input
// projection) was written long before, by one product over every step,
// and its step's first reader (the step product's epilogue) otherwise
// waits for it to come from memory or L3. At most kPrefetchBytes a
// sequence per step.
constexpr std::size_t kPrefetchBytes = std::size_t{256} << 10;
void prefetch_rows(const ops::ScanSpec& spec, std::int64_t t, std::int64_t n,
                   const std::vector<const Array*>& sequences, RowBlock block) {
  if (t >= n) return;
  for (std::size_t j = 0; j < sequences.size(); ++j) {
    const std::size_t row = row_bytes(*sequences[j]);
    const std::size_t from = block.offset(row);
    const std::size_t tap = block.whole() ? row : row / block.rows * (block.end - block.begin);
    const std::size_t bytes = std::min(tap, kPrefetchBytes);
    for (auto k : spec.sequence_taps[j]) {
      const std::byte* start = sequences[j]->bytes() + (t + k) * row + from;
      for (std::size_t at = 0; at < bytes; at += Array::kAlignment)
        __builtin_prefetch(start + at, 0, 2);
    }
  }
}

// What every block of one loop shares: its operands, step count and
// output rows.
struct Loop {
  ops::TermRef op;
  const ops::ScanSpec& spec;
  std::int64_t n;
  const std::vector<const Array*>& sequences;
  const std::vector<const Array*>& non_sequences;
  std::vector<OutputBuffer>& outputs;
  // Per body param: what the body may assume of it (run_scan).
  std::span<const ParamUse> uses;
};

// Runs steps first, first + 1, ... of the loop on `block`'s rows with
// `body` (and its pool), the states in `rings`; returns the number of
// steps done by then (fewer than n when :until stops the loop). `args`
// and `results` are scratch.
std::int64_t run_steps(const Loop& loop, Function& body, RowBlock block,
                       std::vector<std::vector<Array>>& rings, std::int64_t first,
                       std::vector<const Array*>& args, std::vector<Array>& results) {
  BufferPool& pool = body.context().pool;
  std::vector<Array> tap_rows = tap_buffers(loop.spec, loop.sequences, block, pool);
  body.start_loop();
  std::int64_t steps = first;
  for (std::int64_t t = first; t < loop.n; ++t) {
    step_arguments(loop.spec, t, loop.sequences, block, tap_rows, rings, loop.non_sequences, args);
    prefetch_rows(loop.spec, t + 1, loop.n, loop.sequences, block);

    body.run(args, results, loop.uses);
    steps = t + 1;

    store_step(loop.op, results, loop.outputs, t, loop.n, block, pool);
    advance_states(results, rings, t, pool);
    const bool stop = loop.spec.until && results.back().data<bool>()[0];
    for (Array& r : results) pool.give(std::move(r));
    if (stop) break;
  }
  for (Array& a : tap_rows) pool.give(std::move(a));
  return steps;
}

// Fewer elements of state times steps than this run as one loop: the
// threads' start costs more than the split saves.
constexpr std::int64_t kRowsWork = std::int64_t{1} << 14;
// So does a split whose smallest block holds fewer elements of state than
// this: each block pays a whole step's fixed costs (the body's dispatch,
// its small products' calls) for a sliver of the work. An LSTM of 2 rows
// of 64 units (blocks of 128 elements) took as long on two threads as
// whole on one, on twice the CPU time; one of 16 rows of 128 (blocks of
// 2048) ran 1.7x faster (bench/README.md, "Speed round 20").
constexpr std::int64_t kBlockElements = 512;

// The blocks of rows a loop whose body keeps rows apart (scan_rows.hpp)
// runs as, one per thread: the rows are axis 0 of every sit-sot and axis 1
// of every sequence, which must agree; a nit-sot's step shape must be
// known but for its rows (its rows are taken before the loop). Empty: run
// the loop whole (one thread, too few rows or too little work, a shared
// OpenBLAS, blocks too small).
std::vector<RowBlock> row_blocks(const Loop& loop, const std::vector<const Array*>& inits) {
  const int threads = num_threads();
  // A shared OpenBLAS (the Python module's, NumPy's) runs large products
  // on threads of its own, which blocks calling it at once would contend
  // for: there the loop runs whole, its products split as usual.
  if (threads < 2 || loop.n < 2 || !own_blas()) return {};
  std::int64_t rows = -1, elements = 0;
  auto agree = [&](std::int64_t r) {
    if (rows < 0) rows = r;
    return rows == r;
  };
  for (const Array* init : inits) {
    if (init->rank() == 0 || !agree(init->shape()[0])) return {};
    elements += init->size();
  }
  for (const Array* seq : loop.sequences)
    if (seq->rank() < 2 || !agree(seq->shape()[1])) return {};
  const auto& out_types = std::get<ops::TupleType>(loop.op->type()).elements;
  for (std::size_t o = inits.size(); o < out_types.size(); ++o) {
    const Dims& dims = out_types[o].dims;
    if (dims.size() < 2 || std::any_of(dims.begin() + 2, dims.end(), [](auto d) { return d < 0; }))
      return {};
  }
  if (rows < 2 || elements * loop.n < kRowsWork) return {};
  const std::int64_t parts = std::min<std::int64_t>(threads, rows);
  if (elements / rows * (rows / parts) < kBlockElements) return {};
  std::vector<RowBlock> blocks;
  for (std::int64_t p = 0; p < parts; ++p)
    blocks.push_back({rows * p / parts, rows * (p + 1) / parts, rows});
  return blocks;
}

}  // namespace

void Function::run_scan(Instruction& in) {
  ops::TermRef op = in.term;
  const auto& spec = op->attrs().get<ops::ScanSpec>(ops::AttrKey::Scan);
  BufferPool& pool = context_->pool;
  std::size_t at = 0;
  auto next = [&]() -> const Array& { return slots_[in.operands[at++]]; };

  const Array* n_steps = spec.has_n_steps ? &next() : nullptr;
  std::vector<const Array*> sequences;
  for (std::size_t j = 0; j < spec.sequence_taps.size(); ++j) sequences.push_back(&next());
  const std::int64_t n = trip_count(op, spec, n_steps, sequences);
  const std::size_t num_states = spec.mitsot_taps.size() + spec.num_sitsot;
  std::vector<const Array*> inits;
  for (std::size_t i = 0; i < num_states; ++i) inits.push_back(&next());
  std::vector<const Array*> non_sequences;
  for (std::int64_t i = 0; i < spec.num_nonsequences; ++i) non_sequences.push_back(&next());

  // Per body param, whether the loop gives up its values to the body at
  // each step: a sequence's only tap, when the loop owns the sequence (its
  // last reader, no other array holding it: an LSTM's input projection,
  // computed for the loop alone). Row t is read only by step t, so the
  // body may add a product into it (Function::may_accumulate). Whether the
  // tap is a view or a copy does not matter: every block of a loop by rows
  // decides alike, so the values do not depend on the threads. States and
  // non-sequences are never given up.
  std::vector<ParamUse> uses(in.body->num_params(), ParamUse::Read);
  for (std::size_t j = 0, p = 0; j < sequences.size(); p += spec.sequence_taps[j++].size()) {
    const int slot = in.operands[(n_steps ? 1 : 0) + j];
    const bool given_up = spec.sequence_taps[j].size() == 1 && !pinned_[slot] &&
                          std::ranges::count(in.operands, slot) == 1 &&
                          std::ranges::find(in.release, slot) != in.release.end() &&
                          sequences[j]->unique();
    if (given_up) uses[p] = ParamUse::GivenUp;
  }
  // Non-sequences, the body's last params, hold their values through the
  // loop: a product may keep a copy of one between steps (BStrips).
  std::fill(uses.end() - spec.num_nonsequences, uses.end(), ParamUse::Invariant);
  const auto& out_types = std::get<ops::TupleType>(op->type()).elements;
  const std::size_t num_outputs = out_types.size();
  std::vector<OutputBuffer> outputs;
  const Loop loop{op, spec, n, sequences, non_sequences, outputs, uses};
  const std::vector<RowBlock> blocks =
      in.by_rows ? row_blocks(loop, inits) : std::vector<RowBlock>{};
  std::int64_t steps = 0;
  if (!blocks.empty()) {
    // By rows: every output's rows taken up front, then one loop per block,
    // each with its own copy of the body and its pool, on the threads.
    std::vector<Dims> shapes;
    for (const Array* init : inits) shapes.push_back(init->shape());
    outputs = make_outputs(op, spec, n, shapes, pool);
    for (std::size_t o = num_states; o < num_outputs; ++o) {
      outputs[o].shape.assign(out_types[o].dims.begin() + 1, out_types[o].dims.end());
      outputs[o].shape[0] = blocks[0].rows;
    }
    allocate_sequence_outputs(out_types, num_states, outputs, pool);
    std::vector<Function*> bodies;
    for (std::size_t p = 0; p < blocks.size(); ++p)
      bodies.push_back(&context_->replica(op->operand(0), p));
    parallel_for(static_cast<std::int64_t>(blocks.size()), 1,
                 [&](std::int64_t begin, std::int64_t end) {
                   std::vector<const Array*> args;
                   std::vector<Array> results;
                   for (std::int64_t p = begin; p < end; ++p) {
                     BufferPool& own = bodies[p]->context().pool;
                     States st = load_states(op, spec, inits, blocks[p], own);
                     run_steps(loop, *bodies[p], blocks[p], st.rings, 0, args, results);
                     last_state_rows(outputs, st.rings, n, blocks[p]);
                     for (auto& ring : st.rings)
                       for (Array& a : ring) own.give(std::move(a));
                   }
                 });
    steps = n;
  } else {
    States states = load_states(op, spec, inits, RowBlock{}, pool);
    std::vector<std::vector<Array>>& rings = states.rings;
    outputs = make_outputs(op, spec, n, states.shapes, pool);
    // The loop: on registers for a scalar body, else the body's program.
    if (const ScalarBody* scalar = in.body->scalar_body(); scalar && !spec.until && n > 0) {
      allocate_sequence_outputs(out_types, num_states, outputs, pool);
      const bool done =
          scalar->dtype == DType::F32
              ? run_scalar_steps<float>(*scalar, spec, n, sequences, rings, non_sequences, outputs)
              : run_scalar_steps<double>(*scalar, spec, n, sequences, rings, non_sequences,
                                         outputs);
      if (done) steps = n;
    }
    steps = run_steps(loop, *in.body, RowBlock{}, rings, steps, body_args_, body_outputs_);
    last_state_rows(outputs, rings, steps, RowBlock{});
    for (auto& ring : rings)
      for (Array& a : ring) pool.give(std::move(a));
  }

  // The outputs, in step order: the last min(capacity, steps) steps.
  for (std::size_t o = 0; o < num_outputs; ++o)
    slots_[in.out + static_cast<int>(o)] = kept_rows(outputs[o], steps, pool);
}

}  // namespace eqsat::backend::detail
