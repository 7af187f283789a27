// Fuzz target: the .npy reader. Any bytes are an array or a DiagnosticError
// naming the file (a header declaring more data than the file holds
// included); never a crash or an attempt to allocate what the header says.
#include "ops/diagnostic.hpp"
#include "ops/npy.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eqsat::ops;
  // The reader takes a path: one scratch file per fuzzing process.
  static const std::string path = "/tmp/eqsat-fuzz-npy-" + std::to_string(::getpid()) + ".npy";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const Array a = read_npy(path);
    if (!(read_npy_type(path) == a.type())) __builtin_trap();
  } catch (const DiagnosticError&) {
  }
  return 0;
}
