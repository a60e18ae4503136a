#!/usr/bin/env bash
# The language: python hook of .pre-commit-hooks.yaml (onnx-shapelint-pip), as a user of the
# pre-commit framework gets it: pre-commit clones the hooks repository (this source tree,
# committed), installs it with pip into an environment of its own (the C++ core built with
# CMake from pyproject.toml; no prior build), and runs the command it installed on real
# `git commit`s. The build requirements come from PyPI. Skipped (exit 77) without pre-commit,
# or when PyPI cannot be reached.
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

done_testing
