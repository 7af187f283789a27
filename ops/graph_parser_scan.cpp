#include "graph_parser_scan.hpp"

#include "diagnostic.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace eqsat::ops::parsing {

namespace {

[[noreturn]] void fail(const SExpr& e, const std::string& message) {
  throw DiagnosticError(e.where, message);
}

// The tensor type of a slot's outer value.
const TensorType& slot_type(TermRef t, const SExpr& where) {
  if (t->is_tuple())
    fail(where, "scan: a slot needs a tensor, not a tuple; select an element with (get I ...)");
  return t->tensor_type();
}

// A sit-sot or non-sequence slot (one parameter, no taps); its type.
TensorType add_plain_slot(ScanOperands& r, TermRef t, const SExpr& s) {
  r.slot_of.push_back(static_cast<std::int64_t>(r.params.size()));
  r.params.push_back(slot_type(t, s));
  r.operands.push_back(t);
  r.where.push_back(s.where);
  return r.params.back();
}

}  // namespace

ScanOperands scan_operands(ScanForm& form, const std::function<Value(const SExpr&)>& eval) {
  ScanSpec& spec = form.spec;
  ScanOperands r;
  r.where.push_back(form.fn->where);
  if (form.n_steps) {
    r.operands.push_back(eval(*form.n_steps).strong());
    r.where.push_back(form.n_steps->where);
    spec.has_n_steps = true;
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (const SlotEntry& s : pass == 0 ? form.sequences : form.mitsots) {
      TermRef t = eval(*s.expr).strong();
      const TensorType& type = slot_type(t, *s.expr);
      if (type.rank() == 0)
        fail(*s.expr,
             fmt::format("scan: a {} must have rank >= 1, got {}",
                         pass == 0 ? "sequence" : "mit-sot's initial history", to_string(type)));
      const TensorType element{type.dtype, Dims(type.dims.begin() + 1, type.dims.end())};
      for (std::size_t k = 0; k < s.taps.size(); ++k) {
        r.slot_of.push_back(static_cast<std::int64_t>(r.params.size() - k + s.rank[k]));
        r.params.push_back(element);
      }
      r.num_taps[pass] += s.taps.size();
      if (pass == 1) r.states.push_back(element);
      (pass == 0 ? spec.sequence_taps : spec.mitsot_taps).push_back(s.taps);
      r.operands.push_back(t);
      r.where.push_back(s.expr->where);
    }
  }
  for (const SExpr* s : form.sitsots) {
    const Value v = eval(*s);
    r.sitsot_literals.push_back(v.term ? std::nullopt : std::optional(v.literal));
    r.states.push_back(add_plain_slot(r, v.strong(), *s));
  }
  for (const SExpr* s : form.nonsequences) add_plain_slot(r, eval(*s).strong(), *s);
  spec.num_sitsot = static_cast<std::int64_t>(form.sitsots.size());
  spec.num_nonsequences = static_cast<std::int64_t>(form.nonsequences.size());
  return r;
}

void check_scan_params(const ScanForm& form, const ScanOperands& slots) {
  const SExpr& fn = *form.fn;
  if (fn.items.size() < 2 || !fn.items[1].is_list())
    fail(fn, "a scan body needs a parameter list: (fn (PARAMS...) OUTPUTS...)");
  const SExpr& plist = fn.items[1];
  if (plist.items.size() == slots.params.size()) return;
  std::vector<std::string> parts;
  if (slots.num_taps[0]) parts.push_back(plural(slots.num_taps[0], "sequence tap"));
  if (slots.num_taps[1]) parts.push_back(plural(slots.num_taps[1], "mit-sot tap"));
  if (!form.sitsots.empty()) parts.push_back(plural(form.sitsots.size(), "sit-sot"));
  if (!form.nonsequences.empty()) parts.push_back(plural(form.nonsequences.size(), "non-sequence"));
  fail(plist, fmt::format("the scan body takes {}, the slots give {} ({})",
                          plural(plist.items.size(), "parameter"), slots.params.size(),
                          parts.empty() ? "no slots" : fmt::format("{}", fmt::join(parts, ", "))));
}

std::vector<TermRef> scan_body_results(const ScanForm& form, const ScanOperands& slots,
                                       const std::vector<Value>& outputs) {
  const ScanSpec& spec = form.spec;
  const std::size_t expected = static_cast<std::size_t>(spec.num_outputs()) + spec.until;
  if (outputs.size() != expected)
    fail(*form.fn,
         fmt::format("the scan body returns {}, expected {} ({} mit-sot, {} sit-sot, {} "
                     "nit-sot{})",
                     plural(outputs.size(), "value"), expected, form.mitsots.size(),
                     form.sitsots.size(), spec.num_nitsot, spec.until ? " and the stop flag" : ""));
  std::vector<TermRef> out_terms;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Value& v = outputs[i];
    // A literal next state takes the state's dtype.
    const DType d = i < slots.states.size()
                        ? promote(slots.states[i].dtype, false, v.literal.default_dtype(), true)
                        : v.literal.default_dtype();
    out_terms.push_back(v.term ? v.term : v.literal.to_term(d));
  }
  return out_terms;
}

bool retype_literal_states(const ScanForm& form, ScanOperands& slots, TermRef body_fn) {
  bool retyped = false;
  const auto& outs = std::get<TupleType>(body_fn->type()).elements;
  for (std::size_t j = 0; j < form.sitsots.size(); ++j) {
    if (!slots.sitsot_literals[j]) continue;
    const std::size_t state = form.mitsots.size() + j;
    const std::size_t param = slots.num_taps[0] + slots.num_taps[1] + j;
    const std::size_t operand =
        1 + form.spec.has_n_steps + form.sequences.size() + form.mitsots.size() + j;
    const WeakLiteral& literal = *slots.sitsot_literals[j];
    const DType d = promote(outs[state].dtype, false, literal.default_dtype(), true);
    if (d == slots.states[state].dtype) continue;
    slots.operands[operand] = literal.to_term(d);
    slots.params[param].dtype = slots.states[state].dtype = d;
    retyped = true;
  }
  return retyped;
}

void check_scan_outputs(const ScanForm& form, const ScanOperands& slots, TermRef body_fn,
                        const std::vector<SourceLocation>& out_where) {
  const ScanSpec& spec = form.spec;
  const auto& out_types = std::get<TupleType>(body_fn->type()).elements;
  for (std::size_t i = 0; i < slots.states.size(); ++i)
    if (!compatible(out_types[i], slots.states[i]))
      throw DiagnosticError(
          out_where[i], fmt::format("scan: body output {} has type {}, its state has type {}",
                                    i + 1, to_string(out_types[i]), to_string(slots.states[i])));
  if (spec.until && out_types.back() != TensorType{DType::Bool, {}})
    throw DiagnosticError(out_where.back(),
                          fmt::format("scan: the stop flag must be a bool scalar, got {}",
                                      to_string(out_types.back())));
  if (form.keep_where && spec.keep.size() != static_cast<std::size_t>(spec.num_outputs()))
    fail(*form.keep_where, fmt::format("scan: :keep needs one entry per output ({}), got {}",
                                       spec.num_outputs(), spec.keep.size()));
}

}  // namespace eqsat::ops::parsing
