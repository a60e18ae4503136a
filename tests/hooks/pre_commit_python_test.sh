#!/usr/bin/env bash
# The language: python hook of .pre-commit-hooks.yaml (onnx-shapelint-pip), as a user of the
# pre-commit framework gets it: pre-commit clones the hooks repository (this source tree,
# committed, without its tests: as an sdist has it), installs it with pip into an environment
# of its own (a wheel of the C++ core built with CMake from pyproject.toml; no prior build),
# and runs the command it installed on real `git commit`s. Then what pip installed there is
# checked as a user of `pip install` would: the command, its text-format reader, the module.
# The build requirements come from PyPI. Skipped (exit 77) without pre-commit, or when PyPI
# cannot be reached. SHAPELINT_VERSION (the environment) is the version both must report.
#
#   bash tests/hooks/pre_commit_python_test.sh PATH/TO/onnx-shapelint
#
# The binary argument is only for common.sh: this test takes it off PATH, so that nothing but
# the hook's own installation can lint.
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

if ! command -v pre-commit >/dev/null; then
  skip "pre-commit is not installed (Debian: apt-get install pre-commit)"
fi
echo "# $(pre-commit --version)"
PATH=$path_without_binary
export PATH
if command -v onnx-shapelint >/dev/null; then
  skip "another onnx-shapelint is on PATH ($(command -v onnx-shapelint)): the hook's own could" \
    "not be told from it"
fi
export PRE_COMMIT_HOME=$work/pre-commit-home
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

# The hooks repository: this source tree as committed files (its tests and corpora left out:
# a pip build does not need them).
hooks_repo=$work/hooks-repo
new_repo "$hooks_repo"
(cd "$source_dir" && git ls-files -z --cached --others --exclude-standard -- . ':!tests' ':!.ci' |
  xargs -0 cp --parents -t "$hooks_repo" 2>/dev/null) ||
  (cd "$source_dir" && tar --exclude=./tests --exclude=./.git --exclude='./build*' -cf - . |
    tar -xf - -C "$hooks_repo")
git -C "$hooks_repo" add -A
git -C "$hooks_repo" commit -q -m "onnx-shapelint"
rev=$(git -C "$hooks_repo" rev-parse HEAD)

repo=$work/repo
new_repo "$repo"
cd "$repo" || exit
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: "$hooks_repo"
    rev: $rev
    hooks:
      - id: onnx-shapelint-pip
YAML
git add .pre-commit-config.yaml
git commit -q -m "pre-commit configuration"
output=$(pre-commit install-hooks 2>&1) || {
  if grep -qE "No matching distribution found for (scikit-build-core|pybind11)|NewConnectionError" \
    <<<"$output"; then
    skip "the build requirements could not be fetched from PyPI"
  fi
  fail "pre-commit could not install the hook's environment" "$output"
}
pass "pre-commit built and installed the linter (pip install of the hooks repository)"
output=$(pre-commit install 2>&1) || fail "pre-commit install failed" "$output"

put "$bad_model" models/pool.onnx
git add models/pool.onnx
commit_refused "bad model staged" -- "onnx-shapelint" "Failed" \
  "models/pool.onnx: main/AveragePool: error[SL001] baked-pool-kernel" \
  "1 error, 0 warnings in 1 model"

put "$good_model" models/pool.onnx
git add models/pool.onnx
commit_passes "good model staged" -- "onnx-shapelint" "Passed"

# --- What pip installed there (a wheel built from the hooks repository, installed into a fresh
# environment), as a user of `pip install` gets it: the command with the project's version, its
# text-format reader, and the module from that environment.
envs=("$PRE_COMMIT_HOME"/repo*/py_env-*)
[[ -d ${envs[0]} ]] || fail "no environment of pre-commit's under $PRE_COMMIT_HOME"
env_dir=${envs[0]}
cli=$env_dir/bin/onnx-shapelint
[[ -x $cli ]] || fail "no onnx-shapelint in $env_dir/bin"
output=$("$cli" --version)
[[ $output == "onnx-shapelint $SHAPELINT_VERSION" ]] || fail "version" "$output"
pass "the installed command reports version $SHAPELINT_VERSION"
output=$("$cli" "$source_dir/tests/rules/SL010/positions_after_past.onnxtxt" 2>&1) ||
  fail "a text model" "$output"
[[ $output == *"note[SL010] design-range"* ]] || fail "a text model: no SL010" "$output"
pass "the installed command reads ONNX text with the reader installed beside it"
output=$("$env_dir/bin/python" - "$bad_model" 2>&1 <<'PYEOF'
import os
import sys

import onnx_shapelint

prefix = os.path.realpath(sys.prefix)
assert os.path.realpath(onnx_shapelint.__file__).startswith(prefix), onnx_shapelint.__file__
assert onnx_shapelint.__version__ == os.environ["SHAPELINT_VERSION"], onnx_shapelint.__version__
rules = [f["rule"] for f in onnx_shapelint.lint(sys.argv[1])]
assert rules == ["SL001"], rules
PYEOF
) || fail "the installed module" "$output"
pass "the installed module imports from the environment and lints"
output=$("$env_dir/bin/python" -m pip show onnx-shapelint 2>&1) || fail "pip show" "$output"
[[ $output == *"License: Apache-2.0"* ]] || fail "the package declares no licence" "$output"
pass "the installed package declares its licence, Apache-2.0"
# `onnx-shapelint confirm` hands over to the onnx-shapelint-confirm script installed beside the
# command (no ONNX Runtime in that environment: the verdict says that nothing ran).
[[ -x $env_dir/bin/onnx-shapelint-confirm ]] || fail "no onnx-shapelint-confirm in $env_dir/bin"
status=0
output=$(env PATH=/usr/bin:/bin "$cli" confirm "$bad_model" 2>&1) || status=$?
[[ $status -eq 1 ]] || fail "confirm: exit $status, expected 1" "$output"
[[ $output == *"error[SL001]"*"= not run: onnxruntime is not installed"* ]] ||
  fail "confirm: no verdict" "$output"
pass "the installed command's confirm runs the package's entry point"

done_testing
