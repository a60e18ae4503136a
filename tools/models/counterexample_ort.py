"""ONNX Runtime at every error counterexample the linter states, for corpora whose labels do not
store those runs.

The torch 2.x corpus and the held-out module corpora store each error's counterexample in their
labels, run on ONNX Runtime and on eager PyTorch by the script that exports them. The corpora
built otherwise (tests/corpus/exports from torch 1.13, tests/corpus/post from the
post-processors, tests/corpus/third and tests/corpus/library from other projects' exporters)
have no module at hand, but ONNX Runtime alone settles what a counterexample says of the ONNX
model: that a node fails there, or that the outputs have the shapes it gives. This script lints
every model of each corpus alone and told its export sizes, runs ONNX Runtime at every error's
counterexample, and stores the result beside the corpus as counterexample_runs.json:

  {"models": {FILE: [{"inputs": {INPUT: dims}, "ort": [output dims, ...]}
                     or {"inputs": ..., "ort_error": first line}]}}

tests/corpus/counterexample_truth_test.cc then checks that every error counterexample the linter
states now is stored, and that ONNX Runtime did what it says. Models run as
intermediate_shapes.py runs them: external weights replaced by seeded random data, inputs N(0, 1)
(integers all ones), no graph optimizations, 1 thread, CPU. Needs numpy, onnx and onnxruntime
(requirements-ort.txt), and the linter built.

Usage (from the repository root):
  python tools/models/counterexample_ort.py tests/corpus/exports tests/corpus/post \
      tests/corpus/third tests/corpus/library tests/corpus/pipes tests/corpus/fused
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import onnx  # noqa: E402

import intermediate_shapes as ish  # noqa: E402  (loading, random weights, feeds, sessions)

OUT_NAME = "counterexample_runs.json"


def export_dims(label):
    """The --export-dims text of a label's export sizes, or None."""
    inputs = label.get("export_inputs")
    if not inputs:
        return None
    return ",".join("%s=%s" % (k, "x".join(str(d) for d in v)) for k, v in sorted(inputs.items()))


def error_counterexamples(linter, path, label):
    """The inputs of every error's counterexample, alone and told the export sizes, once each."""
    out = []
    for dims in (None, export_dims(label)):
        cmd = [linter, "--format", "json", "--isolated", path]
        if dims:
            cmd[1:1] = ["--export-dims", dims]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            continue  # exit 2: told sizes that do not fit a renamed input; alone covers it
        for model in report.get("models", []):
            for f in model.get("findings") or []:
                cx = f.get("counterexample")
                if f.get("severity") == "error" and cx and cx.get("inputs") is not None:
                    inputs = {k: list(v) for k, v in sorted(cx["inputs"].items())}
                    if inputs not in out:
                        out.append(inputs)
    return out


def run_at(path, inputs):
    """ONNX Runtime's result at `inputs`: {"ort": [dims of each output]} or {"ort_error": ...}."""
    model = onnx.load(path, load_external_data=False)
    ish.fill_external(model, ish.name_seed(os.path.basename(path)))
    sess, error = ish.try_session(model)
    if sess is None:
        return {"ort_error": error}
    feeds, why = ish.make_feeds(model, inputs, ish.name_seed(os.path.basename(path), "cx"))
    if feeds is None:
        return {"ort_error": why}
    names = [o.name for o in sess.get_outputs()]
    shapes, error = ish.run_shapes(sess, names, feeds)
    if shapes is None:
        return {"ort_error": error}
    return {"ort": [shapes[n] for n in names]}


def run_corpus(corpus, linter):
    with open(os.path.join(corpus, "ground_truth.json")) as f:
        labels = json.load(f)["models"]
    models, runs = {}, 0
    for name in sorted(labels):
        path = os.path.join(corpus, name)
        if not os.path.exists(path):
            continue
        stored = []
        for inputs in error_counterexamples(linter, path, labels[name]):
            stored.append(dict({"inputs": inputs}, **run_at(path, inputs)))
            runs += 1
        if stored:
            models[name] = stored
    doc = {"about": ("ONNX Runtime (CPU, 1 thread, no graph optimizations, random external "
                     "weights) at every error counterexample onnx-shapelint states on these models, "
                     "alone and told the labels' export sizes; written by "
                     "tools/models/counterexample_ort.py, never edited by hand."),
           "versions": {"onnx": onnx.__version__, "onnxruntime": ish.ort.__version__},
           "models": models}
    out = os.path.join(corpus, OUT_NAME)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, out)
    failing = sum(1 for v in models.values() for r in v if "ort_error" in r)
    print("%s: %d models with an error counterexample, %d runs, %d where ORT fails"
          % (corpus, len(models), runs, failing))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="+", help="corpus directories (with ground_truth.json)")
    ap.add_argument("--linter", default=os.path.join(HERE, "..", "..", "build", "onnx-shapelint"))
    a = ap.parse_args()
    for corpus in a.corpora:
        run_corpus(os.path.normpath(corpus), os.path.abspath(a.linter))


if __name__ == "__main__":
    main()
