#!/usr/bin/env python3
"""Ground truth for SL001's fix-it: decomposed adaptive pools, repaired, against eager PyTorch.

Run with the interpreter of a virtual environment that has torch 2.x, torchvision, onnx and
onnxruntime (nothing is downloaded: every network gets random weights):

    python tools/models/fix_seed/check_seed_fixes.py --linter build/onnx-shapelint

Models:

  * nn.AdaptiveAvgPool2d((2, 3)) and nn.AdaptiveMaxPool2d((2, 3)) at 1x3x6x6, H and W dynamic,
    from the TorchScript exporter (dynamo=False, opset 17) and from the dynamo exporter
    (dynamo=True, dynamic_shapes, its default opset).  The TorchScript exporter refuses an
    adaptive pool whose input size is dynamic ("input size not accessible"); the model is then
    exported at the static size and H, W are made dim_params by hand (tools/models/
    export_examples.py does the same): exactly the model the linter sees from newer exporters
    or onnx.tools.update_model_dims, one AveragePool/MaxPool whose window is 6/2 x 6/3.
    The dynamo exporter decomposes the same way and declares the output (H//3) x (W//2).
  * torchvision vgg11() (random weights, eval) at 1x3x224x224, H and W dynamic, TorchScript
    exporter at opset 14, made dynamic by hand the same way: AdaptiveAvgPool2d((7, 7)) on the
    7x7 map becomes an AveragePool of kernel 1.

Each model is repaired with `onnx-shapelint fix MODEL -o FIXED` (told the export size with
--export-dims where the model does not pin it: the dynamo exports), and the original and fixed
models run on ONNX Runtime (CPU, 1 thread) against eager PyTorch on the same random input at
several sizes.  A case passes when the fixed model's output has eager's shape and its values
are allclose (rtol 1e-3, atol 1e-4 + 1e-3 * max|eager|).

Writes tests/corpus/fix/seed_fixes.json (the small pool models go beside it; VGG is too large
and is kept in a temporary directory only) and prints a table.  Exits 1 when a case fails.
"""

import argparse
import contextlib
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
import onnxruntime as ort
import torch
import torchvision
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
import torch2_runs  # noqa: E402  (scrub_paths: the stack traces' paths made portable)
OUT_DIR = os.path.join(REPO, "tests", "corpus", "fix")
MAX_SHIPPED = 20 * 1024  # models above this stay out of the repository

POOL_SIZES = [(6, 6), (8, 9), (7, 7), (13, 5), (1, 1), (31, 17)]
VGG_SIZES = [(224, 224), (256, 256), (448, 448), (232, 240)]
TS_POOL_OPSET = 17
VGG_OPSET = 14


def make_dynamic(model, input_name, axes):
    """Makes the given axes of a graph input dim_params ({axis: name}); returns the notes."""
    notes = []
    for inp in model.graph.input:
        if inp.name != input_name:
            continue
        for axis, name in axes.items():
            dim = inp.type.tensor_type.shape.dim[axis]
            notes.append("%s[%d]=%d->%s" % (inp.name, axis, dim.dim_value, name))
            dim.Clear()
            dim.dim_param = name
    # Intermediate shapes were inferred at the static size: they would contradict the new dims.
    del model.graph.value_info[:]
    return notes


def export_torchscript(module, x, opset):
    """TorchScript export with H, W dynamic; by hand when torch refuses (see the docstring)."""
    dynamic = {"x": {2: "H", 3: "W"}}
    f = io.BytesIO()
    try:
        # torch prints the graph it was building when it refuses: not worth a screen.
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            torch.onnx.export(module, (x,), f, dynamo=False, opset_version=opset,
                              input_names=["x"], output_names=["y"], dynamic_axes=dynamic)
        return onnx.load_from_string(f.getvalue()), "dynamic_axes=%s" % json.dumps(dynamic)
    except Exception as e:  # torch raises several kinds here
        refusal = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120])
    f = io.BytesIO()
    torch.onnx.export(module, (x,), f, dynamo=False, opset_version=opset, input_names=["x"],
                      output_names=["y"])
    model = onnx.load_from_string(f.getvalue())
    added = make_dynamic(model, "x", dynamic["x"])
    return model, "dynamic_axes refused (%s); exported static, then by hand: %s" % (
        refusal, ", ".join(added))


def export_dynamo(module, x):
    """The dynamo exporter with H, W dynamic, or None and why when it fails."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # its progress lines
            program = torch.onnx.export(module, (x,), dynamo=True, input_names=["x"],
                                        output_names=["y"],
                                        dynamic_shapes=({2: Dim("H"), 3: Dim("W")},))
    except Exception as e:  # torch raises several kinds here
        return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        program.save(path)
        return onnx.load(path), "dynamo=True, dynamic_shapes H, W"


def pool_ops(model):
    return [n.op_type for n in model.graph.node]


def run_ort(path, x):
    """The first output's array, or the error's first line."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # the original models' failures are recorded, not logged
    try:
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        return session.run(None, {"x": x})[0], None
    except Exception as e:  # onnxruntime raises its own kinds
        return None, str(e).splitlines()[0][:200]


def run_eager(module, x):
    try:
        with torch.no_grad():
            return module(torch.from_numpy(x)).numpy(), None
    except Exception as e:  # eager's own refusal of a size
        return None, str(e).splitlines()[0][:200]


def fix(linter, model_path, fixed_path, export_dims, extra):
    args = [linter, "fix", model_path, "-o", fixed_path]
    if export_dims:
        args += ["--export-dims", export_dims]
    args += extra
    p = subprocess.run(args, capture_output=True, text=True)
    shown = ["onnx-shapelint"] + args[1:2] + [os.path.basename(model_path)] + args[3:4] + [
        os.path.basename(fixed_path)] + args[5:]
    output = (p.stdout + p.stderr).replace(os.path.dirname(model_path) + os.sep, "").strip()
    count = re.search(r"^(\d+) findings? fixed", output, re.M)
    return {
        "command": " ".join(shown),
        "exit": p.returncode,
        "output": output,
        "findings_fixed": int(count.group(1)) if count else None,
        "fixed": bool(count and int(count.group(1)) > 0 and os.path.exists(fixed_path)),
    }


def check_sizes(module, path, fixed_path, sizes, channels, seed):
    rows = []
    rng = np.random.default_rng(seed)
    for h, w in sizes:
        x = rng.standard_normal((1, channels, h, w)).astype(np.float32)
        eager, eager_error = run_eager(module, x)
        original, original_error = run_ort(path, x)
        fixed, fixed_error = run_ort(fixed_path, x) if fixed_path else (None, "not fixed")
        row = {
            "input": [1, channels, h, w],
            "eager": list(eager.shape) if eager is not None else eager_error,
            "original_ort": list(original.shape) if original is not None else original_error,
            "fixed_ort": list(fixed.shape) if fixed is not None else fixed_error,
        }
        if eager is None:
            row["pass"] = None  # not a size the module runs at
            rows.append(row)
            continue
        same_shape = fixed is not None and fixed.shape == eager.shape
        if same_shape:
            diff = float(np.max(np.abs(fixed.astype(np.float64) - eager))) if eager.size else 0.0
            row["max_abs_diff"] = diff
            atol = 1e-4 + 1e-3 * float(np.max(np.abs(eager))) if eager.size else 1e-4
            row["pass"] = bool(np.allclose(fixed, eager, rtol=1e-3, atol=atol))
        else:
            row["pass"] = False
        if original is not None and original.shape == eager.shape:
            row["original_max_abs_diff"] = float(np.max(np.abs(original - eager)))
        rows.append(row)
    return rows


def pool_models():
    """(name, module, ONNX model, how it was exported, --export-dims or None) for each pool."""
    out = []
    for cls, stem in ((torch.nn.AdaptiveAvgPool2d, "adaptive_avg_pool2d"),
                      (torch.nn.AdaptiveMaxPool2d, "adaptive_max_pool2d")):
        module = cls((2, 3)).eval()
        x = torch.randn(1, 3, 6, 6)
        model, how = export_torchscript(module, x, TS_POOL_OPSET)
        out.append((stem, module, model, how, None))
        model, how = export_dynamo(module, x)
        if model is None:
            print("dynamo export of %s failed: %s" % (stem, how), file=sys.stderr)
        elif any(op in ("AveragePool", "MaxPool") for op in pool_ops(model)):
            out.append((stem + ".dynamo", module, model, how, "x=1x3x6x6"))
        else:
            print("dynamo export of %s does not decompose: %s" % (stem, pool_ops(model)),
                  file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--linter", required=True, help="the onnx-shapelint binary")
    ap.add_argument("--no-vgg", action="store_true", help="skip torchvision VGG-11")
    ap.add_argument("--out", default=OUT_DIR, help="where the JSON and small models go")
    ap.add_argument("--fix-args", default="",
                    help="more arguments for `fix`, space-separated (recorded in the JSON)")
    a = ap.parse_args()
    linter = os.path.abspath(a.linter)
    extra = a.fix_args.split()
    warnings.filterwarnings("ignore")
    ort.set_default_logger_severity(4)
    torch.manual_seed(0)
    os.makedirs(a.out, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        models = [(name, module, model, how, dims, POOL_SIZES, 3)
                  for name, module, model, how, dims in pool_models()]
        if not a.no_vgg:
            vgg = torchvision.models.vgg11().eval()
            model, how = export_torchscript(vgg, torch.randn(1, 3, 224, 224), VGG_OPSET)
            models.append(("vgg11", vgg, model, how, None, VGG_SIZES, 3))
        for seed, (name, module, model, how, dims, sizes, channels) in enumerate(models):
            path = os.path.join(scratch, name + ".onnx")
            onnx.save(model, path)
            shipped = os.path.getsize(path) <= MAX_SHIPPED
            if shipped:
                shipped_model = onnx.ModelProto()
                shipped_model.CopyFrom(model)
                torch2_runs.scrub_paths(shipped_model)
                onnx.save(shipped_model, os.path.join(a.out, name + ".onnx"))
            fixed_path = os.path.join(scratch, name + ".fixed.onnx")
            run = fix(linter, path, fixed_path, dims, extra)
            if dims:  # what the linter says without the export size
                unhinted = os.path.join(scratch, name + ".fixed-without-dims.onnx")
                run["without_export_dims"] = fix(linter, path, unhinted, None, extra)
            fixed_ops = pool_ops(onnx.load(fixed_path, load_external_data=False)) \
                if run["fixed"] else None
            rows = check_sizes(module, path, fixed_path if run["fixed"] else None, sizes,
                               channels, seed)
            results.append({
                "model": name,
                "file": name + ".onnx" if shipped else None,
                "export": how,
                "opset": model.opset_import[0].version,
                "fix": run,
                "fixed_node_count": len(fixed_ops) if fixed_ops else None,
                "fixed_ops": sorted(set(fixed_ops)) if fixed_ops else None,
                "runs": rows,
            })
            del model
    report = {
        "about": "SL001 fix-it ground truth, written by tools/models/fix_seed/"
                 "check_seed_fixes.py: decomposed adaptive pools repaired by onnx-shapelint fix, "
                 "original and fixed models on ONNX Runtime (CPU, 1 thread) against eager "
                 "PyTorch; pass = eager's shape and allclose(rtol 1e-3, atol 1e-4 + "
                 "1e-3*max|eager|)",
        "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                     "onnx": onnx.__version__, "onnxruntime": ort.__version__},
        "models": results,
    }
    with open(os.path.join(a.out, "seed_fixes.json"), "w") as f:
        json.dump(report, f, sort_keys=True, indent=1)
        f.write("\n")
    print_table(results)
    failed = [r for m in results for r in m["runs"] if r["pass"] is False]
    return 1 if failed else 0


def print_table(results):
    def cell(v):
        return "x".join(map(str, v)) if isinstance(v, list) else "error: " + v[:60]
    print("| model | input | original ORT | fixed ORT | eager | max abs diff | pass |")
    print("|---|---|---|---|---|---|---|")
    for m in results:
        for r in m["runs"]:
            diff = "%.2e" % r["max_abs_diff"] if "max_abs_diff" in r else "-"
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                m["model"], cell(r["input"]), cell(r["original_ort"]), cell(r["fixed_ort"]),
                cell(r["eager"]), diff, {True: "yes", False: "NO", None: "-"}[r["pass"]]))


if __name__ == "__main__":
    sys.exit(main())
