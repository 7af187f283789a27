# `eqsat print` exit statuses (docs/language.md "Command line"): 0 on success,
# 1 on a user error with the located diagnostics on stderr, 2 on bad usage.
# Run with -DEQSAT=<eqsat program> -DSOURCE=<repository root>.
function(expect_status status)
  execute_process(COMMAND ${EQSAT} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL status)
    message(FATAL_ERROR "eqsat ${ARGN}: exit status ${rc}, expected ${status}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
  set(last_err "${err}" PARENT_SCOPE)
endfunction()

expect_status(0 print ${SOURCE}/examples/01_elementwise.eg)
if(NOT last_out MATCHES "\\(input x \\(f64 4 3\\)\\)" OR NOT last_out MATCHES "; \\(f64 4 3\\)")
  message(FATAL_ERROR "unexpected output:\n${last_out}")
endif()

set(bad ${SOURCE}/tests/ops/fail/unknown_name.eg)
expect_status(1 print ${bad})
if(NOT last_err STREQUAL "${bad}:3:21: error: unknown name 'y'\n")
  message(FATAL_ERROR "unexpected diagnostics:\n${last_err}")
endif()

expect_status(1 print ${SOURCE}/no/such/graph.eg)
expect_status(2 print)
expect_status(2 print a.eg b.eg)
expect_status(2 print --no-such-option a.eg)
