# CTest script: the eqsat program loads no C++ shared library (libstdc++,
# fmt, abseil), which would cost every process their relocations
# (tools/CMakeLists.txt). Argument: -DEQSAT=path of the program.
execute_process(COMMAND readelf -d ${EQSAT} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${EQSAT} failed: ${rc}")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" needed "${dynamic}")
if(NOT needed MATCHES "libc\\.so")
  message(FATAL_ERROR "no NEEDED entries read from ${EQSAT}: ${dynamic}")
endif()
foreach(lib ${needed})
  if(lib MATCHES "libstdc\\+\\+|libfmt|libabsl")
    message(FATAL_ERROR "eqsat loads a C++ shared library: ${lib}")
  endif()
endforeach()
message(STATUS "eqsat needs: ${needed}")
