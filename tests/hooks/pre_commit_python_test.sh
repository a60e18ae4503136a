#!/usr/bin/env bash
# The language: python hook of .pre-commit-hooks.yaml (onnx-shapelint-pip), as a user of the
# pre-commit framework gets it: pre-commit clones the hooks repository (this source tree,
# committed, without its tests: as an sdist has it), installs it with pip into an environment
# of its own (a wheel of the C++ core built with CMake from pyproject.toml; no prior build),
# and runs the command it installed on real `git commit`s. Then what pip installed there is
# checked as a user of `pip install` would: the command, its text-format reader, the module.
# Last, the wheel pip built for it (kept, not built again) is installed into a fresh
# environment and checked to load no library of Debian's but glibc's, libgcc_s, libstdc++ and
# zlib (ldd, LD_DEBUG=libs, auditwheel show).
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
export PRE_COMMIT_HOME=$tmp_root/pre-commit-home
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
# pip keeps the wheel it builds for pre-commit (in its ephemeral wheel cache under TMPDIR), so
# that the wheel's own checks below need no second build.
export PIP_NO_CLEAN=1

# The hooks repository: this source tree as committed files (its tests and corpora left out:
# a pip build does not need them).
hooks_repo=$tmp_root/hooks-repo
new_repo "$hooks_repo"
(cd "$source_dir" && git ls-files -z --cached --others --exclude-standard -- . ':!tests' ':!.ci' |
  xargs -0 cp --parents -t "$hooks_repo" 2>/dev/null) ||
  (cd "$source_dir" && tar --exclude=./tests --exclude=./.git --exclude='./build*' -cf - . |
    tar -xf - -C "$hooks_repo")
git -C "$hooks_repo" add -A
git -C "$hooks_repo" commit -q -m "onnx-shapelint"
rev=$(git -C "$hooks_repo" rev-parse HEAD)

repo=$tmp_root/repo
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
output=$("$env_dir/bin/python" - <<'PYEOF' 2>&1
from importlib import metadata

description = metadata.metadata("onnx-shapelint").get_payload()
assert description.startswith("# onnx-shapelint\n"), description[:200]
assert "tools/dev" not in description, "the description names tools/dev, which needs a clone"
PYEOF
) || fail "the package's long description" "$output"
pass "the package's description is its own README, which needs no clone"
# The pages --help names, installed beside the command.
docs=$env_dir/share/doc/onnx-shapelint
mapfile -t pages < <("$cli" --help | grep -oE 'docs/[a-z-]+\.md' | sort -u)
((${#pages[@]} >= 5)) || fail "--help names no docs/*.md pages" "$("$cli" --help)"
for page in "${pages[@]}"; do
  [[ -f $docs/${page#docs/} ]] || fail "$page, which --help names, is not installed in $docs"
done
[[ -f $docs/rules/SL001.md ]] || fail "the rule pages are not installed in $docs/rules"
pass "the ${#pages[@]} pages --help names are installed under share/doc/onnx-shapelint"

# --- The wheel itself: self-contained but for the libraries every x86_64 Linux with glibc has
# (those the manylinux policies let a wheel take from the system), installed into a fresh
# environment without Debian's Python packages.
mapfile -t wheels < <(find "$TMPDIR" -name 'onnx_shapelint-*.whl')
((${#wheels[@]} == 1)) || fail "pip kept ${#wheels[@]} wheels under $TMPDIR, not one" \
  "$(find "$TMPDIR" -name '*.whl')"
wheel=${wheels[0]}
echo "# $(basename -- "$wheel"), $(($(stat -c %s "$wheel") / 1024 / 1024)) MB"
# The environment without a pip of its own (the hook's pip installs into it): seconds saved.
python=$(readlink -f -- "$env_dir/bin/python")
venv=$tmp_root/wheel-env
"$python" -m venv --without-pip "$venv" || fail "no fresh environment ($python -m venv)"
output=$("$env_dir/bin/python" -m pip --python "$venv/bin/python" install -q --no-index \
  --no-deps "$wheel" 2>&1) || fail "pip install of the wheel" "$output"
core=$(find "$venv/lib" -name '_core*.so')
text_module=$venv/lib/onnx-shapelint/onnx-shapelint-text.so
[[ -f $core && -f $text_module ]] || fail "the wheel installed no extension or no text module"
# Every library the extension, the text module and the command load, as the loader resolves
# them: one of the system's allowed ones, or a copy the wheel installed.
allowed='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|lib(c|m|dl|rt|pthread|gcc_s|stdc\+\+|z)\.so\.[0-9]+)$'
for elf in "$core" "$text_module" "$venv/bin/onnx-shapelint"; do
  listing=$(env -u LD_LIBRARY_PATH ldd "$elf" 2>&1) || fail "ldd $elf" "$listing"
  while read -r name _ path _; do
    [[ $name =~ $allowed || $path == "$venv"/* ]] ||
      fail "$(basename -- "$elf") loads $name from outside the wheel: $path" "$listing"
  done < <(grep -v 'statically linked' <<<"$listing" | sed -E 's/^\s*(\/[^ ]*\/)?//')
done
pass "the extension, the text module and the command load nothing but glibc, libgcc_s, libstdc++, libz and the wheel's copies"
# Run: lint a binary and a text model from Python and from the command line, and list what the
# processes mapped (the loader's own record, LD_DEBUG=libs): nothing of ONNX, protobuf, Abseil
# or toml++ but the wheel's copies.
text_model=$source_dir/tests/rules/SL010/positions_after_past.onnxtxt
output=$(env -u LD_LIBRARY_PATH LD_DEBUG=libs "$venv/bin/python" - "$bad_model" "$text_model" \
  2>&1 <<'PYEOF'
import sys

import onnx_shapelint

assert [f["rule"] for f in onnx_shapelint.lint(sys.argv[1])] == ["SL001"]
assert "SL010" in [f["rule"] for f in onnx_shapelint.lint(sys.argv[2])]
print("linted")
PYEOF
) || fail "the fresh environment's module" "$output"
[[ $output == *linted* ]] || fail "the fresh environment's module printed nothing" "$output"
outside=$(grep -oE 'calling init: [^ ]+' <<<"$output" | grep -E 'onnx|protobuf|absl|toml' |
  grep -vF "calling init: $venv/" || true)
[[ -z $outside ]] || fail "the module loaded libraries from outside the wheel" "$outside"
output=$(env -u LD_LIBRARY_PATH LD_DEBUG=libs "$venv/bin/onnx-shapelint" "$text_model" 2>&1) ||
  fail "the command on a text model" "$output"
[[ $output == *"note[SL010] design-range"* ]] || fail "the command on a text model" "$output"
outside=$(grep -oE 'calling init: [^ ]+' <<<"$output" | grep -E 'onnx|protobuf|absl|toml' |
  grep -vF "calling init: $venv/" || true)
[[ -z $outside ]] || fail "the command loaded libraries from outside the wheel" "$outside"
pass "the fresh environment lints binary and text models with the wheel's libraries only"
# auditwheel, the tool that checks wheels for the manylinux policies, finds nothing to bundle.
auditwheel=$tmp_root/auditwheel
if "$env_dir/bin/python" -m pip install -q --target "$auditwheel" "auditwheel==6.1.0" \
  "pyelftools==0.31" >/dev/null 2>&1; then
  output=$(PYTHONPATH=$auditwheel "$env_dir/bin/python" -m auditwheel show "$wheel" 2>&1) ||
    fail "auditwheel show" "$output"
  # auditwheel wraps its sentences: one line, one space between words.
  output=$(tr -s ' \n' '  ' <<<"$output")
  [[ $output =~ consistent\ with\ the\ following\ platform\ tag:\ \"(manylinux_[0-9_]+_x86_64)\" ]] ||
    fail "auditwheel finds no manylinux tag" "$output"
  tag=${BASH_REMATCH[1]}
  [[ $output != *"external shared libraries"* && $output != *"will need to be eliminated"* ]] ||
    fail "auditwheel finds libraries to bundle" "$output"
  pass "auditwheel show: $tag, nothing to bundle"
else
  echo "# auditwheel could not be installed from PyPI: its check is left out"
fi

done_testing
