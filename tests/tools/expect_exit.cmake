# Runs a command and checks its exact exit code and, optionally, a regex on its output.
#
#   cmake -DEXPECT_EXIT=<code> [-DEXPECT_OUTPUT=<regex>] -P expect_exit.cmake -- <command> [args...]
#
# EXPECT_OUTPUT is matched against standard output and standard error together. Used by ctest to
# run the real onnx-shapelint binary, where WILL_FAIL could not tell exit 1 from exit 2.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED EXPECT_EXIT)
  message(FATAL_ERROR "expect_exit.cmake: set -DEXPECT_EXIT=<code>")
endif()

# Everything after "--" is the command.
set(command)
set(in_command FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(in_command)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(in_command TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "expect_exit.cmake: no command after --")
endif()

execute_process(
  COMMAND ${command}
  RESULT_VARIABLE actual_exit
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

string(REPLACE ";" " " shown "${command}")
if(NOT actual_exit STREQUAL EXPECT_EXIT)
  message(FATAL_ERROR "`${shown}` exited with '${actual_exit}', expected ${EXPECT_EXIT}.\n"
                      "Output:\n${output}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT output MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "`${shown}` output does not match '${EXPECT_OUTPUT}'.\nOutput:\n${output}")
endif()
message(STATUS "`${shown}` exited with ${actual_exit} as expected")
