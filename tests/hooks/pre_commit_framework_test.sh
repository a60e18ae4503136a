#!/usr/bin/env bash
# The hook of .pre-commit-hooks.yaml run by the pre-commit framework, as a user of it gets it:
# a throwaway repository whose .pre-commit-config.yaml names a repository holding this
# .pre-commit-hooks.yaml at a fixed rev, `pre-commit install`, real `git commit`s; then the
# same file through `pre-commit try-repo`. Skipped (exit 77) when pre-commit is not installed.
# No network: a language: system hook installs nothing, and the hooks repository is local.
#
#   bash tests/hooks/pre_commit_framework_test.sh PATH/TO/onnx-shapelint
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

if ! command -v pre-commit >/dev/null; then
  skip "pre-commit is not installed (Debian: apt-get install pre-commit); the hook of" \
    ".pre-commit-hooks.yaml is not tested"
fi
echo "# $(pre-commit --version)"
# pre-commit's store (clones of hook repositories, its database): a scratch one.
export PRE_COMMIT_HOME=$tmp_root/pre-commit-home

# The hooks repository: .pre-commit-hooks.yaml of this source tree, committed.
hooks_repo=$tmp_root/hooks-repo
new_repo "$hooks_repo"
cp "$source_dir/.pre-commit-hooks.yaml" "$hooks_repo/"
git -C "$hooks_repo" add .pre-commit-hooks.yaml
git -C "$hooks_repo" commit -q -m "hooks"
rev=$(git -C "$hooks_repo" rev-parse HEAD)

repo=$tmp_root/repo
new_repo "$repo"
cd "$repo" || exit

# write_config [ARG...]: .pre-commit-config.yaml using the hook at $rev, with these args.
write_config() {
  local args="" arg
  for arg in "$@"; do
    args+="${args:+, }\"$arg\""
  done
  cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: "$hooks_repo"
    rev: $rev
    hooks:
      - id: onnx-shapelint
$(if (($#)); then echo "        args: [$args]"; fi)
EOF
}
write_config
git add .pre-commit-config.yaml
git commit -q -m "pre-commit configuration"
output=$(pre-commit install 2>&1) || fail "pre-commit install failed" "$output"
pass "pre-commit install"

# --- Only *.onnx files are passed to the hook.
echo notes >notes.txt
git add notes.txt
commit_passes "no model staged" -- "onnx-shapelint" "(no files to check)Skipped"

# --- A binary .onnx file is passed (pre-commit's type detection keeps it), and the report
# names it.
put "$bad_model" models/pool.onnx
git add models/pool.onnx
commit_refused "bad model staged" -- "onnx-shapelint" "Failed" \
  "models/pool.onnx: main/AveragePool: error[SL001] baked-pool-kernel" \
  "1 error, 0 warnings in 1 model"
cmp -s "$bad_model" models/pool.onnx || fail "the working-tree model changed"

put "$good_model" models/pool.onnx
git add models/pool.onnx
commit_passes "good model staged" -- "onnx-shapelint" "Passed"

# --- The staged content is what is linted: pre-commit sets unstaged changes aside, and puts
# them back.
put "$good_model" models/staged-good.onnx
git add models/staged-good.onnx
cp "$bad_model" models/staged-good.onnx # not staged
commit_passes "good staged, bad in the working tree" -- "Passed"
cmp -s "$bad_model" models/staged-good.onnx || fail "the working-tree change was not put back"
git checkout -q -- models/staged-good.onnx

# --- A path with a space.
put "$bad_model" "with space/bad model.onnx"
git add "with space"
commit_refused "a path with a space" -- \
  "with space/bad model.onnx: main/AveragePool: error[SL001]"
cp "$good_model" "with space/bad model.onnx"
git add "with space"
commit_passes "a path with a space, fixed" -- "Passed"

# --- require_serial: true: one run of onnx-shapelint for all the files (pre-commit would
# otherwise split them into runs of 4 or more, in shuffled order), so one report in path order
# with one summary line.
for name in a b c d e f g h i; do
  put "$bad_model" "many/$name.onnx"
done
git add many
commit_refused "nine bad models" -- "9 errors, 0 warnings in 9 models"
summaries=$(grep -cE '^[0-9]+ errors?, [0-9]+ warnings? in [0-9]+ models?' <<<"$last_output" || true)
((summaries == 1)) || fail "$summaries summary lines, not 1: more than one run" "$last_output"
order=$(grep -oE '^many/[a-i]\.onnx' <<<"$last_output" | tr -d '\n')
[[ $order == "many/a.onnxmany/b.onnxmany/c.onnxmany/d.onnxmany/e.onnxmany/f.onnxmany/g.onnxmany/h.onnxmany/i.onnx" ]] ||
  fail "the report is not in path order" "$last_output"
pass "nine models: one run, one summary, in path order"

# --- args in the configuration reach the linter.
write_config --select SL002
put "$bad_model" args/bad.onnx
git add .pre-commit-config.yaml args/bad.onnx
commit_passes "args: [--select, SL002] lets an SL001 finding through" -- "Passed"

# --- pre-commit try-repo on the hooks repository, with a bad model staged.
put "$bad_model" try/bad.onnx
git add try/bad.onnx
status=0
output=$(pre-commit try-repo "$hooks_repo" onnx-shapelint --ref "$rev" 2>&1) || status=$?
((status == 1)) || fail "pre-commit try-repo exited with $status, not 1" "$output"
[[ $output == *"try/bad.onnx: main/AveragePool: error[SL001]"* ]] ||
  fail "pre-commit try-repo did not report try/bad.onnx" "$output"
pass "pre-commit try-repo with a bad model"
output=$(pre-commit try-repo "$hooks_repo" onnx-shapelint --ref "$rev" \
  --files "models/pool.onnx" "with space/bad model.onnx" 2>&1) ||
  fail "pre-commit try-repo failed on good models" "$output"
pass "pre-commit try-repo with good models"

done_testing
