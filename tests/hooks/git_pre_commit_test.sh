#!/usr/bin/env bash
# tools/git-pre-commit installed as a plain git hook in a throwaway repository, driven by real
# `git commit`s: it lints the staged models (the staged content, not the working tree), names
# them by their repository paths, refuses the commit on findings, and leaves the index and the
# working tree alone.
#
#   bash tests/hooks/git_pre_commit_test.sh PATH/TO/onnx-shapelint
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

repo=$tmp_root/repo
new_repo "$repo"
cd "$repo" || exit
ln -s "$source_dir/tools/git-pre-commit" .git/hooks/pre-commit

# --- The first commit: no HEAD yet.
put "$bad_model" models/pool.onnx
git add models/pool.onnx
commit_refused "bad model staged (first commit)" -- \
  "models/pool.onnx: main/AveragePool: error[SL001] baked-pool-kernel" \
  "1 error, 0 warnings in 1 model" "commit refused"
[[ $(git diff --cached --name-only) == models/pool.onnx ]] ||
  fail "the refused model is no longer staged"
cmp -s "$bad_model" models/pool.onnx || fail "the working-tree model changed"

put "$good_model" models/pool.onnx
git add models/pool.onnx
commit_passes "good model staged" -- "0 errors, 0 warnings in 1 model"

# --- Nothing to lint: the hook exits before it even looks for the linter.
echo notes >notes.txt
git add notes.txt
ONNX_SHAPELINT=$tmp_root/no-such-linter commit_passes "no model staged, no linter needed" --
[[ -z $last_output ]] || fail "the hook printed something without models" "$last_output"

# --- The staged content is what is linted, not the working tree.
put "$good_model" models/staged-good.onnx
git add models/staged-good.onnx
cp "$bad_model" models/staged-good.onnx # not staged
commit_passes "good staged, bad in the working tree" -- "0 errors, 0 warnings in 1 model"
cmp -s "$bad_model" models/staged-good.onnx || fail "the working-tree model was changed"
git show HEAD:models/staged-good.onnx | cmp -s "$good_model" - ||
  fail "the commit does not hold the staged (good) model"
git diff --quiet -- models/staged-good.onnx && fail "the working-tree change was lost"
git checkout -q -- models/staged-good.onnx

put "$bad_model" models/staged-bad.onnx
git add models/staged-bad.onnx
cp "$good_model" models/staged-bad.onnx # not staged
commit_refused "bad staged, good in the working tree" -- \
  "models/staged-bad.onnx: main/AveragePool: error[SL001]"
git add models/staged-bad.onnx
commit_passes "the good one staged in its place" --

# --- Paths: spaces, a leading '-', several models in one report in path order.
put "$bad_model" "with space/bad model.onnx"
put "$bad_model" -dash.onnx
put "$good_model" "with space/good model.onnx"
git add -- "with space" -dash.onnx
commit_refused "paths with a space and a leading '-'" -- \
  "-dash.onnx: main/AveragePool: error[SL001]" \
  "with space/bad model.onnx: main/AveragePool: error[SL001]" \
  "2 errors, 0 warnings in 3 models"
[[ $last_output == *"-dash.onnx: "*"with space/bad model.onnx: "* ]] ||
  fail "the report is not in path order" "$last_output"
cp "$good_model" "with space/bad model.onnx"
cp -- "$good_model" -dash.onnx
git add -- "with space" -dash.onnx
commit_passes "paths with a space and a leading '-', fixed" -- "in 3 models"

# --- A file that is not a model is a load error (exit 2), and refuses the commit too.
echo "not a model" >broken.onnx
git add broken.onnx
commit_refused "an unloadable model" -- "broken.onnx: error: " "exit status 2"
git rm -q --cached broken.onnx
rm broken.onnx

# --- Not linted: deletions, symlinks, files that are not *.onnx.
put "$bad_model" old/bad.onnx
git add old/bad.onnx
git commit -q --no-verify -m "a bad model, past the hook"
git rm -q old/bad.onnx
ln -s does-not-exist.onnx link.onnx
cp "$bad_model" model.onnx.bak
git add link.onnx model.onnx.bak
commit_passes "a deletion, a symlink and a .onnx.bak" --

# --- An entry marked skip-worktree (sparse checkouts), which checkout-index does not write.
put "$bad_model" sparse/bad.onnx
git add sparse/bad.onnx
git update-index --skip-worktree sparse/bad.onnx
commit_refused "a bad model marked skip-worktree" -- "sparse/bad.onnx: main/AveragePool: error[SL001]"
git update-index --no-skip-worktree sparse/bad.onnx
git rm -q --cached sparse/bad.onnx

# --- A rename is linted at its new path.
put "$bad_model" old/bad.onnx
git add old/bad.onnx
git commit -q --no-verify -m "a bad model again"
mkdir -p new
git mv old/bad.onnx new/bad.onnx
commit_refused "a renamed bad model" -- "new/bad.onnx: main/AveragePool: error[SL001]"
git reset -q --hard

# --- git commit -a and git commit PATH: the hook sees git's temporary index.
cp "$good_model" old/bad.onnx
git add old/bad.onnx
commit_passes "a model fixed in place" --
cp "$bad_model" old/bad.onnx
commit_refused "git commit -a with a bad working-tree model" -a -- "old/bad.onnx: main/AveragePool"
git diff --cached --quiet || fail "commit -a left something staged"
commit_refused "git commit PATH with a bad working-tree model" old/bad.onnx -- \
  "old/bad.onnx: main/AveragePool"
git checkout -q -- old/bad.onnx

# --- Options: git config onnx-shapelint.args (every value), or ONNX_SHAPELINT_ARGS instead.
put "$bad_model" opts/bad.onnx
git add opts/bad.onnx
git config onnx-shapelint.args "--select SL002"
git config --add onnx-shapelint.args "--quiet"
commit_passes "options from git config (--select SL002, --quiet)" --
[[ -z $last_output ]] || fail "--quiet from git config did not reach the linter" "$last_output"
git reset -q --soft HEAD~1
ONNX_SHAPELINT_ARGS="" commit_refused "an empty ONNX_SHAPELINT_ARGS replaces git config" -- \
  "opts/bad.onnx: main/AveragePool: error[SL001]" "1 error, 0 warnings in 1 model"
ONNX_SHAPELINT_ARGS="--ignore  SL001,SL003" commit_passes "options from ONNX_SHAPELINT_ARGS" -- \
  "0 errors, 0 warnings in 1 model"
git config --unset-all onnx-shapelint.args

# --- Which linter: ONNX_SHAPELINT (a relative path is taken from the top of the working tree,
# where git runs hooks, even for a commit made in a subdirectory), else PATH.
put "$bad_model" which/bad.onnx
git add which/bad.onnx
ln -s "$binary" linter-link
echo linter-link >>.git/info/exclude
mkdir -p which/sub
cd which/sub || exit
ONNX_SHAPELINT=./linter-link PATH=$path_without_binary commit_refused \
  "ONNX_SHAPELINT relative to the top, commit from a subdirectory" -- \
  "which/bad.onnx: main/AveragePool: error[SL001]"
cd "$repo" || exit
ONNX_SHAPELINT=$tmp_root/no-such-linter commit_refused "ONNX_SHAPELINT that does not exist" -- \
  "no-such-linter' is not an executable file" "--no-verify"
if PATH=$path_without_binary command -v onnx-shapelint >/dev/null; then
  echo "# not checked: onnx-shapelint missing from PATH (one is installed on the system PATH)"
else
  PATH=$path_without_binary commit_refused "no onnx-shapelint on PATH" -- \
    "'onnx-shapelint' not found on PATH" "ONNX_SHAPELINT"
fi

# --- Run by hand: exit status 1, the index, the working tree and TMPDIR as they were.
index_before=$(cksum <.git/index)
status_before=$(git status --porcelain=v1 -z | cksum)
status=0
.git/hooks/pre-commit >/dev/null 2>&1 || status=$?
((status == 1)) || fail "the hook exited with $status on a bad staged model, not 1"
[[ $(cksum <.git/index) == "$index_before" ]] || fail "the hook changed the index"
[[ $(git status --porcelain=v1 -z | cksum) == "$status_before" ]] ||
  fail "the hook changed the status"
[[ -z $(ls -A "$TMPDIR") ]] || fail "the hook left files in TMPDIR: $(ls -A "$TMPDIR")"
pass "hook run by hand: exit 1, index, working tree and TMPDIR untouched"
git rm -q --cached which/bad.onnx
status=0
.git/hooks/pre-commit >/dev/null 2>&1 || status=$?
((status == 0)) || fail "the hook exited with $status without staged models, not 0"
pass "hook run by hand without staged models: exit 0"

done_testing
