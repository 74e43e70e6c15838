# Builds tests/consumer/ against oxir one way, runs it and checks its output.
#   cmake -DMODE=find_package|add_subdirectory|single_header -DOXIR_SOURCE_DIR=... -DOXIR_BINARY_DIR=...
#         -DWORK_DIR=<scratch dir> -DCXX=<C++ compiler> [-DGENERATOR=...] [-DMAKE_PROGRAM=...]
#         -P consumer_test.cmake
cmake_minimum_required(VERSION 3.20)

foreach(_var MODE OXIR_SOURCE_DIR WORK_DIR CXX)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "consumer_test.cmake: -D${_var}=... is required")
  endif()
endforeach()

set(consumer_src "${OXIR_SOURCE_DIR}/tests/consumer")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# run(<command...>): runs a command, echoing it; stops the test with its output if it fails.
function(run)
  list(JOIN ARGN " " cmdline)
  message(STATUS "+ ${cmdline}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(NOTICE "${out}")
    message(FATAL_ERROR "command failed (${rc}): ${cmdline}")
  endif()
endfunction()

set(gen_args "-DCMAKE_CXX_COMPILER=${CXX}" -DCMAKE_BUILD_TYPE=Release)
if(GENERATOR)
  list(APPEND gen_args -G "${GENERATOR}")
endif()
if(MAKE_PROGRAM)
  list(APPEND gen_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

if(MODE STREQUAL "find_package")
  # (a) install oxir into a scratch prefix, then a separate project find_package()s it.
  if(NOT OXIR_BINARY_DIR)
    message(FATAL_ERROR "find_package mode needs -DOXIR_BINARY_DIR=<configured oxir build dir>")
  endif()
  set(prefix "${WORK_DIR}/prefix")
  run("${CMAKE_COMMAND}" --install "${OXIR_BINARY_DIR}" --prefix "${prefix}")
  foreach(_f include/oxir/oxir.hpp share/cmake/oxir/oxirConfig.cmake share/cmake/oxir/oxirConfigVersion.cmake
             share/cmake/oxir/oxirTargets.cmake)
    if(NOT EXISTS "${prefix}/${_f}")
      message(FATAL_ERROR "install tree lacks ${_f}")
    endif()
  endforeach()
  run("${CMAKE_COMMAND}" -S "${consumer_src}" -B "${WORK_DIR}/build" ${gen_args}
      "-DCMAKE_PREFIX_PATH=${prefix}" -DOXIR_CONSUMER_MODE=package "-DOXIR_EXPECTED_PREFIX=${prefix}")
  run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
  set(app "${WORK_DIR}/build/app")
elseif(MODE STREQUAL "add_subdirectory")
  # (b) a project that vendors the oxir source tree with add_subdirectory().
  run("${CMAKE_COMMAND}" -S "${consumer_src}" -B "${WORK_DIR}/build" ${gen_args}
      -DOXIR_CONSUMER_MODE=subdirectory "-DOXIR_SOURCE_DIR=${OXIR_SOURCE_DIR}")
  run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
  set(app "${WORK_DIR}/build/app")
elseif(MODE STREQUAL "single_header")
  # (c) the single header, a plain compiler call; range-v3 comes from the system include path.
  set(app "${WORK_DIR}/app")
  run("${CXX}" -std=c++20 -O1 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror -DOXIR_CONSUMER_SINGLE_HEADER
      -I "${OXIR_SOURCE_DIR}/single_include" "${consumer_src}/main.cpp" -o "${app}")
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()

execute_process(COMMAND "${app}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ "${consumer_src}/expected_output.txt" expected)
string(REPLACE "\r\n" "\n" out "${out}")
string(REPLACE "\r\n" "\n" expected "${expected}")
if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
  message(NOTICE "--- expected ---\n${expected}--- got ---\n${out}${err}")
  message(FATAL_ERROR "consumer (${MODE}) exited ${rc} or printed something other than expected_output.txt")
endif()
message(STATUS "consumer (${MODE}) output matches expected_output.txt:\n${out}")
