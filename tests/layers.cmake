# The include graph runs downward only (docs/architecture.md, "The
# folders"): each library folder's sources include only the folders listed
# for it here (run with -DSOURCE=<repository root>). rules/ is five folders
# (rules/README.md): tensor/ <- loops/ and autodiff/ <- lang/ <- pipeline/.
# Includes without a folder (`#include "sibling.hpp"`) stay in the folder.
cmake_minimum_required(VERSION 3.20)
set(allowed_support "support")
set(allowed_egraph "egraph;support")
set(allowed_ops "ops;support")
set(allowed_backend "backend;ops;support")
set(allowed_onnx "onnx;ops;support")
set(below_rules "egraph;ops;backend;support")
set(allowed_rules/tensor "rules/tensor;${below_rules}")
set(allowed_rules/loops "rules/loops;rules/tensor;${below_rules}")
set(allowed_rules/autodiff "rules/autodiff;rules/tensor;${below_rules}")
set(allowed_rules/lang "rules/lang;rules/loops;rules/autodiff;rules/tensor;${below_rules}")
set(allowed_rules/pipeline
    "rules/pipeline;rules/lang;rules/loops;rules/autodiff;rules/tensor;${below_rules}")
set(folders support egraph ops backend onnx rules/tensor rules/loops rules/autodiff rules/lang
            rules/pipeline)

set(bad "")
set(count 0)
foreach(folder ${folders})
  file(GLOB_RECURSE files ${SOURCE}/${folder}/*.cpp ${SOURCE}/${folder}/*.hpp
       ${SOURCE}/${folder}/*.in)
  if(NOT files)
    message(FATAL_ERROR "no sources found under ${SOURCE}/${folder}")
  endif()
  foreach(file ${files})
    math(EXPR count "${count} + 1")
    file(STRINGS ${file} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX MATCH "^#include \"([a-z_]+)/(([a-z_]+)/)?" match "${line}")
      set(target ${CMAKE_MATCH_1})
      if(target STREQUAL "rules" AND CMAKE_MATCH_3)
        set(target "rules/${CMAKE_MATCH_3}")
      endif()
      if(NOT target IN_LIST allowed_${folder})
        string(APPEND bad "\n  ${file}: ${line} (${folder}/ may include: ${allowed_${folder}})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "includes that run upward or sideways:${bad}")
endif()
message(STATUS "${count} files of the library folders include only downward")
