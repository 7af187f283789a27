# CTest script: installs the build tree into a fresh prefix, then configures,
# builds and runs tests/package/consumer against it with find_package(eqsat).
# Arguments: -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=...
# -DLINK_FLAGS=... (the build's compiler, and its sanitizers if any)
# -DPYTHON=... (the interpreter the Python package was built for; empty
# when it was not built). Also checks that the exported targets travel:
# no -march=native, no absolute path of a library outside the prefix.
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
file(GLOB targets ${WORK_DIR}/prefix/lib/cmake/eqsat/eqsatTargets*.cmake)
foreach(f ${targets})
  file(READ ${f} text)
  if(text MATCHES "march=native")
    message(FATAL_ERROR "${f} exports -march=native")
  endif()
  if(text MATCHES "INTERFACE_LINK_LIBRARIES[^\n]*\"[^\n]*/usr/")
    message(FATAL_ERROR "${f} exports an absolute library path")
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
# The installed program works from its prefix: it optimizes and runs a graph.
execute_process(COMMAND ${WORK_DIR}/prefix/bin/eqsat run ${SOURCE_DIR}/examples/01_elementwise.eg
                        --random 0 OUTPUT_VARIABLE ran RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR ran STREQUAL "")
  message(FATAL_ERROR "eqsat run from the prefix: ${rc} ${ran}")
endif()
# The installed program finds its ONNX module under the prefix.
execute_process(COMMAND ${WORK_DIR}/prefix/bin/eqsat optimize ${SOURCE_DIR}/examples/01_elementwise.eg
                        -o ${WORK_DIR}/exported.onnx RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/exported.onnx)
  message(FATAL_ERROR "eqsat optimize -o .onnx from the prefix: ${rc} ${err}")
endif()
# The installed Python package imports from the prefix, away from the source.
if(PYTHON)
  file(GLOB_RECURSE init ${WORK_DIR}/prefix/*.py)
  list(FILTER init INCLUDE REGEX "/eqsat/__init__\\.py$")
  if(NOT init)
    message(FATAL_ERROR "the Python package was not installed")
  endif()
  list(GET init 0 init)
  get_filename_component(package ${init} DIRECTORY)
  get_filename_component(site ${package} DIRECTORY)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${site}
                          ${PYTHON} -c "import eqsat; print(eqsat.__version__, eqsat.__file__)"
                  WORKING_DIRECTORY ${WORK_DIR} OUTPUT_VARIABLE imported RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT imported MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+ ${site}")
    message(FATAL_ERROR "import eqsat from the prefix: ${rc} ${imported}")
  endif()
endif()
