# shapelint_bundle_libraries(<target> <destination> <rpath>)
#
# For a wheel (pip install, scikit-build-core): installs into <destination> a copy of every
# shared library that <target> loads, directly or through another one, except those that every
# x86_64 Linux with glibc has (the libraries the manylinux policies allow a wheel to use from
# the system: glibc's, libgcc_s, libstdc++, libz), and makes <target> find the copies first.
# <destination> is a directory of the wheel: absolute (SKBUILD_DATA_DIR/...) or relative to the
# install prefix (the package directory). <target> must be installed into <destination>'s
# parent or into <destination> itself; <rpath> says which, as the loader reads it ($ORIGIN/...).
#
# Why copies, not a static link: Debian's libprotobuf.a and libabsl_*.a are compiled for
# executables only (thread-local variables with the local-exec model, R_X86_64_TPOFF32), which a
# shared object such as a Python extension cannot contain, and libonnx has no archive at all.
# So the extension and the text-format module link them shared, as on Debian, and the wheel
# carries them: it then installs on any x86_64 Linux with a glibc at least as new as the build's,
# which is what `auditwheel show` checks (tests/hooks/pre_commit_python_test.sh).
#
# The search path is a DT_RPATH, not a DT_RUNPATH: the loader also searches a DT_RPATH for the
# libraries that the copies themselves need (libonnx needs libonnx_proto, which needs
# libprotobuf), and Debian's copies name no search path of their own.
function(shapelint_bundle_libraries target destination rpath)
  set_target_properties(${target} PROPERTIES BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${rpath}")
  target_link_options(${target} PRIVATE LINKER:--disable-new-dtags)
  if(IS_ABSOLUTE "${destination}")
    set(directory "${destination}")
  else()
    set(directory "\${CMAKE_INSTALL_PREFIX}/${destination}")
  endif()
  install(CODE "
    file(GET_RUNTIME_DEPENDENCIES
      LIBRARIES \"$<TARGET_FILE:${target}>\"
      RESOLVED_DEPENDENCIES_VAR shapelint_resolved
      UNRESOLVED_DEPENDENCIES_VAR shapelint_unresolved
      PRE_EXCLUDE_REGEXES
        \"^(ld-linux[^/]*|lib(c|m|dl|rt|pthread|util|resolv|gcc_s|stdc\\\\+\\\\+|z)\\\\.so(\\\\..*)?)$\")
    if(shapelint_unresolved)
      message(FATAL_ERROR \"${target} needs libraries that were not found: \${shapelint_unresolved}\")
    endif()
    foreach(library IN LISTS shapelint_resolved)
      get_filename_component(name \"\${library}\" NAME)
      message(STATUS \"Bundling \${library} for ${target}\")
      file(MAKE_DIRECTORY \"${directory}\")
      file(COPY_FILE \"\${library}\" \"${directory}/\${name}\")
    endforeach()
  ")
endfunction()
