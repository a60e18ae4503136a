# shapelint_static_runtime(<out-archives> <out-objects> <out-why-not>)
#
# What the onnx-shapelint binary links so that it loads no C++ shared library at all: protobuf's
# static archive, ONNX's message classes compiled into the binary, and toml++'s compiled part
# (the caller adds the C++ runtime with -static-libstdc++). <out-archives> gets the archives to
# put in the link group after the project's static libraries, <out-objects> the targets whose
# objects the binary links. When any part is missing both are empty and <out-why-not> says why,
# so that the binary links everything one way or the other, never half of it: a process with
# two copies of protobuf that share ONNX's classes would mix them up.
#
# Why: the dynamic loader's relocation of libprotobuf, libonnx_proto and libstdc++ was most of a
# run on a small model. With them built in, a process starts in 1.2 million instructions
# instead of 7.0 (docs/performance.md).
#
# ONNX's classes are not copied from anywhere: protoc writes them again from the descriptor
# that the installed libonnx_proto itself holds, and they are used only if the header protoc
# writes is byte for byte the installed one, which the library was compiled against. Then the
# library's objects fit the binary's classes exactly.
function(shapelint_static_runtime out_archives out_objects out_why_not)
  set(${out_archives} "" PARENT_SCOPE)
  set(${out_objects} "" PARENT_SCOPE)

  get_target_property(protobuf_shared protobuf::libprotobuf LOCATION)
  string(REGEX REPLACE "\\.so(\\.[0-9]+)*$" ".a" protobuf_archive "${protobuf_shared}")
  if(protobuf_archive STREQUAL protobuf_shared OR NOT EXISTS "${protobuf_archive}")
    set(${out_why_not} "no static protobuf archive next to ${protobuf_shared}" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET protobuf::protoc)
    set(${out_why_not} "protoc not found (Debian: protobuf-compiler)" PARENT_SCOPE)
    return()
  endif()
  get_target_property(protoc protobuf::protoc LOCATION)

  # Written afresh at every configure into a scratch directory, and copied where the build
  # compiles them only when they changed, so that a configure does not recompile them.
  set(dir ${PROJECT_BINARY_DIR}/generated/onnx_classes)
  set(scratch ${PROJECT_BINARY_DIR}/CMakeFiles/onnx_classes)
  file(REMOVE_RECURSE ${scratch})
  file(MAKE_DIRECTORY ${scratch})
  try_run(run_result compile_result ${PROJECT_BINARY_DIR}/CMakeFiles/dump_onnx_descriptor
    ${PROJECT_SOURCE_DIR}/tools/cmake/dump_onnx_descriptor.cc
    LINK_LIBRARIES onnx_proto protobuf::libprotobuf
    CXX_STANDARD 17
    COMPILE_OUTPUT_VARIABLE compile_output
    RUN_OUTPUT_VARIABLE proto_name
    ARGS ${scratch}/onnx.descriptor)
  if(NOT compile_result OR NOT run_result EQUAL 0)
    set(${out_why_not} "cannot read ONNX's descriptor from libonnx_proto (${run_result})"
        PARENT_SCOPE)
    return()
  endif()
  execute_process(
    COMMAND ${protoc} --descriptor_set_in=${scratch}/onnx.descriptor
            --cpp_out=dllexport_decl=ONNX_API:${scratch} ${proto_name}
    RESULT_VARIABLE protoc_result ERROR_VARIABLE protoc_error)
  string(REGEX REPLACE "\\.proto$" "" stem "${proto_name}")
  if(NOT protoc_result EQUAL 0 OR NOT EXISTS ${scratch}/${stem}.pb.cc)
    string(STRIP "${protoc_error}" protoc_error)
    set(${out_why_not} "${protoc} failed on ${proto_name} (${protoc_result}) ${protoc_error}"
        PARENT_SCOPE)
    return()
  endif()

  get_target_property(onnx_includes onnx_proto INTERFACE_INCLUDE_DIRECTORIES)
  set(installed_header)
  foreach(include IN LISTS onnx_includes)
    if(EXISTS ${include}/${stem}.pb.h)
      set(installed_header ${include}/${stem}.pb.h)
      break()
    endif()
  endforeach()
  if(NOT installed_header)
    set(${out_why_not} "ONNX's installed ${stem}.pb.h not found" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${scratch}/${stem}.pb.h
                          ${installed_header}
                  RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    set(${out_why_not} "protoc ${protoc} does not write ${installed_header} as installed"
        PARENT_SCOPE)
    return()
  endif()
  get_filename_component(subdir ${dir}/${stem} DIRECTORY)
  file(MAKE_DIRECTORY ${subdir})
  foreach(file IN ITEMS ${stem}.pb.h ${stem}.pb.cc)
    file(COPY_FILE ${scratch}/${file} ${dir}/${file} ONLY_IF_DIFFERENT)
  endforeach()

  add_library(shapelint_onnx_classes OBJECT ${dir}/${stem}.pb.cc)
  target_include_directories(shapelint_onnx_classes BEFORE PRIVATE ${dir})
  target_include_directories(shapelint_onnx_classes PRIVATE
    $<TARGET_PROPERTY:protobuf::libprotobuf,INTERFACE_INCLUDE_DIRECTORIES>)
  # The macros ONNX's headers are compiled with (ONNX_ML, ONNX_NAMESPACE); ONNX_API marks what a
  # shared library exports, and the binary exports nothing.
  target_compile_definitions(shapelint_onnx_classes PRIVATE
    $<TARGET_PROPERTY:onnx_proto,INTERFACE_COMPILE_DEFINITIONS> ONNX_API=)

  # toml++'s compiled part, with the macros its package gives every user of libtomlplusplus.
  add_library(shapelint_toml_runtime OBJECT ${PROJECT_SOURCE_DIR}/tools/toml_runtime.cc)
  target_include_directories(shapelint_toml_runtime PRIVATE
    $<TARGET_PROPERTY:tomlplusplus::tomlplusplus,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_options(shapelint_toml_runtime PRIVATE
    $<TARGET_PROPERTY:tomlplusplus::tomlplusplus,INTERFACE_COMPILE_OPTIONS>)
  target_compile_definitions(shapelint_toml_runtime PRIVATE
    $<TARGET_PROPERTY:tomlplusplus::tomlplusplus,INTERFACE_COMPILE_DEFINITIONS>)

  set(${out_archives} ${protobuf_archive} PARENT_SCOPE)
  set(${out_objects} shapelint_onnx_classes shapelint_toml_runtime PARENT_SCOPE)
  set(${out_why_not} "" PARENT_SCOPE)
endfunction()
