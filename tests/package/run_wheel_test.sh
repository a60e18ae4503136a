#!/usr/bin/env bash
# pip as a user runs it: a wheel built from this source tree (pyproject.toml, scikit-build-core
# running this project's CMake build), installed into a fresh virtual environment. There the
# onnx-shapelint command lints a binary and a text model and prints the version, and the
# onnx_shapelint module imports from the environment and lints.
#
#   bash tests/package/run_wheel_test.sh SOURCE_DIR PYTHON
#
# The build requirements (scikit-build-core, pybind11) come from PyPI: without it the test is
# skipped (exit 77). SHAPELINT_VERSION (the environment) is the version both must report.
# Everything happens in a temporary directory, removed on exit.
#
# Exit status: 0 passed, 1 failed, 2 usage, 77 skipped.
set -Eeuo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR

if [[ $# -ne 2 ]]; then
  echo "usage: $0 SOURCE_DIR PYTHON" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
python=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$python" -m venv "$tmp/venv"
pip=("$tmp/venv/bin/python" -m pip --disable-pip-version-check --no-input)
# The build's own parallelism: the test runs beside others, one core is left to them.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
if ! "${pip[@]}" wheel --no-deps --wheel-dir "$tmp/dist" "$src" >"$tmp/build.log" 2>&1; then
  if grep -q -E "No matching distribution found for (scikit-build-core|pybind11)|Could not fetch|NewConnectionError" "$tmp/build.log"; then
    echo "skipped: the build requirements could not be fetched from PyPI"
    tail -5 "$tmp/build.log"
    exit 77
  fi
  tail -40 "$tmp/build.log" >&2
  echo "FAIL: pip wheel" >&2
  exit 1
fi
wheels=("$tmp"/dist/onnx_shapelint-"$SHAPELINT_VERSION"-*.whl)
[[ -f ${wheels[0]} ]] || { echo "FAIL: no wheel of version $SHAPELINT_VERSION in dist/" >&2; exit 1; }
"${pip[@]}" install --no-index "${wheels[0]}" >"$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log" >&2
  exit 1
}

# Outside the source tree, so that nothing is found there instead of in the environment.
cd "$tmp"
cli=$tmp/venv/bin/onnx-shapelint
[[ $("$cli" --version) == "onnx-shapelint $SHAPELINT_VERSION" ]]
# The bundled example: a baked pool window, an error (exit 1).
status=0
out=$("$cli" "$src/tests/corpus/torch/adaptive_avg_pool2d.onnx") || status=$?
[[ $status -eq 1 ]]
grep -q "error\[SL001\] baked-pool-kernel" <<<"$out"
# A text model: the command finds its text-format module where the wheel put it.
out=$("$cli" "$src/tests/rules/SL010/positions_after_past.onnxtxt")
grep -q "note\[SL010\] design-range" <<<"$out"
# The module, from the environment.
"$tmp/venv/bin/python" - "$src/tests/corpus/torch/adaptive_avg_pool2d.onnx" <<'PYEOF'
import os
import sys

import onnx_shapelint

assert os.path.realpath(onnx_shapelint.__file__).startswith(os.path.realpath(sys.prefix)), (
    onnx_shapelint.__file__)
assert onnx_shapelint.__version__ == os.environ["SHAPELINT_VERSION"], onnx_shapelint.__version__
rules = [f["rule"] for f in onnx_shapelint.lint(sys.argv[1])]
assert rules == ["SL001"], rules
PYEOF
echo "passed: wheel built, installed, command and module run"
