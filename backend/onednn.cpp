#include "onednn.hpp"

#ifdef EQSAT_HAVE_DNNL
#include <dlfcn.h>
#include <dnnl.h>
#endif

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace eqsat::backend::detail {

#ifdef EQSAT_HAVE_DNNL
namespace {

// oneDNN's packed GEMM (src/cpu/gemm/gemm_pack.hpp): BLAS's column-major
// convention, every argument by pointer. Internal to the library, so found
// by their mangled names: a library without them (or whose signatures
// changed, which changes the names) leaves them null and products unpacked.
using PackSize = dnnl_status_t (*)(const char*, const char*, const char*, const dnnl_dim_t*,
                                   const dnnl_dim_t*, const dnnl_dim_t*, const dnnl_dim_t*,
                                   const dnnl_dim_t*, std::size_t*, bool*);
using Pack = dnnl_status_t (*)(const char*, const char*, const char*, const dnnl_dim_t*,
                               const dnnl_dim_t*, const dnnl_dim_t*, const dnnl_dim_t*,
                               const dnnl_dim_t*, const float*, float*);
using Compute = dnnl_status_t (*)(const char*, const char*, const dnnl_dim_t*, const dnnl_dim_t*,
                                  const dnnl_dim_t*, const float*, const dnnl_dim_t*, const float*,
                                  const dnnl_dim_t*, const float*, float*, const dnnl_dim_t*);

// The library's entry points, or null when it cannot be loaded.
struct OneDnn {
  decltype(&dnnl_sgemm) sgemm = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;  // its OpenMP runtime's (libgomp)
  PackSize pack_size = nullptr;
  Pack pack = nullptr;
  Compute compute = nullptr;

  OneDnn() {
    void* lib = dlopen(EQSAT_DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    sgemm = reinterpret_cast<decltype(sgemm)>(dlsym(lib, "dnnl_sgemm"));
    omp_set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(lib, "omp_set_num_threads"));
    if (!sgemm || !omp_set_num_threads) sgemm = nullptr;
    pack_size = reinterpret_cast<PackSize>(
        dlsym(lib, "_ZN4dnnl4impl3cpu19sgemm_pack_get_sizeEPKcS3_S3_PKlS5_S5_S5_S5_PmPb"));
    pack = reinterpret_cast<Pack>(
        dlsym(lib, "_ZN4dnnl4impl3cpu10sgemm_packEPKcS3_S3_PKlS5_S5_S5_S5_PKfPf"));
    compute = reinterpret_cast<Compute>(
        dlsym(lib, "_ZN4dnnl4impl3cpu13sgemm_computeEPKcS3_PKlS5_S5_PKfS5_S7_S5_S7_PfS5_"));
    if (!pack_size || !pack || !compute) pack_size = nullptr, pack = nullptr, compute = nullptr;
  }
};

const OneDnn& onednn() {
  static const OneDnn lib;
  return lib;
}

// The column-major product oneDNN's packed calls take: c^T = op(b)^T op(a)^T,
// b (the packed one) as their A.
struct Shape {
  const float* b;
  char trans_b, trans_a;
  dnnl_dim_t m, n, k, ldb;  // the column-major M (our n), N (our m), K, lda
  bool operator==(const Shape&) const = default;
};

// One pack of a held matrix's block; `data` null when oneDNN declined to
// pack that shape (then the product is not packed either).
struct Packed {
  Shape shape;
  std::unique_ptr<float[], void (*)(float*)> data{nullptr, [](float*) {}};
};

// A held range of bytes and the packs made in it.
struct Held {
  const std::byte* begin;
  const std::byte* end;
  int holders = 1;
  std::vector<std::unique_ptr<Packed>> packs;
};

struct Registry {
  std::mutex mutex;
  std::vector<Held> held;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: holders may outlive statics
  return *r;
}

void free_aligned(float* p) {
  ::operator delete[](p, std::align_val_t(64));
}

// The pack of `shape` (made now if it is the first call for it), or null
// when b is not held or oneDNN does not pack it.
const float* packed_operand(const OneDnn& lib, const Shape& s) {
  if (!lib.pack) return nullptr;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto* p = reinterpret_cast<const std::byte*>(s.b);
  auto held = std::find_if(r.held.begin(), r.held.end(),
                           [&](const Held& h) { return h.begin <= p && p < h.end; });
  if (held == r.held.end()) return nullptr;
  for (const auto& pk : held->packs)
    if (pk->shape == s) return pk->data.get();
  auto& made = held->packs.emplace_back(std::make_unique<Packed>());
  made->shape = s;
  const char trans_b[2] = {s.trans_b, 0}, trans_other[2] = {s.trans_a, 0};
  std::size_t bytes = 0;
  bool worth = false;
  // The other operand's leading dimension: checked, but the pack does not
  // depend on it.
  const dnnl_dim_t lda_other = std::max({dnnl_dim_t{1}, s.k, s.n});
  if (lib.pack_size("A", trans_b, trans_other, &s.m, &s.n, &s.k, &s.ldb, &lda_other, &bytes,
                    &worth) != dnnl_success ||
      !worth || bytes == 0)
    return nullptr;
  auto* data = static_cast<float*>(::operator new[](bytes, std::align_val_t(64)));
  made->data = {data, free_aligned};
  if (lib.pack("A", trans_b, trans_other, &s.m, &s.n, &s.k, &s.ldb, &lda_other, s.b, data) !=
      dnnl_success)
    made->data.reset();
  return made->data.get();
}

}  // namespace
#endif

bool onednn_sgemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                  std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc) {
#ifdef EQSAT_HAVE_DNNL
  const OneDnn& lib = onednn();
  if (!lib.sgemm) return false;
  // The executor's pool splits the work: oneDNN's OpenMP team is this
  // thread alone (the setting is per calling thread).
  thread_local const bool one_thread = (lib.omp_set_num_threads(1), true);
  (void)one_thread;
  // Row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T.
  const Shape s{b, tb ? 'T' : 'N', ta ? 'T' : 'N', n, m, k, ldb};
  if (const float* packed = packed_operand(lib, s)) {
    const char packed_flag[2] = {'P', 0}, trans_other[2] = {s.trans_a, 0};
    const float beta = 0.0f;
    const dnnl_dim_t lda_other = lda, ldc_col = ldc;
    return lib.compute(packed_flag, trans_other, &s.m, &s.n, &s.k, packed, &s.ldb, a, &lda_other,
                       &beta, c, &ldc_col) == dnnl_success;
  }
  return lib.sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc) ==
         dnnl_success;
#else
  (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)c,
      (void)ldc;
  return false;
#endif
}

HeldMatrix::HeldMatrix(const void* data, std::size_t bytes) : data_(data), bytes_(bytes) {
#ifdef EQSAT_HAVE_DNNL
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto* p = static_cast<const std::byte*>(data);
  for (Held& h : r.held)
    if (h.begin == p && h.end == p + bytes) {
      ++h.holders;
      return;
    }
  r.held.push_back(Held{p, p + bytes, 1, {}});
#else
  (void)bytes;
#endif
}

HeldMatrix::~HeldMatrix() {
#ifdef EQSAT_HAVE_DNNL
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto* p = static_cast<const std::byte*>(data_);
  auto it = std::find_if(r.held.begin(), r.held.end(),
                         [&](const Held& h) { return h.begin == p && h.end == p + bytes_; });
  if (it != r.held.end() && --it->holders == 0) r.held.erase(it);
#else
  (void)data_, (void)bytes_;
#endif
}

bool onednn_packs() {
#ifdef EQSAT_HAVE_DNNL
  return onednn().compute != nullptr;
#else
  return false;
#endif
}

std::size_t held_packs() {
  std::size_t n = 0;
#ifdef EQSAT_HAVE_DNNL
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Held& h : r.held) n += h.packs.size();
#endif
  return n;
}

}  // namespace eqsat::backend::detail
