# No source file is longer than 700 lines (STYLE.md): every .cpp, .hpp and
# .py of the repository's folders (run with -DSOURCE=<repository root>).
cmake_minimum_required(VERSION 3.20)
set(limit 700)
file(GLOB_RECURSE files LIST_DIRECTORIES false
     ${SOURCE}/support/* ${SOURCE}/egraph/* ${SOURCE}/ops/* ${SOURCE}/backend/* ${SOURCE}/onnx/*
     ${SOURCE}/rules/* ${SOURCE}/tools/* ${SOURCE}/tests/* ${SOURCE}/bench/* ${SOURCE}/examples/*)
list(FILTER files INCLUDE REGEX "\\.(cpp|hpp|py)$")
set(bad "")
foreach(file ${files})
  file(READ ${file} text)
  string(REGEX MATCHALL "\n" newlines "${text}")
  list(LENGTH newlines n)
  if(n GREATER limit)
    string(APPEND bad "\n  ${file}: ${n} lines")
  endif()
endforeach()
list(LENGTH files count)
if(bad)
  message(FATAL_ERROR "source files over ${limit} lines:${bad}")
endif()
message(STATUS "${count} source files, none over ${limit} lines")
