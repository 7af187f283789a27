# FindSLEEF: the SLEEF vectorized math library (Debian's libsleef-dev):
# SLEEF_LIBRARY, whose soname the backend opens at run time
# (backend/sleef_library.hpp). No header: the backend declares the routines
# it calls itself.
find_library(SLEEF_LIBRARY sleef)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SLEEF REQUIRED_VARS SLEEF_LIBRARY)
mark_as_advanced(SLEEF_LIBRARY)
