// The executable's own OpenBLAS: whether there is one, and which kernels
// it runs (blas_start.cpp chooses them before OpenBLAS starts).
#pragma once

#include <string>

namespace eqsat::backend::detail {

// Whether OpenBLAS is linked into the executable, not a shared library the
// process may share with others (NumPy). False without OpenBLAS.
bool own_blas();

// The name of the kernels OpenBLAS runs ("SkylakeX", "Haswell", ...), as
// OpenBLAS reports it; empty without OpenBLAS.
std::string blas_kernels();

}  // namespace eqsat::backend::detail
