// The executable's own OpenBLAS: whether there is one, and which kernels
// it runs (blas_start.cpp chooses them before OpenBLAS starts; `eqsat
// --version` names them).
#pragma once

#include <string>
#include <string_view>

namespace eqsat::backend {

namespace detail {
// Whether OpenBLAS is linked into the executable, not a shared library the
// process may share with others (NumPy). False without OpenBLAS.
bool own_blas();
}  // namespace detail

// The name of the kernels OpenBLAS runs ("SkylakeX", "Haswell", ...), as
// OpenBLAS reports it; empty without OpenBLAS.
std::string blas_kernels();

// The OpenBLAS kernels for this CPU's vector units ("SkylakeX" with
// AVX-512, "Haswell" or "Zen" with AVX2 and FMA), or null: OpenBLAS's own
// choice stands.
const char* blas_core();

// A warning when OpenBLAS runs `kernels` = its generic ones ("Prescott",
// what it falls back to on a CPU model newer than its table) on a CPU for
// which blas_core() names better ones (`cpu_core`): it names the
// OPENBLAS_CORETYPE that picks them. Empty otherwise. The executable's
// own copy never needs it (blas_start.cpp chooses); a shared one, NumPy's
// in the Python module, starts before eqsat can choose.
std::string generic_blas_warning(std::string_view kernels, const char* cpu_core);

}  // namespace eqsat::backend
