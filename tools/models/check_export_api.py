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
    the ST findings of the export call, each with the linter's severity or, where a run made it
    an error (or refuted it: a note) and export() recorded the run in the file, as the run
    settled it.
The result goes to tests/corpus/torch2/export_api.json, which tests/python/test_export_api.py
reads with ground_truth.json (whose labels come from export_torch2.py's own runs).

With --family NAME, the modules are those of a held-out corpus instead (export_NAME.py: unseen,
fresh, blind, sealed, veiled, cloaked, shrouded, obscured), each exported in the dynamic_shapes
style that script gave it, and the record goes to tests/corpus/NAME/export_api.json. Nothing in
the linter was tuned on those modules; the record measures what runs of eager PyTorch settle on
them (docs/severity.md, "Runs settle it").

Run with the interpreter of the torch 2.x environment (requirements-torch2.txt) and the built
package on PYTHONPATH:
    PYTHONPATH=build/python VENV/bin/python tools/models/check_export_api.py --linter build/onnx-shapelint
"""

import argparse
import importlib
import json
import os
import re
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
import export_unseen as eu  # noqa: E402
import torch2_zoo  # noqa: E402

import onnx_shapelint.torch as shapelint_torch  # noqa: E402
from onnx_shapelint._probes import spec as probe_spec  # noqa: E402
from onnx_shapelint import _core as shapelint_core  # noqa: E402


CORPUS = os.path.join(HERE, "..", "..", "tests", "corpus", "torch2")


def declared(path):
    """Each graph input's dims as declared: the size of a static one, None for a dynamic one."""
    return [[d if isinstance(d, int) else None for d in i["dims"] or []]
            for i in shapelint_core.inputs(path)]


def structure(path):
    """What makes two exports the same model for the labels, names aside: the declared inputs,
    each node's op type, input count and plain attributes, and the small integer tensors (the
    shape literals an export bakes in or not)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path, load_external_data=False)
    small_ints = []
    for t in model.graph.initializer:
        if t.data_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32) and \
                t.data_location != onnx.TensorProto.EXTERNAL:
            values = numpy_helper.to_array(t)
            if values.size <= 64:
                small_ints.append(values.tolist())
    nodes = []
    for n in model.graph.node:
        attrs = []
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == onnx.TensorProto.INT64:
                attrs.append((a.name, numpy_helper.to_array(a.t).tolist()))
            elif a.type in (onnx.AttributeProto.INT, onnx.AttributeProto.INTS,
                            onnx.AttributeProto.FLOAT, onnx.AttributeProto.STRING):
                attrs.append((a.name, str(onnx.helper.get_attribute_value(a))))
        nodes.append((n.op_type, len(n.input), sorted(attrs, key=str)))
    return declared(path), nodes, sorted(small_ints, key=str)


def source_paths(text):
    """ONNX Runtime's messages start with the path of its source file on the machine that built
    it (/onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:91): the file
    and line are kept, the build machine's directories are not. Applied after the record's length limit, so a
    record rewritten by it is the one a rerun writes."""
    text = re.sub(r"/onnxruntime_src/(?:[^\s:]*/)?([^\s/:]+:\d+)", r"\1", text)
    # A path the record's length limit cut before its line number.
    return re.sub(r"/onnxruntime_src/\S*$", "", text)


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


def as_the_command_line_gives(report):
    """export()'s findings as the command line must give them on the file export() wrote:
    the linter's, but an error where a run made a finding one and a note where runs refuted
    one, which export() recorded in the file (run_records); the ST findings of the export call
    left out. Sorted (rule, node, attribute, severity)."""
    recorded = {(r["rule"], r["node"], r["attribute"]): "error" if r["verdict"] == "disagree"
                else "note" for r in shapelint_torch.run_records(report, "")}
    return sorted(_key(f) + (recorded.get(_key(f), f["severity"]),)
                  for f in report.as_linted())


def command_line_findings(findings):
    return sorted(_key(f) + (f["severity"],) for f in findings)


def _key(finding):
    """A finding as a run record names it: rule, node, attribute."""
    return (finding["rule"], (finding.get("node") or {}).get("label"),
            finding.get("attribute") or "")


def requests(entry, exporter, style):
    """What the corpus asks torch.onnx.export for: every axis of a small module dynamic (in the
    module's dynamic_shapes style), a network's dynamic axes (batch, height, width...)."""
    if "dynamic" in entry:
        if exporter == "dynamo":
            return {"dynamic_shapes": torch2_zoo.dynamic_shapes(entry)}
        return {"dynamic_axes": entry["dynamic"], "dynamo": False}
    if exporter == "dynamo":
        return {"dynamic_shapes": et.dynamic_shapes(entry, style)}
    return {"dynamic_axes": {n: list(range(len(entry["shapes"][n]))) for n in entry["inputs"]},
            "dynamo": False}


def timed_plain_export(module, args, path, entry, exporter, style):
    started = time.perf_counter()
    torch.onnx.export(module, args, path, output_names=entry["out_names"],
                      **requests(entry, exporter, style))
    return time.perf_counter() - started


def check_one(module, args, entry, exporter, style, linter, work, baseline_run=True,
              corpus=CORPUS):
    """The record of one export, or None when torch refuses the request. Without
    `baseline_run` (networks, whose exports take a minute) the baseline is export()'s own
    export step, the same call."""
    plain = os.path.join(work, "plain.onnx")
    checked = os.path.join(work, "checked.onnx")
    for s in (style, "auto") if exporter == "dynamo" and style != "auto" else (style,):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                baseline = (timed_plain_export(module, args, plain, entry, exporter, s)
                            if baseline_run else None)
                report = shapelint_torch.export(module, args, f=checked,
                                                output_names=entry["out_names"],
                                                **requests(entry, exporter, s))
            break
        except Exception:  # torch refuses a named or DYNAMIC axis the code specializes
            report = None
    if report is None:
        return None
    shapes = {n: list(a.shape) for n, a in zip(entry["inputs"], args)}
    committed = os.path.join(corpus, entry["name"] + (".dynamo.onnx" if exporter == "dynamo"
                                                      else ".ts.onnx"))
    return {
        "style": s if exporter == "dynamo" else None,
        # The labels are the committed file's: an export that declares its inputs otherwise
        # (torch specialized an axis this time and not then, or the other way) is another
        # model, which they do not judge.
        "same_inputs": os.path.exists(committed) and declared(checked) == declared(committed),
        "same_graph": os.path.exists(committed) and structure(checked) == structure(committed),
        "same_findings": as_the_command_line_gives(report) == command_line_findings(
            cli_findings(linter, checked, shapes, report._options.get("dynamic"))),
        "findings": ["%s:%s" % (f["rule"], f["severity"]) for f in report.findings],
        # Findings whose severity a run changed: "SL007:warning->error: at w=12: ...".
        "changed": ["%s:%s->%s: %s" % (f["rule"], f["confirmation"]["linted"]["severity"],
                                       f["severity"], source_paths(f["confirmation"]["detail"][:160]))
                    for f in report.findings if "linted" in (f.get("confirmation") or {})],
        "verdicts": [{"rule": f["rule"], "verdict": f["confirmation"]["verdict"],
                      "detail": source_paths(f["confirmation"]["detail"][:200])}
                     for f in report.findings if "confirmation" in f],
        # One line per probe, "s0=11,s27=4: disagree [SL007]": up to 16 per export.
        "probes": ["%s: %s%s" % (probe_spec(p["binding"]), p["verdict"],
                                 " %s" % p["explained_by"]
                                 if p.get("explained_by") is not None else "")
                   for p in report.probes],
        "runs": report.runs,
        "seconds": {"torch_export": round(report.timings["export"] if baseline is None
                                          else baseline, 4),
                    **{k: round(v, 4) for k, v in report.timings.items()}},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linter", required=True)
    ap.add_argument("--out", help="default: export_api.json in the corpus's directory")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--zoo", action="store_true",
                    help="the networks instead of the small modules; their records are added to "
                         "--out's")
    ap.add_argument("--family", help="the modules of a held-out corpus (export_FAMILY.py)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    corpus = CORPUS
    if a.family:
        corpus = os.path.join(CORPUS, "..", a.family)
        small = importlib.import_module("export_" + a.family).all_modules()
    else:
        small = ec.small_models() + et.extra_models()
    a.out = a.out or os.path.join(corpus, "export_api.json")
    results = {}
    if a.zoo:
        with open(os.path.normpath(a.out)) as f:
            results = json.load(f)["models"]
        small = []
    with tempfile.TemporaryDirectory() as work:
        for z in torch2_zoo.networks() if a.zoo else []:
            if a.only and z["name"] not in a.only:
                continue
            args = torch2_zoo.export_module(z, et.Positional)
            z["out_names"] = ["y"]
            for exporter, suffix in (("dynamo", ".dynamo.onnx"), ("torchscript", ".ts.onnx")):
                record = check_one(z["module"], args, z, exporter, "auto", a.linter, work,
                                   baseline_run=False)
                if record is not None:
                    results[z["name"] + suffix] = record
                    print("%-40s %s %s %s" % (z["name"] + suffix, record["same_findings"],
                                              record["findings"],
                                              [v["verdict"] for v in record["verdicts"]]),
                          flush=True)
        for k, e in enumerate(small):
            if a.only and e["name"] not in a.only:
                continue
            # The style the corpus's own script gave the module (export_unseen.exports).
            style = (eu.STYLES[e["index"] % len(eu.STYLES)] if a.family
                     else et.STYLES[k % len(et.STYLES)])
            if "module" not in e:
                torch.manual_seed(0)
                e["module"] = et.SourceExpr(e["name"], e["src"], e["inputs"], e["init"])
            args = ec.build(e)
            module = et.Positional(e["module"], e["inputs"]).eval()
            for exporter, suffix in (("dynamo", ".dynamo.onnx"), ("torchscript", ".ts.onnx")):
                record = check_one(module, args, e, exporter, style, a.linter, work,
                                   baseline_run=not a.family, corpus=corpus)
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
                    "by tools/models/check_export_api.py%s (never edited by hand)"
                    % (" --family " + a.family if a.family else ""),
           "versions": versions, "models": dict(sorted(results.items()))}
    with open(os.path.normpath(a.out), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s: %d exports" % (a.out, len(results)))


if __name__ == "__main__":
    main()
