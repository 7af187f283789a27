#include "sleef_library.hpp"

#include "runtime_error.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace eqsat::backend::sleef {

std::atomic<void*> routines[static_cast<std::size_t>(Routine::kCount)] = {};

namespace {

#define EQSAT_SLEEF_NAME(name, level, V) #name,
#define EQSAT_SLEEF_NAMES(fn) EQSAT_SLEEF_ROUTINES(EQSAT_SLEEF_NAME, fn)
constexpr const char* kNames[] = {EQSAT_VMATH_FUNCTIONS(EQSAT_SLEEF_NAMES)};
#undef EQSAT_SLEEF_NAMES
#undef EQSAT_SLEEF_NAME
static_assert(std::size(kNames) == static_cast<std::size_t>(Routine::kCount));

// RTLD_LOCAL: the library's symbols do not become the process's. The
// handle is never closed: the routines stay callable.
void open_library() {
  void* library = dlopen(EQSAT_SLEEF_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw RuntimeError(fmt::format("the vector math library {} (SLEEF) could not be opened: {}",
                                   EQSAT_SLEEF_SONAME, dlerror()));
  for (std::size_t i = 0; i < std::size(kNames); ++i) {
    void* f = dlsym(library, kNames[i]);
    if (!f)
      throw RuntimeError(fmt::format("the vector math library {} (SLEEF) has no {}: {}",
                                     EQSAT_SLEEF_SONAME, kNames[i], dlerror()));
    routines[i].store(f, std::memory_order_release);
  }
}

}  // namespace

void* open_routine(Routine r) {
  // call_once tries again after a throw: a later call reports it again.
  static std::once_flag once;
  std::call_once(once, open_library);
  return routines[static_cast<std::size_t>(r)].load(std::memory_order_acquire);
}

}  // namespace eqsat::backend::sleef
