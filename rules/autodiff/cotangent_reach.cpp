// Which parts of a loop a cotangent reaches (reverse_loop.hpp's Reach): the
// reverse loops build pullback terms only for those, so a structurally zero
// cotangent never meets a NaN derivative.
#include "rules/autodiff/reverse_loop.hpp"

namespace eqsat::rules::reverse_loop {

namespace {

// Per body parameter of `f`, whether the body's pullback seeded at the
// outputs `seeded` gives it a cotangent. The seeds are placeholders (slots
// after the parameters): only which cotangents are nullptr is read.
std::vector<bool> reached_params(const Forward& f, const std::vector<bool>& seeded) {
  std::vector<TermRef> body, seeds, wrts;
  std::vector<std::size_t> wrt_param;
  for (std::size_t i = 0; i < f.outs.size(); ++i) {
    body.push_back(f.fn->operand(i));
    seeds.push_back(
        seeded[i] && f.float_out(i)
            ? Term::nominal(static_cast<std::int64_t>(f.params.size() + i), f.step_type(i))
            : nullptr);
  }
  for (std::size_t p = 0; p < f.params.size(); ++p)
    if (ops::is_float(f.params[p].dtype)) {
      wrts.push_back(Term::nominal(static_cast<std::int64_t>(p), f.params[p]));
      wrt_param.push_back(p);
    }
  std::vector<bool> reached(f.params.size(), false);
  if (std::ranges::none_of(seeds, [](TermRef s) { return s != nullptr; })) return reached;
  const std::vector<TermRef> gw = vjp(body, seeds, wrts);
  for (std::size_t w = 0; w < gw.size(); ++w) reached[wrt_param[w]] = gw[w] != nullptr;
  return reached;
}

}  // namespace

Reach reach(const Forward& f, const std::vector<TermRef>& gouts,
            const std::vector<TermRef>& finals) {
  const std::size_t nstates = f.nmit + f.nsit;
  std::vector<std::size_t> state_of(f.params.size(), nstates);  // parameter -> state
  std::size_t p = 0;
  for (const auto& taps : f.spec.sequence_taps) p += taps.size();
  for (std::size_t j = 0; j < f.nmit; ++j)
    for (std::size_t k = 0; k < f.spec.mitsot_taps[j].size(); ++k) state_of[p++] = j;
  for (std::size_t j = 0; j < f.nsit; ++j) state_of[p++] = f.nmit + j;
  Reach r{.params = {}, .live = std::vector<bool>(nstates, false), .read = {}};
  for (std::size_t j = 0; j < f.nsit; ++j)
    r.live[f.nmit + j] = j < finals.size() && finals[j] && f.float_out(f.nmit + j);
  // Seeding more outputs only reaches more parameters: the fixed point
  // comes after at most one round per state.
  for (bool changed = true; changed;) {
    std::vector<bool> seeded(f.outs.size(), false);
    for (std::size_t i = 0; i < f.outs.size(); ++i)
      seeded[i] = (i < gouts.size() && gouts[i]) || (i < nstates && r.live[i]);
    r.params = reached_params(f, seeded);
    changed = false;
    for (std::size_t q = 0; q < f.params.size(); ++q)
      if (r.params[q] && state_of[q] < nstates && !r.live[state_of[q]])
        changed = r.live[state_of[q]] = true;
  }
  r.read.assign(nstates, false);
  for (std::size_t q = 0; q < f.params.size(); ++q)
    if (r.params[q] && state_of[q] < nstates) r.read[state_of[q]] = true;
  return r;
}

}  // namespace eqsat::rules::reverse_loop
