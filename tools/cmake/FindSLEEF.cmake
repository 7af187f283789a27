# FindSLEEF: the SLEEF vectorized math library (Debian's libsleef-dev), as
# the imported target SLEEF::sleef. Used by the build and, installed next
# to eqsatConfig.cmake, by find_package(eqsat) on the consumer's machine,
# so the exported targets name SLEEF::sleef rather than a path.
find_path(SLEEF_INCLUDE_DIR sleef.h PATH_SUFFIXES x86_64-linux-gnu)
find_library(SLEEF_LIBRARY sleef)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SLEEF REQUIRED_VARS SLEEF_LIBRARY SLEEF_INCLUDE_DIR)
if(SLEEF_FOUND AND NOT TARGET SLEEF::sleef)
  add_library(SLEEF::sleef UNKNOWN IMPORTED)
  set_target_properties(SLEEF::sleef PROPERTIES IMPORTED_LOCATION ${SLEEF_LIBRARY}
                                                INTERFACE_INCLUDE_DIRECTORIES ${SLEEF_INCLUDE_DIR})
endif()
mark_as_advanced(SLEEF_INCLUDE_DIR SLEEF_LIBRARY)
