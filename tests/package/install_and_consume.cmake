# CTest script: installs the build tree into a fresh prefix, then configures,
# builds and runs tests/package/consumer against it with find_package(eqsat).
# Arguments: -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=...
# -DLINK_FLAGS=... (the build's compiler, and its sanitizers if any)
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f bin/eqsat lib/cmake/eqsat/eqsatConfig.cmake include/eqsat/egraph/egraph.hpp)
  if(NOT EXISTS ${WORK_DIR}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK_DIR}/build
                        -G Ninja -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer did not prove its equality: ${rc}")
endif()
# The installed program runs from its prefix (shipped rules compiled in).
execute_process(COMMAND ${WORK_DIR}/prefix/bin/eqsat --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT version MATCHES "^eqsat [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "eqsat --version: ${rc} ${version}")
endif()
