#!/usr/bin/env python3
"""Export real ONNX models with example sizes baked in, for onnx-shapelint.

Uses Debian 12's torch 1.13 (TorchScript-based torch.onnx.export) and onnx
1.12; optional torchvision 0.14 for VGG-11.  Every model is exported with
dynamic_axes (list form, so torch picks the dim_param names itself) on each
axis of each input that the model allows to vary.

Models written to --out (each well under 200 KB):

  adaptive_avg_pool2d.onnx      F.adaptive_avg_pool2d(x, (2, 3)) traced at 1x2x6x6
  adaptive_avg_pool2d_out1.onnx F.adaptive_avg_pool2d(x, 1)      (GlobalAveragePool, healthy)
  kron_decomposed.onnx          torch.kron decomposed as torch 2.x does, sizes as
                                Python ints (constant Reshape targets), at 2x3 (x) 4x5
  kron_decomposed_dynamic.onnx  the same decomposition with traced sizes (healthy)
  reshape_traced_int.onnx       x.reshape(int(x.shape[0]), -1) at 2x3x4x4
  flatten.onnx                  x.flatten(1) at 2x3x4x4 (healthy lookalike)
  vgg11.onnx                    torchvision vgg11, graph only (see below), at 1x3x224x224
  vgg11_features.onnx           vgg11.features + vgg11.avgpool, graph only
  squeeze_opset10.onnx          x.squeeze(1) * 2 traced at 2x1x4, opset 10: a plain Squeeze of
                                the dynamic axis 1
  squeeze.onnx                  the same at opset 13: an If that squeezes only a dim of size 1
                                (healthy lookalike)

torch 1.13 cannot export some of these as asked:
  * adaptive_avg_pool2d with dynamic H/W: "input size not accessible".  Such
    models are re-exported with dynamic_axes on the axes torch accepts (N, C;
    for VGG only N) and the remaining input axes are then made symbolic by
    hand, with the name torch would have given them.  That is exactly the model
    a newer exporter (or a user running onnx.tools.update_model_dims) produces:
    an AveragePool whose kernel and strides were computed from the example size.
  * torch.kron: no ONNX symbolic at any opset.  kron.onnx is therefore not
    written; kron_decomposed*.onnx reproduce the aten decomposition instead.

VGG models: the full model (weights ~507 MB) goes to --scratch for running;
the copy in --out keeps every float initializer larger than 1 KiB as external
data pointing at a file that is not shipped (dims and data_type kept).

With --check, every model is also run on ONNX Runtime (node run_ort.mjs, next
to this script) at the export size and at other sizes, compared with eager
PyTorch (shapes, and values with allclose), and a Markdown table is printed
(or written to --table FILE).  onnxruntime-node must be resolvable: pass
--ort-dir DIR (the directory where `npm install --ignore-scripts
onnxruntime-node@1.30.0` was run) or set NODE_PATH.

Run with Debian's python3 (the one python3-torch is installed for).
"""

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import torch
import torch.nn.functional as F

from model_files import dims_of, graph_only  # noqa: F401  (ex.dims_of, ex.graph_only elsewhere)

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13
MAX_COMMITTED = 200 * 1024


# ---------------------------------------------------------------- modules

class AdaptivePool(torch.nn.Module):
    def __init__(self, out):
        super().__init__()
        self.out = out

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self.out)


class Kron(torch.nn.Module):
    def forward(self, a, b):
        return torch.kron(a, b)


def kron_decomposed(a, b, bake):
    """torch.kron as torch/_refs decomposes it (interleaved reshapes, a
    broadcast multiply and a final reshape).  bake=True turns the sizes into
    Python ints, as an export that specializes on the example does."""
    conv = int if bake else (lambda v: v)
    nd = max(a.dim(), b.dim())
    a_s = [1] * (nd - a.dim()) + [conv(d) for d in a.shape]
    b_s = [1] * (nd - b.dim()) + [conv(d) for d in b.shape]
    a_r = [v for d in a_s for v in (d, 1)]
    b_r = [v for d in b_s for v in (1, d)]
    return (a.reshape(a_r) * b.reshape(b_r)).reshape([x * y for x, y in zip(a_s, b_s)])


class KronDecomposed(torch.nn.Module):
    def __init__(self, bake):
        super().__init__()
        self.bake = bake

    def forward(self, a, b):
        return kron_decomposed(a, b, self.bake)


class KronReference(torch.nn.Module):
    """Eager reference for the decomposed kron models: the real torch.kron."""

    def forward(self, a, b):
        return torch.kron(a, b)


class ReshapeTracedInt(torch.nn.Module):
    def forward(self, x):
        return x.reshape(int(x.shape[0]), -1)


class Flatten1(torch.nn.Module):
    def forward(self, x):
        return x.flatten(1)


class Squeeze1(torch.nn.Module):
    def forward(self, x):
        return x.squeeze(1) * 2


class Features(torch.nn.Module):
    def __init__(self, vgg):
        super().__init__()
        self.features = vgg.features
        self.avgpool = vgg.avgpool

    def forward(self, x):
        return self.avgpool(self.features(x))


# ---------------------------------------------------------------- export helpers

def first_line(e):
    s = str(e).strip()
    return s.splitlines()[0] if s else type(e).__name__


def torch_export(module, args, input_names, dynamic, out_names, opset=None):
    f = io.BytesIO()
    # torch rewrites list-form dynamic_axes into dicts in place: pass a copy
    dynamic = {k: list(v) for k, v in dynamic.items()} if dynamic else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, f, input_names=input_names, output_names=out_names,
                          opset_version=opset or OPSET, dynamic_axes=dynamic,
                          do_constant_folding=True)
    return onnx.load_from_string(f.getvalue())


def export(module, args, input_names, dynamic, fallback=None, out_names=("y",), opset=None):
    """Export with dynamic_axes=dynamic ({input: [axes]}).  If torch refuses
    and fallback (a subset, same order, as a prefix of each list) is given,
    export with that and make the remaining axes symbolic afterwards, named
    '<input>_dynamic_axes_<k>' as torch names list-form axes.
    opset defaults to this script's OPSET.  Returns (model or None, notes)."""
    notes = []
    module.eval()
    try:
        return torch_export(module, args, input_names, dynamic, list(out_names), opset), notes
    except Exception as e:  # torch raises several kinds here
        notes.append("torch.onnx.export(dynamic_axes=%s) failed: %s: %s"
                     % (json.dumps(dynamic), type(e).__name__, first_line(e)))
        if fallback is None:
            return None, notes
    model = torch_export(module, args, input_names, fallback, list(out_names), opset)
    added = []
    for inp in model.graph.input:
        axes = dynamic.get(inp.name, [])
        done = fallback.get(inp.name, [])
        assert axes[:len(done)] == done, "fallback axes must be a prefix of the requested ones"
        for k, axis in enumerate(axes, start=1):
            dim = inp.type.tensor_type.shape.dim[axis]
            name = "%s_dynamic_axes_%d" % (inp.name, k)
            if axis not in done:
                added.append("%s[%d]=%d->%s" % (inp.name, axis, dim.dim_value, name))
            dim.Clear()
            dim.dim_param = name
    notes.append("re-exported with dynamic_axes=%s; then made symbolic by hand: %s"
                 % (json.dumps(fallback), ", ".join(added)))
    return model, notes


def strip_doc_strings(model):
    model.doc_string = ""
    model.graph.doc_string = ""
    for n in model.graph.node:
        n.doc_string = ""


def describe(model, full=True):
    g = model.graph
    lines = []
    if full:
        lines.append(onnx.helper.printable_graph(g))
    else:
        ops = {}
        for n in g.node:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
        lines.append("ops: " + ", ".join("%s x%d" % kv for kv in ops.items()))
        for n in g.node:
            if n.op_type in ("AveragePool", "MaxPool", "GlobalAveragePool", "Flatten", "Reshape", "Gemm"):
                attrs = ", ".join("%s=%s" % (a.name, onnx.helper.get_attribute_value(a)) for a in n.attribute)
                lines.append("  %s %s(%s)" % (n.name, n.op_type, attrs))
    for vi in g.input:
        lines.append("input  %s %s" % (vi.name, dims_of(vi)))
    for vi in g.output:
        lines.append("output %s %s" % (vi.name, dims_of(vi)))
    consts = {}
    for n in g.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = onnx.numpy_helper.to_array(a.t)
    inits = {t.name: t for t in g.initializer}
    for n in g.node:
        if n.op_type in ("Reshape", "Expand", "Tile", "Slice", "Resize", "ConstantOfShape"):
            for i in n.input[1:]:
                if i in consts:
                    lines.append("  %s input %s = Constant %s" % (n.name, i, consts[i].tolist()))
                elif i in inits and inits[i].data_location != onnx.TensorProto.EXTERNAL:
                    lines.append("  %s input %s = initializer %s"
                                 % (n.name, i, onnx.numpy_helper.to_array(inits[i]).tolist()))
    return "\n".join(lines)


# ---------------------------------------------------------------- examples

def examples(have_tv):
    ex = []
    pool_sizes = [(1, 2, 6, 6), (2, 3, 8, 9), (1, 1, 12, 12), (2, 3, 7, 7)]
    ex.append(dict(file="adaptive_avg_pool2d.onnx", module=AdaptivePool((2, 3)),
                   args=(torch.randn(1, 2, 6, 6),), inputs=["x"],
                   dynamic={"x": [0, 1, 2, 3]}, fallback={"x": [0, 1]},
                   runs=[{"x": s} for s in pool_sizes]))
    ex.append(dict(file="adaptive_avg_pool2d_out1.onnx", module=AdaptivePool(1),
                   args=(torch.randn(1, 2, 6, 6),), inputs=["x"],
                   dynamic={"x": [0, 1, 2, 3]}, fallback={"x": [0, 1]},
                   runs=[{"x": s} for s in pool_sizes]))
    kron_runs = [{"a": (2, 3), "b": (4, 5)}, {"a": (3, 2), "b": (4, 5)},
                 {"a": (2, 3), "b": (2, 2)}, {"a": (3, 3), "b": (4, 5)}]
    kron_args = (torch.randn(2, 3), torch.randn(4, 5))
    ex.append(dict(file="kron.onnx", module=Kron(), args=kron_args, inputs=["a", "b"],
                   dynamic={"a": [0, 1], "b": [0, 1]}, runs=kron_runs))
    ex.append(dict(file="kron_decomposed.onnx", module=KronDecomposed(True), reference=KronReference(),
                   args=kron_args, inputs=["a", "b"],
                   dynamic={"a": [0, 1], "b": [0, 1]}, runs=kron_runs))
    ex.append(dict(file="kron_decomposed_dynamic.onnx", module=KronDecomposed(False), reference=KronReference(),
                   args=kron_args, inputs=["a", "b"],
                   dynamic={"a": [0, 1], "b": [0, 1]}, runs=kron_runs))
    bsizes = [(2, 3, 4, 4), (5, 3, 4, 4), (1, 3, 4, 4), (3, 3, 4, 4)]
    ex.append(dict(file="reshape_traced_int.onnx", module=ReshapeTracedInt(),
                   args=(torch.randn(2, 3, 4, 4),), inputs=["x"], dynamic={"x": [0]},
                   runs=[{"x": s} for s in bsizes]))
    ex.append(dict(file="flatten.onnx", module=Flatten1(),
                   args=(torch.randn(2, 3, 4, 4),), inputs=["x"], dynamic={"x": [0]},
                   runs=[{"x": s} for s in bsizes]))
    # Below opset 11 torch squeezes the traced size-1 axis unconditionally; from 11 on it writes
    # an If on the axis' size. Eager PyTorch leaves a dim larger than 1 as it is.
    ssizes = [(2, 1, 4), (2, 3, 4), (1, 1, 5), (3, 2, 1)]
    for file, opset in (("squeeze_opset10.onnx", 10), ("squeeze.onnx", OPSET)):
        ex.append(dict(file=file, module=Squeeze1(), opset=opset,
                       args=(torch.randn(2, 1, 4),), inputs=["x"], dynamic={"x": [0, 1, 2]},
                       runs=[{"x": s} for s in ssizes]))
    if have_tv:
        import torchvision
        torch.manual_seed(0)
        vgg = torchvision.models.vgg11(weights=None).eval()
        vsizes = [(1, 3, 224, 224), (2, 3, 224, 224), (1, 3, 256, 256), (1, 3, 448, 448)]
        ex.append(dict(file="vgg11.onnx", module=vgg, big=True,
                       args=(torch.randn(1, 3, 224, 224),), inputs=["x"],
                       dynamic={"x": [0, 2, 3]}, fallback={"x": [0]},
                       runs=[{"x": s} for s in vsizes]))
        ex.append(dict(file="vgg11_features.onnx", module=Features(vgg).eval(), big=True,
                       args=(torch.randn(1, 3, 224, 224),), inputs=["x"],
                       dynamic={"x": [0, 2, 3]}, fallback={"x": [0]},
                       runs=[{"x": s} for s in vsizes]))
    return ex


# ---------------------------------------------------------------- check (ground truth)

def shorten(s, n=110):
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[:n - 3] + "..."


def short_ort_error(msg):
    """'Non-zero status code ... Name:'/Reshape' Status Message: /src/x.h:91
    func(...) cond was false. The input tensor cannot ...' -> "node '/Reshape':
    The input tensor cannot ..." (the source location and C++ signature dropped)."""
    msg = " ".join(msg.split())
    m = re.search(r"running (\w+) node\. Name:'([^']*)' Status Message: (.*)", msg)
    if not m:
        return msg
    detail = m.group(3)
    detail = re.sub(r"^\S+:\d+ .*?\) ", "", detail)  # source location + signature
    detail = re.sub(r"^.*? was false\. ", "", detail)
    return "%s '%s': %s" % (m.group(1), m.group(2), detail)


def fmt_shape(s):
    return "(" + ",".join(str(d) for d in s) + ")"


def check(e, run_path, node_env, work):
    """Run e's model on ORT at every size of e['runs'] and compare with eager
    PyTorch.  Returns table rows."""
    rows = []
    ref = e.get("reference", e["module"]).eval()
    rng = np.random.default_rng(0)
    in_dir = os.path.join(work, "in")
    out_dir = os.path.join(work, "out")
    for d in (in_dir, out_dir):
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    expected = []
    argv = ["node", os.path.join(HERE, "run_ort.mjs"), "--in-dir", in_dir, "--out-dir", out_dir, e["run_model"]]
    for k, run in enumerate(e["runs"]):
        feeds = []
        for name in e["inputs"]:
            arr = rng.uniform(-1, 1, size=run[name]).astype(np.float32)
            arr.tofile(os.path.join(in_dir, "%s.%d.bin" % (name, k)))
            feeds.append(torch.from_numpy(arr))
            argv.append("%s=%s" % (name, ",".join(str(d) for d in run[name])))
        argv.append("+")
        with torch.no_grad():
            expected.append(ref(*feeds).numpy())
    p = subprocess.run(argv[:-1], env=node_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    results = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    warn = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in p.stderr.splitlines()]
    warn = [l for l in warn if l.strip() and "sequential_executor.cc" not in l]  # errors are in the rows
    if len(results) == 1 and results[0].get("inputs") is None:
        results = results * len(e["runs"])
    for k, run in enumerate(e["runs"]):
        sizes = " ".join("%s%s" % (n, fmt_shape(run[n])) for n in e["inputs"])
        want = expected[k]
        r = results[k] if k < len(results) else {"ok": False, "error": "no result (node exit %d): %s"
                                                  % (p.returncode, shorten(p.stderr))}
        if not r["ok"]:
            rows.append((sizes, fmt_shape(want.shape), "error: " + shorten(short_ort_error(r["error"]), 160),
                         "fails"))
            continue
        got_shape = tuple(r["outputs"]["y"])
        if got_shape != want.shape:
            verdict = "silently wrong (shape)"
        else:
            got = np.fromfile(os.path.join(out_dir, "y.%d.bin" % k), dtype=np.float32).reshape(got_shape)
            if np.allclose(got, want, rtol=1e-3, atol=1e-5):
                verdict = "works (values allclose)"
            else:
                verdict = "silently wrong (values; max abs diff %.3g)" % float(np.max(np.abs(got - want)))
        rows.append((sizes, fmt_shape(want.shape), fmt_shape(got_shape), verdict))
    if warn:
        e["notes"].append("ORT stderr: " + " | ".join(shorten(l, 300) for l in warn))
    return rows


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory for the (committed) models")
    ap.add_argument("--scratch", help="directory for full-weight VGG models and check temporaries "
                                      "(default: a temporary directory)")
    ap.add_argument("--no-vgg", action="store_true", help="skip torchvision VGG-11 even if available")
    ap.add_argument("--print-graphs", action="store_true", help="print each exported graph")
    ap.add_argument("--check", action="store_true", help="run every model on ONNX Runtime and compare with PyTorch")
    ap.add_argument("--ort-dir", help="directory holding node_modules/onnxruntime-node (else NODE_PATH / cwd)")
    ap.add_argument("--table", help="write the --check Markdown table to this file (default: stdout)")
    ap.add_argument("--only", nargs="+", metavar="FILE",
                    help="export (and check) only these models, e.g. squeeze.onnx")
    a = ap.parse_args()

    torch.manual_seed(0)
    have_tv = False
    if not a.no_vgg:
        try:
            import torchvision  # noqa: F401
            have_tv = True
        except ImportError:
            print("torchvision not available: skipping VGG-11", file=sys.stderr)
    os.makedirs(a.out, exist_ok=True)
    scratch = a.scratch or tempfile.mkdtemp(prefix="shapelint-models-")
    os.makedirs(scratch, exist_ok=True)

    node_env = dict(os.environ)
    if a.ort_dir:
        nm = os.path.join(os.path.abspath(a.ort_dir), "node_modules")
        node_env["NODE_PATH"] = os.pathsep.join(p for p in (nm, node_env.get("NODE_PATH")) if p)

    print("torch %s, onnx %s, opset %d" % (torch.__version__, onnx.__version__, OPSET))
    all_rows = []
    for e in examples(have_tv):
        if a.only and e["file"] not in a.only:
            continue
        model, notes = export(e["module"], e["args"], e["inputs"], e["dynamic"], e.get("fallback"),
                              opset=e.get("opset"))
        e["notes"] = notes
        print("\n=== %s" % e["file"])
        for n in notes:
            print("note: " + n)
        if model is None:
            print("not exported")
            e["run_model"] = None
        else:
            strip_doc_strings(model)
            onnx.checker.check_model(model)
            path = os.path.join(a.out, e["file"])
            if e.get("big"):
                full = os.path.join(scratch, e["file"])
                onnx.save(model, full)
                e["run_model"] = full
                base = os.path.splitext(e["file"])[0]
                model = graph_only(model, base + ".weights.bin")
                print("full model: %s (%d bytes); graph-only copy: %s" % (full, os.path.getsize(full), path))
            else:
                e["run_model"] = path
            data = model.SerializeToString()
            if len(data) > MAX_COMMITTED:
                sys.exit("%s would be %d bytes (> %d)" % (e["file"], len(data), MAX_COMMITTED))
            with open(path, "wb") as f:
                f.write(data)
            print(describe(model, full=not e.get("big") or a.print_graphs))
        if a.check:
            seen = len(e["notes"])
            if e["run_model"] is None:
                sizes, wants = [], []
                with torch.no_grad():
                    ref = e.get("reference", e["module"]).eval()
                    for run in e["runs"]:
                        sizes.append(" ".join("%s%s" % (n, fmt_shape(run[n])) for n in e["inputs"]))
                        wants.append(fmt_shape(ref(*[torch.randn(*run[n]) for n in e["inputs"]]).shape))
                err = re.search(r"failed: (\w+): (.*)", notes[0])
                all_rows.append((e["file"], "; ".join(sizes), "; ".join(wants),
                                 "(no model: %s)" % shorten(err.group(1) + ": " + err.group(2), 90),
                                 "export fails"))
            else:
                for row in check(e, e["run_model"], node_env, os.path.join(scratch, "check")):
                    all_rows.append((e["file"],) + row)
            for n in e["notes"][seen:]:
                print("note: " + n)

    if a.check:
        out = ["| model | input sizes | PyTorch output | ORT output | verdict |",
               "| --- | --- | --- | --- | --- |"]
        for r in all_rows:
            out.append("| " + " | ".join(x.replace("|", "\\|") for x in r) + " |")
        text = "\n".join(out) + "\n"
        if a.table:
            with open(a.table, "w") as f:
                f.write(text)
        print("\n" + text)


if __name__ == "__main__":
    main()
