#!/usr/bin/env python3
"""Export the torch 2.x ground-truth corpus (tests/corpus/torch2) and label it by running it.

Run with the interpreter of a virtual environment built from requirements-torch2.txt next to
this script (torch 2.x from PyPI, onnxscript, onnx, onnxruntime, torchvision, timm,
transformers); nothing is downloaded but the packages (every network gets random weights).

Every model comes from the exporter users run today, `torch.onnx.export(..., dynamo=True)`
(torch.export, then the onnxscript optimizer, both at their defaults), and again from the
TorchScript exporter of the same torch (`dynamo=False`) where that works:

  * the small modules of export_corpus.py (one op or idiom each; their source text is the
    model's label) and a few more the dynamo exporter has its own lowering for (STFT,
    scaled_dot_product_attention, kron).  Every input axis is requested dynamic; the style of
    request turns with the module: Dim.AUTO, Dim.DYNAMIC, or named Dims (batch, channels, ...).
    A request torch refuses (a named or DYNAMIC axis the code specializes) is retried with
    Dim.AUTO, and the note says so.  Each module is exported at two example sizes: its own, and
    one with batch 1 (torch specializes an axis whose example size is 0 or 1).
  * networks from torchvision, timm and transformers (tools/models/torch2_zoo.py), batch,
    height and width (or batch, sequence and past length) dynamic.

Each model runs on ONNX Runtime (1 thread) and on eager PyTorch at the export size and at 3-7
other sizes on the same inputs.  A model "breaks" when ORT fails or disagrees with eager at a
size where eager runs and where the ONNX file declares the input axes dynamic (a size the file
itself declares static is not a run; the label lists the axes that came out static).  Then the
linter (--linter, the CMake build's onnx-shapelint) lints every model, alone and told its
export sizes, and each error's counterexample is run on ORT and eager too; its verdict is
stored, so that the tests know which counterexamples are real without running anything.

Models are stored graph-only above a size limit (float initializers over 1 KiB become external
data that is not shipped; the full model stays in --scratch for the runs).  The labels go to
ground_truth.json beside the models.
"""

import argparse
import json
import linecache
import re
import textwrap
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_corpus as ec  # noqa: E402  (the small modules and their sizes)
import export_examples as ex  # noqa: E402  (graph-only copies, short error texts)
import torch2_runs as runs  # noqa: E402  (ORT against eager)

MAX_DIR = 48 * 1024 * 1024  # the whole --out directory: the budget docs/ground-truth.md states
INLINE_LIMIT = 64 * 1024    # models bigger than this are stored graph-only
STYLES = ("auto", "dynamic", "named")

# Dim names for the named style, by the input's rank (the layouts of export_corpus.py).
AXIS_NAMES = {1: ["n"], 2: ["batch", "seq"], 3: ["batch", "seq", "feat"],
              4: ["batch", "channels", "height", "width"], 5: ["batch", "channels", "d", "h", "w"]}

# Modules the dynamo exporter lowers in its own way; same conventions as export_corpus.M.
STFT = """
s = torch.stft(x, n_fft=16, hop_length=4, window=self.win, return_complex=True)
return torch.view_as_real(s)
"""


def extra_models():
    M = ec.M
    seq = ec.SEQ
    seq_runs = ec.SEQ_RUNS
    qkv = {"q": (2, 2, 5, 4), "k": (2, 2, 5, 4), "v": (2, 2, 5, 4)}
    # No weights: the head size varies too (a scale from it must follow it).
    qkv_runs = [{n: (b, 2, t, d) for n in "qkv"} for b, t, d in ((1, 5, 4), (3, 7, 6), (2, 1, 4),
                                                                 (4, 12, 8))]
    wave = {"x": (2, 64)}
    wave_runs = [{"x": (1, 64)}, {"x": (3, 80)}, {"x": (2, 33)}, {"x": (1, 200)}]
    return [
        M("sdpa", "F.scaled_dot_product_attention(q, k, v)", x=qkv, runs=qkv_runs,
          why="the fused attention op of torch 2: sizes from the inputs"),
        M("sdpa_causal", "F.scaled_dot_product_attention(q, k, v, is_causal=True)", x=qkv,
          runs=qkv_runs, why="the causal mask is built from the sequence lengths"),
        M("sdpa_scale_int", "F.scaled_dot_product_attention(q, k, v, scale=1 / int(q.size(-1)))",
          x=qkv, runs=qkv_runs, why="the scale 1/head size is a Python number: baked at 4"),
        M("stft", STFT, x=wave, runs=wave_runs, init={"win": "torch.hann_window(16)"},
          why="frames from the signal length"),
        M("kron", "torch.kron(a, b)", x={"a": (2, 3), "b": (4, 5)},
          runs=[{"a": (3, 2), "b": (4, 5)}, {"a": (2, 3), "b": (2, 2)},
                {"a": (1, 1), "b": (3, 7)}, {"a": (3, 3), "b": (4, 5)}],
          why="torch.kron as the exporter decomposes it"),
        M("layer_norm_seq", "F.layer_norm(x, (int(x.size(-1)),))", x=seq, runs=ec.SEQ_RUNS_D,
          why="normalized_shape from the feature size"),
        M("mean_pool_tokens", "x.mean(1)", x=seq, runs=seq_runs, why="ReduceMean over tokens"),
    ]


def with_batch_one(e):
    """The module at a second example size: batch (axis 0 of every input) 1."""
    f = dict(e)
    f["shapes"] = {n: (1,) + tuple(s[1:]) for n, s in e["shapes"].items()}
    f["runs"] = [dict(e["shapes"])] + [r for r in e["runs"] if r != f["shapes"]]
    return f


def dynamic_shapes(e, style):
    """dynamic_shapes for torch.export: every axis of every input, requested in `style`."""
    specs = []
    for n in e["inputs"]:
        rank = len(e["shapes"][n])
        if style == "named":
            names = AXIS_NAMES.get(rank, ["d%d" % k for k in range(rank)])
            prefix = "" if len(e["inputs"]) == 1 else n + "_"
            specs.append({k: Dim(prefix + names[k]) for k in range(rank)})
        else:
            kind = Dim.AUTO if style == "auto" else Dim.DYNAMIC
            specs.append({k: kind for k in range(rank)})
    return tuple(specs)


class SourceExpr(ec.Expr):
    """export_corpus.Expr whose forward is compiled from a file of its own, registered with
    linecache: the stack traces the dynamo exporter records (pkg.torch.onnx.stack_trace) then show
    the module's own line, `corpus/<name>.py:2 in forward`, as they show a user's."""

    def __init__(self, name, src, inputs, init=None):
        super().__init__("0", inputs, init)
        body = textwrap.dedent(src).strip()
        if not ("\n" in body or body.startswith("return ") or "; " in body):
            body = "return " + body
        text = "def forward(%s):\n%s\n" % (", ".join(["self"] + list(inputs)), "\n".join(
            "    " + line for line in body.replace("; ", "\n").splitlines()))
        filename = "corpus/%s.py" % name
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        ns = {}
        exec(compile(text, filename, "exec"), dict(ec.ENV), ns)
        self._f = ns["forward"]


class Positional(torch.nn.Module):
    """export_corpus.Expr with a forward whose parameters are the inputs' names, which
    torch.export takes as the ONNX input names."""

    def __init__(self, inner, names):
        super().__init__()
        self.inner = inner
        ns = {}
        exec("def forward(self, %s):\n    return self.inner(%s)\n" % (", ".join(names), ", ".join(names)), ns)
        self.forward = ns["forward"].__get__(self)


def dynamo_export(module, args, e, style):
    """(model, notes, style used).  A refused request is retried with Dim.AUTO."""
    notes = []
    for s in (style, "auto") if style != "auto" else ("auto",):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prog = torch.onnx.export(module, args, dynamo=True, dynamic_shapes=dynamic_shapes(e, s),
                                         output_names=e["out_names"], verbose=False)
            return prog.model_proto, notes, s
        except Exception as err:  # torch.export raises many kinds
            import torch2_zoo
            notes.append("dynamo export with %s dims failed: %s" % (s, torch2_zoo.reason(err)))
    return None, notes, None


def torchscript_export(module, args, e):
    dynamic = {n: list(range(len(e["shapes"][n]))) for n in e["inputs"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import io
            f = io.BytesIO()
            torch.onnx.export(module, args, f, dynamo=False, input_names=e["inputs"],
                              output_names=e["out_names"], dynamic_axes=dynamic)
            return onnx.load_from_string(f.getvalue()), []
        except Exception as err:
            return None, ["TorchScript export failed: %s: %s"
                          % (type(err).__name__, ex.shorten(ex.first_line(err), 300))]


# Node metadata the linter does not read, and which would be a third of the corpus: the printed
# FX node and the module namespace (the class hierarchy and name scopes say the same).
DROPPED_NODE_METADATA = ("namespace", "pkg.torch.onnx.fx_node")
KEPT_FRAMES = 3  # innermost frames of each stack trace: the user's line is among them


def slim_metadata(model):
    """Keeps what the linter reads of the exporter's node metadata (docs/ground-truth.md)."""
    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        for n in g.node:
            kept = [p for p in n.metadata_props if p.key not in DROPPED_NODE_METADATA]
            for p in kept:
                if p.key == "pkg.torch.onnx.stack_trace":
                    frames = re.split(r"\n(?=\s*File \")", p.value)
                    p.value = "\n".join(frames[-KEPT_FRAMES:]).strip("\n")
            del n.metadata_props[:]
            n.metadata_props.extend(kept)
            for attr in n.attribute:
                if attr.HasField("g"):
                    graphs.append(attr.g)
                graphs.extend(attr.graphs)


def store(model, name, a, scratch):
    """Writes the committed copy (graph-only when large); returns (path to run, external)."""
    path = os.path.join(a.out, name)
    data = model.SerializeToString()
    if len(data) <= INLINE_LIMIT and model.ByteSize() < 2**31:
        with open(path, "wb") as f:
            f.write(data)
        return path, None
    full = os.path.join(scratch, name)
    onnx.save(model, full, save_as_external_data=model.ByteSize() >= 2**31)
    external = name[:-len(".onnx")] + ".weights.bin"
    with open(path, "wb") as f:
        f.write(ex.graph_only(model, external).SerializeToString())
    return full, external


def export_variants(e, a):
    """The (file name, exporter, model, notes, entry) of each export of one small module."""
    out = []
    style = STYLES[e["index"] % len(STYLES)]
    for variant, entry, exporter in ((e["name"] + ".dynamo.onnx", e, "dynamo"),
                                     (e["name"] + ".dynamo-b1.onnx", with_batch_one(e), "dynamo"),
                                     (e["name"] + ".ts.onnx", e, "torchscript")):
        if "module" not in entry:
            torch.manual_seed(0)  # as export_corpus.build does: the same weights
            entry["module"] = SourceExpr(entry["name"], entry["src"], entry["inputs"], entry["init"])
        args = ec.build(entry)
        module = Positional(entry["module"], entry["inputs"]).eval()
        if exporter == "dynamo":
            model, notes, used = dynamo_export(module, args, entry,
                                               style if variant.endswith(".dynamo.onnx") else "auto")
            notes = notes + (["dynamic_shapes style: %s" % used] if used else [])
        else:
            model, notes = torchscript_export(module, args, entry)
        out.append((variant, exporter, model, notes, entry))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "corpus", "torch2"))
    ap.add_argument("--scratch", help="full models and temporaries (default: a temporary directory)")
    ap.add_argument("--linter", default=os.path.join(HERE, "..", "..", "build", "onnx-shapelint"),
                    help="onnx-shapelint whose errors' counterexamples are run (skipped if absent)")
    ap.add_argument("--only", nargs="*", help="only these modules or networks (their labels are updated)")
    ap.add_argument("--no-zoo", action="store_true", help="only the small modules")
    ap.add_argument("--no-small", action="store_true", help="only the networks")
    ap.add_argument("--confirm-only", action="store_true",
                    help="export nothing: lint the stored models again with --linter and run the "
                         "new counterexamples (the full models must still be in --scratch)")
    a = ap.parse_args()

    torch.set_num_threads(1)
    a.out = os.path.normpath(a.out)
    os.makedirs(a.out, exist_ok=True)
    scratch = a.scratch or tempfile.mkdtemp(prefix="shapelint-torch2-")
    os.makedirs(scratch, exist_ok=True)
    labels_path = os.path.join(a.out, "ground_truth.json")
    labels, not_exported = {}, {}
    if (a.only or a.no_zoo or a.no_small) and os.path.exists(labels_path):
        with open(labels_path) as f:  # a partial run updates the labels of what it exports
            previous = json.load(f)
        labels, not_exported = previous["models"], previous["not_exported"]

    if a.confirm_only:
        return confirm_again(a, scratch, labels_path)
    jobs = []
    if not a.no_small:
        small = ec.small_models() + extra_models()
        for k, e in enumerate(small):
            e["index"] = k
        jobs += [("small", e) for e in small if not a.only or e["name"] in a.only]
    if not a.no_zoo:
        import torch2_zoo
        jobs += [("zoo", z) for z in torch2_zoo.networks() if not a.only or z["name"] in a.only]

    for kind, e in jobs:
        print("\n=== %s" % e["name"], flush=True)
        if kind == "small":
            exports = export_variants(e, a)
        else:
            import torch2_zoo
            exports = torch2_zoo.export(e, Positional)
        for name, exporter, model, notes, entry in exports:
            started = time.time()
            for n in notes:
                print("  note: " + n)
            labels.pop(name, None)
            not_exported.pop(name, None)
            if model is None:
                not_exported[name] = {"source": entry["src"], "error": runs.portable_text(notes[-1])}
                print("  %s: NOT EXPORTED" % name)
                continue
            ex.strip_doc_strings(model)
            runs.scrub_paths(model)
            slim_metadata(model)
            run_path, external = store(model, name, a, scratch)
            label = runs.label(entry, model, run_path, exporter, notes, external)
            label["counterexamples"] = runs.confirm(a.linter, os.path.join(a.out, name), entry,
                                                    run_path, label)
            labels[name] = label
            print("  %-34s breaks=%-5s %s (%.1f s)" % (name, label["breaks"], runs.summary(label),
                                                       time.time() - started), flush=True)

    doc = runs.document(labels, not_exported)
    ec.write_json(labels_path, doc)
    print("wrote %s: %s" % (labels_path, json.dumps(doc["counts"])))
    # The models and their labels; intermediate_shapes.json (intermediate_shapes.py) is a
    # record of its own, with a budget of its own.
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out)
                if f != "intermediate_shapes.json")
    print("%s: %d bytes" % (a.out, total))
    if total > MAX_DIR:
        sys.exit("PROBLEM: %s is %d bytes (> %d): drop networks or slim more" % (a.out, total, MAX_DIR))


def confirm_again(a, scratch, labels_path):
    """Re-runs the counterexample check of every stored model (or those of --only) with the
    linter given."""
    with open(labels_path) as f:
        doc = json.load(f)
    entries = {}
    for e in ec.small_models() + extra_models():
        entries[e["name"]] = e
    import torch2_zoo
    for z in torch2_zoo.networks():
        entries[z["name"]] = z
    for name, label in sorted(doc["models"].items()):
        base = name.split(".")[0]
        if a.only and base not in a.only:
            continue
        e = dict(entries[base])
        e["shapes"] = {n: tuple(s) for n, s in label["export_inputs"].items()}
        path = os.path.join(a.out, name)
        run_path = os.path.join(scratch, name) if label.get("graph_only") else path
        if "src" in e and "build" not in e:
            if "module" not in e:  # a module of its own (kron_decomposed) is kept, as in export
                torch.manual_seed(0)
                e["module"] = SourceExpr(e["name"], e["src"], e["inputs"], e["init"])
            ec.build(e)
        else:
            torch2_zoo.export_module(e, Positional)
        label["counterexamples"] = runs.confirm(a.linter, path, e, run_path, label)
        print("%-44s %s" % (name, [c["verdict"] for c in label["counterexamples"] or []]), flush=True)
    ec.write_json(labels_path, doc)


if __name__ == "__main__":
    main()
