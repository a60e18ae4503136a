# Compiles one source file of a configured build tree with the command the build would run, from
# its compile_commands.json, without building what the target links to (the library).
#
#   cmake -DBUILD_DIR=<dir> -DSOURCE_REGEX=<regex> -P compile_source.cmake
#
# Fails unless exactly one entry matches SOURCE_REGEX and its command succeeds.
cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS BUILD_DIR SOURCE_REGEX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "compile_source.cmake: set -D${var}=...")
  endif()
endforeach()
if(NOT EXISTS "${BUILD_DIR}/compile_commands.json")
  message(FATAL_ERROR "no compile_commands.json in ${BUILD_DIR} "
                      "(configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)")
endif()

file(READ "${BUILD_DIR}/compile_commands.json" database)
string(JSON count LENGTH "${database}")
set(matches 0)
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON file GET "${database}" ${i} file)
    if(file MATCHES "${SOURCE_REGEX}")
      math(EXPR matches "${matches} + 1")
      set(source "${file}")
      string(JSON command GET "${database}" ${i} command)
      string(JSON directory GET "${database}" ${i} directory)
    endif()
  endforeach()
endif()
if(NOT matches EQUAL 1)
  message(FATAL_ERROR "${matches} entries of ${BUILD_DIR}/compile_commands.json match "
                      "'${SOURCE_REGEX}', expected 1")
endif()

message(STATUS "${command}")
separate_arguments(arguments UNIX_COMMAND "${command}")
execute_process(COMMAND ${arguments} WORKING_DIRECTORY "${directory}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "compiling ${source} failed (${result})")
endif()
