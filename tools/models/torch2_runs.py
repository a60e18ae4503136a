"""Labels for the torch 2.x corpus: ONNX Runtime against eager PyTorch, and the linter's
counterexamples run on both (export_torch2.py).

A run is one set of input shapes.  Its verdict is one of
  ok                          ORT and eager agree (shapes, and values within the tolerance)
  ORT fails / wrong shape / wrong values
                              ORT and eager disagree where eager runs: the model breaks here
  eager fails (not counted)   eager PyTorch itself refuses these sizes
  declared static (not counted)
                              the ONNX file declares an axis of these inputs static with
                              another size: the file says it does not take them
Values agree when np.allclose(ort, eager, rtol=1e-3, atol=1e-4 + 1e-3 * max|eager|)
(exact for integers and booleans), as in export_corpus.py.
"""

import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import torch

import export_corpus as ec
from outputs import compare_outputs
import export_examples as ex

ort.set_default_logger_severity(3)  # failures are recorded per run; ORT's own log is noise here

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")) + os.sep
# The prefixes of this machine's files: the repository, the virtual environment, the Python it
# was made from. Other absolute paths in messages (ONNX Runtime's build tree) are not ours.
LOCAL_PREFIXES = tuple({ROOT, sys.prefix + os.sep, sys.base_prefix + os.sep})
ABSOLUTE_PATH = re.compile(r"/[^\s\"':,()]+")


def portable_path(path):
    """A path as the committed files may hold it: this repository's files relative to its root,
    installed packages from site-packages/ on, Python's own library by file name."""
    if path.startswith(ROOT):
        return path[len(ROOT):]
    k = path.find("site-packages" + os.sep)
    if k >= 0:
        return path[k:]
    return os.path.basename(path) if os.path.isabs(path) else path


def scrub_paths(model):
    """Makes the file paths the exporter records in metadata (stack traces) machine-independent:
    this repository's files relative to its root, installed packages from site-packages/ on."""
    pattern = re.compile(r'File "([^"]*)"')

    def scrub(props):
        for p in props:
            p.value = pattern.sub(lambda m: 'File "%s"' % portable_path(m.group(1)), p.value)

    scrub(model.metadata_props)
    graphs = [model.graph] + [f for f in model.functions]
    for g in graphs:
        if hasattr(g, "metadata_props"):
            scrub(g.metadata_props)
        for n in g.node:
            scrub(n.metadata_props)
            for attr in n.attribute:
                if attr.HasField("g"):
                    graphs.append(attr.g)
                graphs.extend(attr.graphs)


def portable_text(text):
    """`text` with the paths of this machine's files made portable (portable_path)."""
    def fix(m):
        p = m.group(0)
        local = p.startswith(LOCAL_PREFIXES) or "site-packages" + os.sep in p
        return portable_path(p) if local else p
    return ABSOLUTE_PATH.sub(fix, text)


BREAKING = ("ORT fails", "wrong shape", "wrong values")
NOT_COUNTED = ("eager fails (not counted)", "declared static (not counted)")


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in inits]


def static_conflict(model, names, shapes):
    """The first input axis the file declares static with another size than `shapes` has."""
    for vi, name in zip(graph_inputs(model), names):
        dims = vi.type.tensor_type.shape.dim
        want = shapes.get(name)
        if want is None or len(dims) != len(want):
            continue
        for k, (d, w) in enumerate(zip(dims, want)):
            if d.HasField("dim_value") and d.dim_value != w:
                return "%s axis %d is declared %d" % (name, k, d.dim_value)
    return None


def session(path):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def inputs_for(e, shapes, seed):
    make = e.get("make_inputs")
    return make(shapes, seed) if make else ec.make_inputs(e, shapes, seed)


def eager_outputs(e, arrs):
    ref = e.get("reference") or e["module"]
    ref.eval()
    call = e.get("call")
    with torch.no_grad():
        out = call(ref, arrs) if call else ref(*[torch.from_numpy(x) for x in arrs.values()])
    return [t.detach().numpy() for t in ec.flat_outputs(out)]


def compare(want, got):
    """(verdict, max_abs_diff or None) of ORT's outputs `got` against eager's `want`."""
    shapes, close, diff = compare_outputs(want, got)
    if not shapes:
        return "wrong shape", None
    return ("ok", None) if close else ("wrong values", float("%.4g" % diff))


def run_one(e, model, sess, shapes, seed):
    """One run: the row ground_truth.json stores."""
    row = {"inputs": {n: list(s) for n, s in shapes.items()}}
    conflict = static_conflict(model, e["inputs"], shapes)
    if conflict:
        row["verdict"] = "declared static (not counted)"
        row["declared"] = conflict
        return row
    arrs = inputs_for(e, shapes, seed)
    try:
        want = eager_outputs(e, arrs)
        row["eager"] = [list(w.shape) for w in want]
    except Exception as err:  # eager refuses these sizes
        row["eager_error"] = ex.shorten(portable_text("%s: %s" % (type(err).__name__, ex.first_line(err))), 300)
        want = None
    feeds = {vi.name: arr for vi, arr in zip(graph_inputs(model), arrs.values())}
    got = ort_outputs(sess, feeds, row)
    if want is None:
        row["verdict"] = "eager fails (not counted)"
    elif got is None:
        row["verdict"] = "ORT fails"
    else:
        row["verdict"], diff = compare(want, [np.asarray(g) for g in got])
        if diff is not None:
            row["max_abs_diff"] = diff
    return row


def specialized_axes(model, e):
    """Requested-dynamic input axes the file declares static: '<input>[axis]=size'."""
    out = []
    for vi, name in zip(graph_inputs(model), e["inputs"]):
        for k, d in enumerate(vi.type.tensor_type.shape.dim):
            if d.HasField("dim_value") and k in e["dynamic"].get(name, []):
                out.append("%s[%d]=%d" % (name, k, d.dim_value))
    return out


def ort_outputs(sess, feeds, row):
    """The session's outputs at `feeds`, their shapes in row["ort"]; or None, with ORT's error
    (shortened) in row["ort_error"] and the node it names in row["ort_node"]."""
    try:
        got = sess.run(None, feeds)
    except Exception as err:
        msg = " ".join(str(err).split())
        row["ort_error"] = ex.shorten(ex.short_ort_error(msg), 400)
        node = ec.ort_node(msg)
        if node is not None:
            row["ort_node"] = node
        return None
    row["ort"] = [list(g.shape) for g in got]
    return got


def label(e, model, run_path, exporter, notes, external):
    sess = session(run_path)
    sizes = [dict(e["shapes"])] + [r for r in e["runs"] if r != e["shapes"]]
    rows = [run_one(e, model, sess, s, 1000 + k) for k, s in enumerate(sizes)]
    breaks = any(r["verdict"] in BREAKING for r in rows)
    entry = {
        "source": e["src"],
        "init": e.get("init") or None,
        "exporter": exporter,
        "opset": next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None),
        "export_inputs": {n: list(e["shapes"][n]) for n in e["inputs"]},
        "int_inputs": {n: [0, h] for n, h in e.get("ints", {}).items()} or None,
        "dynamic_axes": ec.input_axes(model),
        "specialized": specialized_axes(model, e) or None,
        "export_notes": [ex.shorten(portable_text(n), 400) for n in notes] or None,
        "graph_only": {"external_data": external} if external else None,
        "declared_outputs": ec.declared_outputs(model),
        "runs": rows,
        "breaks": breaks,
        "torch1_label": ("breaks" if e["expect"] else "healthy") if e.get("expect") is not None else None,
    }
    if breaks:
        entry["breaks_at_export_size"] = rows[0]["verdict"] in BREAKING
        entry["suspects"] = [s.split(" ")[0] for s in ec.suspects(model, e)] or None
    return {k: v for k, v in entry.items() if v is not None}


def summary(lab):
    verdicts = [r["verdict"].split(" (")[0] for r in lab["runs"]]
    return ", ".join(verdicts)


def lint(linter, path, export_inputs=None):
    argv = [linter, "--isolated", "--format", "json", "--jobs", "1"]
    if export_inputs:
        argv += ["--export-dims", ",".join("%s=%s" % (n, "x".join(str(d) for d in s))
                                           for n, s in export_inputs.items())]
    try:
        p = subprocess.run(argv + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return json.loads(p.stdout)["models"][0]["findings"]
    except (OSError, ValueError, KeyError, IndexError) as err:
        print("  linter failed on %s: %s" % (path, err))
        return []


def confirm(linter, path, e, run_path, lab):
    """Each error's counterexample (linted alone and with --export-dims), run on ORT and eager."""
    if not linter or not os.path.exists(linter):
        return None
    model = onnx.load(path, load_external_data=False)
    sess = session(run_path)
    seen, out = set(), []
    for told in (None, lab["export_inputs"]):
        for f in lint(linter, path, told):
            cx = (f.get("counterexample") or {}).get("inputs")
            if f["severity"] != "error" or not cx:
                continue
            key = json.dumps(cx, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            shapes = {n: tuple(cx[n]) for n in e["inputs"] if n in cx}
            if len(shapes) != len(e["inputs"]):
                out.append({"inputs": cx, "verdict": "inputs not all given"})
                continue
            row = run_one(e, model, sess, shapes, 777)
            row["rule"] = f["rule"]
            out.append(row)
    return out


def versions():
    import onnxscript
    v = {"torch": torch.__version__, "onnxscript": onnxscript.__version__, "onnx": onnx.__version__,
         "onnxruntime": ort.__version__}
    for name in ("torchvision", "timm", "transformers"):
        try:
            v[name] = __import__(name).__version__
        except ImportError:
            pass
    return v


def document(labels, not_exported):
    n_break = sum(1 for v in labels.values() if v["breaks"])
    return {
        "about": "Ground truth for the models in this directory, written by "
                 "tools/models/export_torch2.py (never edited by hand). Each model ran on ONNX Runtime "
                 "(CPU, 1 thread) and on eager PyTorch on the same inputs; the first run is the export "
                 "size. 'breaks': ORT fails, or its output shape or values differ from eager, at some size "
                 "where eager runs and the file declares the axes dynamic. 'suspects': nodes reading a "
                 "constant that holds an export size (found automatically, not by hand). "
                 "'counterexamples': each linter error's counterexample, run the same way.",
        "versions": versions(),
        "counts": {"models": len(labels), "breaks": n_break, "healthy": len(labels) - n_break,
                   "not_exported": len(not_exported)},
        "not_exported": not_exported,
        "models": dict(sorted(labels.items())),
    }
