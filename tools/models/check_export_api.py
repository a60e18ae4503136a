#!/usr/bin/env python3
"""onnx_shapelint.torch.export() on every small module of the torch 2.x corpus, checked against
the command line and the corpus labels (docs/python.md, "At scale").

For each module and exporter (dynamo with the corpus's dynamic_shapes style, TorchScript with
every axis dynamic), as export_torch2.py exports them:
  * torch.onnx.export alone, timed: the baseline;
  * export(..., confirm=True): its findings, its timings (export, lint, confirm), each error's
    verdict and the dynamic check's runs;
  * the command line on the file export() wrote, told the example sizes (--export-dims) and the
    requested axes that came out static (--dynamic): its findings must be export()'s, without
    the ST findings of the export call and the verdicts.
The result goes to tests/corpus/torch2/export_api.json, which tests/python/test_export_api.py
reads with ground_truth.json (whose labels come from export_torch2.py's own runs).

Run with the interpreter of the torch 2.x environment (requirements-torch2.txt) and the built
package on PYTHONPATH:
    PYTHONPATH=build/python VENV/bin/python tools/models/check_export_api.py --linter build/onnx-shapelint
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_corpus as ec  # noqa: E402
import export_torch2 as et  # noqa: E402

import onnx_shapelint.torch as shapelint_torch  # noqa: E402


def cli_findings(linter, path, shapes, dynamic):
    """The command line's findings, told what export() knows: the example sizes, and the
    requested axes that came out static (--dynamic, as export() lints them)."""
    dims = ",".join("%s=%s" % (n, "x".join(map(str, s))) for n, s in shapes.items())
    argv = [linter, "--isolated", "--format", "json", "--export-dims", dims]
    for axis in dynamic or []:
        argv += ["--dynamic", ":".join(map(str, axis[:2])) + ("=" + axis[2] if len(axis) > 2 else "")]
    run = subprocess.run(argv + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         check=False)
    return json.loads(run.stdout)["models"][0]["findings"]


def requests(entry, exporter, style):
    if exporter == "dynamo":
        return {"dynamic_shapes": et.dynamic_shapes(entry, style)}
    return {"dynamic_axes": {n: list(range(len(entry["shapes"][n]))) for n in entry["inputs"]},
            "dynamo": False}


def timed_plain_export(module, args, path, entry, exporter, style):
    started = time.perf_counter()
    torch.onnx.export(module, args, path, output_names=entry["out_names"],
                      **requests(entry, exporter, style))
    return time.perf_counter() - started


def check_one(module, args, entry, exporter, style, linter, work):
    """The record of one export, or None when torch refuses the request."""
    plain = os.path.join(work, "plain.onnx")
    checked = os.path.join(work, "checked.onnx")
    for s in (style, "auto") if exporter == "dynamo" and style != "auto" else (style,):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                baseline = timed_plain_export(module, args, plain, entry, exporter, s)
                report = shapelint_torch.export(module, args, f=checked,
                                                output_names=entry["out_names"],
                                                **requests(entry, exporter, s))
            break
        except Exception:  # torch refuses a named or DYNAMIC axis the code specializes
            report = None
    if report is None:
        return None
    shapes = {n: list(a.shape) for n, a in zip(entry["inputs"], args)}
    lint_only = report.as_linted()
    return {
        "style": s if exporter == "dynamo" else None,
        "same_findings": lint_only == cli_findings(linter, checked, shapes,
                                                   report._options.get("dynamic")),
        "findings": ["%s:%s" % (f["rule"], f["severity"]) for f in report.findings],
        "promoted": ["%s:%s" % (f["rule"], f["confirmation"]["detail"][:160])
                     for f in report.findings
                     if "promoted_from" in (f.get("confirmation") or {})],
        "verdicts": [{"rule": f["rule"], "verdict": f["confirmation"]["verdict"],
                      "detail": f["confirmation"]["detail"][:200]}
                     for f in report.findings if "confirmation" in f],
        "probes": [{"binding": p["binding"], "verdict": p["verdict"],
                    "explained_by": p.get("explained_by")} for p in report.probes],
        "runs": report.runs,
        "seconds": {"torch_export": round(baseline, 4),
                    **{k: round(v, 4) for k, v in report.timings.items()}},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linter", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "corpus", "torch2",
                                                  "export_api.json"))
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    torch.set_num_threads(1)
    small = ec.small_models() + et.extra_models()
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for k, e in enumerate(small):
            if a.only and e["name"] not in a.only:
                continue
            style = et.STYLES[k % len(et.STYLES)]
            if "module" not in e:
                torch.manual_seed(0)
                e["module"] = et.SourceExpr(e["name"], e["src"], e["inputs"], e["init"])
            args = ec.build(e)
            module = et.Positional(e["module"], e["inputs"]).eval()
            for exporter, suffix in (("dynamo", ".dynamo.onnx"), ("torchscript", ".ts.onnx")):
                record = check_one(module, args, e, exporter, style, a.linter, work)
                if record is not None:
                    results[e["name"] + suffix] = record
                    print("%-40s %s %s" % (e["name"] + suffix, record["same_findings"],
                                           [v["verdict"] for v in record["verdicts"]]), flush=True)
    versions = {"torch": torch.__version__}
    try:
        import onnxruntime
        versions["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    doc = {"about": "onnx_shapelint.torch.export() on the small modules of this corpus, written "
                    "by tools/models/check_export_api.py (never edited by hand)",
           "versions": versions, "models": dict(sorted(results.items()))}
    with open(os.path.normpath(a.out), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s: %d exports" % (a.out, len(results)))


if __name__ == "__main__":
    main()
