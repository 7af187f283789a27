// fmt's compiled part, built into the program from Debian's own header
// (fmt/format-inl.h, what libfmt.so is made of) instead of linking
// libfmt.so: with abseil's archives and -static-libstdc++ the program then
// loads no C++ shared library, and a process no longer maps libstdc++.so
// and applies its ~3,000 relocations at every start (bench/README.md,
// "Start-up round 6"). The explicit instantiations are the templates
// libfmt.so exports that fmt/format.h declares extern.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
