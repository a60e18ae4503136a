# shapelint_abseil_archives(<out-var> <target>...)
#
# The static archives of every Abseil library that <target>s link, directly or through other
# targets: libabsl_<name>.a next to each imported shared libabsl_<name>.so (Debian's libabsl-dev
# installs both, but its CMake package names only the shared ones). Empty when any archive is
# missing, so that a caller links all of Abseil one way or the other, never half of it.
#
# Why: Abseil is some thirty shared libraries. Loading and relocating them is a third of the
# start of a process that lints a small model in a few milliseconds (docs/performance.md).
function(shapelint_abseil_archives out)
  set(pending ${ARGN})
  set(seen)
  set(archives)
  while(pending)
    list(POP_FRONT pending item)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(NOT TARGET "${item}" OR item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${item}")
    get_target_property(type "${item}" TYPE)
    get_target_property(imported "${item}" IMPORTED)
    if(item MATCHES "^absl::" AND imported AND type STREQUAL "SHARED_LIBRARY")
      get_target_property(location "${item}" LOCATION)
      string(REGEX REPLACE "\\.so(\\.[0-9]+)*$" ".a" archive "${location}")
      if(archive STREQUAL location OR NOT EXISTS "${archive}")
        set(${out} "" PARENT_SCOPE)
        return()
      endif()
      list(APPEND archives "${archive}")
    endif()
    get_target_property(links "${item}" INTERFACE_LINK_LIBRARIES)
    if(links)
      list(APPEND pending ${links})
    endif()
    if(NOT imported)
      get_target_property(links "${item}" LINK_LIBRARIES)
      if(links)
        list(APPEND pending ${links})
      endif()
    endif()
  endwhile()
  set(${out} "${archives}" PARENT_SCOPE)
endfunction()
