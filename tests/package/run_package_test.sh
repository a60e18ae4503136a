#!/usr/bin/env bash
# The library as another project uses it: tests/package/consumer/main.cc (lints a model given in
# ONNX text, prints the findings) built one of three ways.
#
#   bash tests/package/run_package_test.sh MODE BUILD_DIR
#
#   find_package   `cmake --install BUILD_DIR --prefix TMP`, the installed binary run on a text
#                  model, then tests/package/consumer (find_package(onnx_shapelint) with
#                  CMAKE_PREFIX_PATH=TMP): build and run
#   subdirectory   tests/package/subdirectory: add_subdirectory() of this source tree, then
#                  main.cc compiled with the flags the library passes on. Linking would build
#                  the library again (minutes on two cores): SHAPELINT_PACKAGE_FULL=1 does,
#                  without optimisation or debug info, JOBS at a time, and runs the program
#   pkg_config     `cmake --install BUILD_DIR --prefix TMP`, every installed header compiled,
#                  then `c++ main.cc $(pkg-config --cflags --libs onnx_shapelint)` with
#                  PKG_CONFIG_PATH=TMP/<libdir>/pkgconfig: build and run
#
# BUILD_DIR is a configured and built tree of this project. The environment gives the toolchain
# (ctest sets it, tests/CMakeLists.txt): CMAKE, CMAKE_GENERATOR, CXX, CXXFLAGS and LDFLAGS (the
# sanitizer flags of a SHAPELINT_SANITIZE build), PKG_CONFIG, and SHAPELINT_VERSION (the
# version the program must print). Everything happens in a temporary directory, removed on exit.
#
# Exit status: 0 passed, 1 failed, 2 usage.
set -Eeuo pipefail
# A command that fails stops the test (set -e): say which one.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR

if [[ $# -ne 2 ]]; then
  echo "usage: $0 find_package|subdirectory|pkg_config BUILD_DIR" >&2
  exit 2
fi
mode=$1
build_dir=$(cd -- "$2" && pwd)
package_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cmake=${CMAKE:-cmake}
cxx=${CXX:-c++}
jobs=${JOBS:-1}
read -r -a cxxflags <<<"${CXXFLAGS:-}"
read -r -a ldflags <<<"${LDFLAGS:-}"
: "${SHAPELINT_VERSION:?set SHAPELINT_VERSION to the version the program must print}"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

tmp_root=$(mktemp -d "${TMPDIR:-/tmp}/shapelint-package-test.XXXXXX")
trap 'rm -rf -- "$tmp_root"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs a step with its output in a log, shown only when it fails.
step() {
  local name=$1
  shift
  echo "--- $name"
  if ! "$@" >"$tmp_root/step.log" 2>&1; then
    cat "$tmp_root/step.log" >&2
    fail "$name: \`$*\` failed"
  fi
}

install_prefix() {
  step "install $build_dir into a temporary prefix" \
    "$cmake" --install "$build_dir" --prefix "$tmp_root/prefix"
}

# The program's output: the version, then the findings of the model in main.cc: the baked 10
# (SL002), and the divisibility by 10 that the -1 needs, stated as the model's range (SL010).
check_output() {
  local program=$1 output
  echo "--- run $program"
  output=$("$program") || fail "$program exited with $?; output:"$'\n'"$output"
  local expected
  expected="onnx-shapelint $SHAPELINT_VERSION
findings: 2
error SL002 baked-reshape-target at main/<Reshape #1>
note SL010 design-range at main/<Reshape #1>"
  if [[ $output != "$expected" ]]; then
    fail "unexpected output from $program:"$'\n'"$output"$'\n'"expected:"$'\n'"$expected"
  fi
  echo "$output"
}

# The installed binary reads a text model: it finds the installed onnx-shapelint-text.so, the
# module with libonnx's text parser, relative to itself.
check_installed_binary() {
  local model=$package_dir/../tools/inputs/baked_pool.onnxtxt output status=0
  echo "--- run the installed onnx-shapelint on a text model"
  output=$("$tmp_root/prefix/bin/onnx-shapelint" "$model" 2>&1) || status=$?
  if [[ $status -ne 1 || $output != *"error[SL001]"* ]]; then
    fail "installed onnx-shapelint exited with $status, expected 1 and SL001; output:"$'\n'"$output"
  fi
}

cmake_consumer() {
  local source=$1
  # No optimisation, no debug info: the quickest build.
  step "configure $source" "$cmake" -S "$source" -B "$tmp_root/consumer" -DCMAKE_BUILD_TYPE=None \
    "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_PREFIX_PATH=$tmp_root/prefix"
  step "build $source" "$cmake" --build "$tmp_root/consumer" -j "$jobs"
  check_output "$tmp_root/consumer/consumer"
}

case "$mode" in
  find_package)
    install_prefix
    check_installed_binary
    cmake_consumer "$package_dir/consumer"
    ;;
  subdirectory)
    if [[ ${SHAPELINT_PACKAGE_FULL:-0} == 1 ]]; then
      cmake_consumer "$package_dir/subdirectory"
    else
      # Building the library again would take minutes: configure (which resolves every target
      # the library links to), then compile main.cc with the flags the library passes on. No
      # build type (no optimisation, no debug info): the library must not choose one for the
      # application.
      step "configure $package_dir/subdirectory" "$cmake" -S "$package_dir/subdirectory" \
        -B "$tmp_root/consumer" "-DCMAKE_CXX_COMPILER=$cxx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
      step "compile main.cc as the subdirectory build would" "$cmake" \
        "-DBUILD_DIR=$tmp_root/consumer" "-DSOURCE_REGEX=/tests/package/consumer/main\\.cc\$" \
        -P "$package_dir/compile_source.cmake"
      echo "(SHAPELINT_PACKAGE_FULL=1 also builds the library and runs the program)"
    fi
    ;;
  pkg_config)
    pkg_config=${PKG_CONFIG:-pkg-config}
    command -v "$pkg_config" >/dev/null ||
      fail "pkg-config not found: apt-get install pkgconf (libabsl-dev depends on it)"
    install_prefix
    pc_file=$(find "$tmp_root/prefix" -name onnx_shapelint.pc)
    [[ -n $pc_file ]] || fail "no onnx_shapelint.pc installed"
    # Only the temporary prefix and the system's modules.
    export PKG_CONFIG_PATH=${pc_file%/*}
    step "pkg-config --cflags --libs onnx_shapelint" "$pkg_config" --cflags --libs onnx_shapelint
    read -r -a flags <<<"$("$pkg_config" --cflags --libs onnx_shapelint)"
    echo "${flags[*]}"

    # Every installed header compiles with nothing but the package's flags: none of them
    # includes one of the library's internal headers (lib/).
    mapfile -t headers < <(cd "$tmp_root/prefix/include" && find shapelint -name '*.h' | sort)
    ((${#headers[@]})) || fail "no headers installed under include/shapelint"
    printf '#include "%s"\n' "${headers[@]}" >"$tmp_root/all_headers.cc"
    step "compile every installed header" \
      "$cxx" "${cxxflags[@]}" -fsyntax-only "$tmp_root/all_headers.cc" "${flags[@]}"

    step "compile and link main.cc" "$cxx" "${cxxflags[@]}" -o "$tmp_root/consumer" \
      "$package_dir/consumer/main.cc" "${flags[@]}" "${ldflags[@]}"
    check_output "$tmp_root/consumer"
    ;;
  *)
    echo "usage: $0 find_package|subdirectory|pkg_config BUILD_DIR" >&2
    exit 2
    ;;
esac
echo "PASS: $mode"
