# `eqsat dot` on every example, as the graph and as the saturated e-graph:
# Graphviz's `dot -Tsvg` must accept each picture, and the e-graph picture
# has an e-class cluster and a chosen (filled) e-node.
# Run with -DEQSAT=<eqsat> -DDOT=<Graphviz dot> -DSOURCE=<repository root> -DWORK=<scratch dir>.
file(MAKE_DIRECTORY ${WORK})
file(GLOB examples ${SOURCE}/examples/*.eg)
foreach(example ${examples})
  get_filename_component(name ${example} NAME_WE)
  foreach(mode graph egraph)
    set(flags)
    if(mode STREQUAL "egraph")
      set(flags --egraph --iter-limit 4 --quiet)
    endif()
    set(picture ${WORK}/${name}.${mode}.dot)
    execute_process(COMMAND ${EQSAT} dot ${example} ${flags} -o ${picture} RESULT_VARIABLE rc
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "eqsat dot ${example} ${flags}: exit status ${rc}\n${err}")
    endif()
    execute_process(COMMAND ${DOT} -Tsvg ${picture} -o ${picture}.svg RESULT_VARIABLE rc
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
      message(FATAL_ERROR "dot -Tsvg rejects ${picture} (status ${rc}):\n${err}")
    endif()
    file(READ ${picture} text)
    if(mode STREQUAL "egraph" AND (NOT text MATCHES "subgraph cluster_c[0-9]+"
                                   OR NOT text MATCHES "fillcolor=gold"))
      message(FATAL_ERROR "${picture}: no e-class cluster or no chosen e-node")
    endif()
    if(mode STREQUAL "graph" AND NOT text MATCHES "output ")
      message(FATAL_ERROR "${picture}: no output drawn")
    endif()
  endforeach()
endforeach()
