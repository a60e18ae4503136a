# Shared by the hook tests (sourced, not run): strict mode, an isolated environment, a scratch
# directory removed on exit, throwaway repositories and checks on `git commit`.
#
#   bash tests/hooks/NAME_test.sh PATH/TO/onnx-shapelint
#
# Exit status: 0 passed, 1 failed, 77 skipped (ctest's SKIP_RETURN_CODE).
# shellcheck shell=bash
# shellcheck disable=SC2034 # variables for the scripts that source this one
set -Eeuo pipefail
# A command that fails stops the test (set -e): say which one.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR

if [[ $# -ne 1 ]]; then
  echo "usage: $0 PATH/TO/onnx-shapelint" >&2
  exit 2
fi
binary=$(cd -- "$(dirname -- "$1")" && pwd)/$(basename -- "$1")
if [[ ! -f $binary || ! -x $binary ]]; then
  echo "FAIL: $1 is not an executable file" >&2
  exit 1
fi
source_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
# An error-level finding (error[SL001] at main/AveragePool), and a model without findings.
bad_model=$source_dir/tests/corpus/torch/adaptive_avg_pool2d.onnx
good_model=$source_dir/tests/corpus/torch/flatten.onnx

skip() {
  echo "SKIP: $*"
  exit 77
}
if ! command -v git >/dev/null; then
  skip "git is not installed"
fi

tmp_root=$(mktemp -d "${TMPDIR:-/tmp}/shapelint-hooks-test.XXXXXX")
trap 'rm -rf -- "$tmp_root"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Nothing of the user's or the system's git configuration (a global core.hooksPath or
# commit.gpgsign would change what a commit does), nor of a git run this test may be inside
# (GIT_DIR, GIT_INDEX_FILE, ... when ctest runs from a hook). HOME is a scratch directory, so
# no cache under the real one is touched either.
while IFS= read -r var; do
  unset "$var"
done < <(compgen -e | grep -E '^(GIT_|ONNX_SHAPELINT|PRE_COMMIT)' || true)
export HOME=$tmp_root/home
export XDG_CONFIG_HOME=$HOME/.config XDG_CACHE_HOME=$HOME/.cache XDG_DATA_HOME=$HOME/.local/share
export GIT_CONFIG_NOSYSTEM=1
export TMPDIR=$tmp_root/tmp
export NO_COLOR=1 LC_ALL=C
mkdir -p "$HOME" "$TMPDIR"
# The binary under test is the onnx-shapelint on PATH, as for a user.
path_without_binary=$PATH
PATH=$(dirname -- "$binary"):$PATH
export PATH

passed=0
pass() {
  passed=$((passed + 1))
  echo "ok $passed - $*"
}
fail() {
  echo "FAIL: $1" >&2
  if (($# > 1)); then
    echo "--- output:" >&2
    printf '%s\n' "$2" >&2
    echo "---" >&2
  fi
  echo "$passed passed, 1 failed"
  exit 1
}
done_testing() {
  echo "$passed passed, 0 failed"
}

# new_repo DIR: an empty repository with a committer of its own.
new_repo() {
  git -c init.defaultBranch=main init -q "$1"
  git -C "$1" config user.name "onnx-shapelint test"
  git -C "$1" config user.email "test@example.invalid"
  git -C "$1" config commit.gpgsign false
}

# put SOURCE PATH: copy a model to PATH in the working tree, creating its directory.
put() {
  mkdir -p -- "$(dirname -- "$2")"
  cp -- "$1" "$2"
}

head_commit() {
  git rev-parse --verify --quiet HEAD || true
}

# try_commit EXPECT DESCRIPTION [GIT-COMMIT-ARGS...] -- [NEEDLE...]: runs `git commit`, which
# must be refused (EXPECT "refused": it fails and HEAD stays) or go through (EXPECT "passes": a
# new commit), and print every NEEDLE (fixed strings).
try_commit() {
  local expect=$1 description=$2 before output status=0
  shift 2
  local git_args=()
  while (($#)) && [[ $1 != -- ]]; do
    git_args+=("$1")
    shift
  done
  (($#)) && shift
  before=$(head_commit)
  output=$(git commit -q -m "$description" ${git_args[@]+"${git_args[@]}"} 2>&1) || status=$?
  if [[ $expect == refused ]]; then
    ((status != 0)) || fail "$description: the commit went through" "$output"
    [[ $(head_commit) == "$before" ]] || fail "$description: HEAD moved" "$output"
  else
    ((status == 0)) || fail "$description: the commit was refused (exit $status)" "$output"
    [[ $(head_commit) != "$before" ]] || fail "$description: no new commit" "$output"
  fi
  local needle
  for needle in "$@"; do
    [[ $output == *"$needle"* ]] || fail "$description: no '$needle' in the output" "$output"
  done
  last_output=$output
  pass "$description"
}

# commit_refused DESCRIPTION [GIT-COMMIT-ARGS...] -- NEEDLE...
commit_refused() { try_commit refused "$@"; }
# commit_passes DESCRIPTION [GIT-COMMIT-ARGS...] -- [NEEDLE...]
commit_passes() { try_commit passes "$@"; }
last_output=
