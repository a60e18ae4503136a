#!/usr/bin/env python3
"""`onnx-shapelint fix` on the two real export corpora, each fixed model run on ONNX Runtime
against eager PyTorch (docs/fix.md). Writes tests/corpus/fix/corpus_fixes.json, which
tests/python/test_fix_corpus.py reads.

Corpora: tests/corpus/torch2 (torch 2.x, export_torch2.py) and tests/corpus/exports (torch 1.13,
export_corpus.py), with their labels (ground_truth.json).

1. Fix. Every committed model (breaking or not: the healthy ones are the control) is copied
   into a scratch directory of its own and fixed there (`fix` writes beside the input, which a
   graph-only model needs), three times: told the export sizes (`--export-dims` with the
   label's export_inputs; the corpus tests in tests/corpus/*_test.cc lint every model alone and
   told), alone, and told with `--unsafe-fixes` ("unsafe": the fixes that may change outputs
   where the model works, such as a literal no size makes fail, computed as it derived from
   the example; SL009 and SL011 ignored there, whose unsafe fixes give the axis up). All with
   `--isolated`, as the corpus tests lint without a configuration file.
   The output lines ("fixed ...", "left ...") are parsed into lists; the model is also linted
   (the same options, JSON) so that each error finding is known with its severity and its
   status: fixed, fix rejected (fix tried and dropped by its proof), not repairable (the rule's
   fix does not cover the case), or no fix (the rule has none). Each fixed model is checked by
   ONNX's checker in full-check mode with this environment's onnx ("onnx_checker"), which knows
   the opsets of dynamo exports that the linter's own ONNX (Debian's 1.12) does not.

2. Values ground truth, for every model with a fix applied. The committed files hold the
   weights of one random init, so eager PyTorch must run the same weights. The module is
   rebuilt the generator's way (torch.manual_seed(0) before the module is built, as
   export_corpus.build / export_torch2.export_variants do) and exported again with the
   generator's exporter and options; its tensors (initializers and Constant node values, with
   names, types and dims) are compared with the committed file's. Equal: the rebuilt module is
   the committed model's, and the committed file is what is fixed and run ("source":
   "committed"). Loading the ONNX initializers into the module by name was not used: the
   TorchScript exporter renames and transposes weights (onnx::MatMul_N), so names do not match.
   Not equal: the fresh export is fixed and run instead ("source": "re-exported"). The torch
   1.13 networks are graph-only in the repository (weights not shipped): the committed graph is
   used with the weights of the re-export written where its external data points, after
   checking that the re-export's graph-only copy is the committed file byte for byte
   ("source": "committed graph, re-exported weights"). The torch 2.x networks (torch2_zoo) are
   fixed but not run (their records say so); "graph_unchanged" says whether a fix of one left
   everything but the declared shapes as it was, so that the labelled runs stand for it.

   Then the original and the fixed model run on ONNX Runtime (CPU, 1 intra-op and 1 inter-op
   thread) and the module on eager PyTorch (1 thread) at every size of the label's runs (the
   first is the export size), on the generator's own inputs: export_corpus.make_inputs with
   seed 1000 + k for the k-th run (uniform floats in [-1, 1), int64 inputs in the generator's
   ranges), so that the original model's verdict can be checked against the label's. Per size:
   eager shapes or error, original and fixed ORT shapes or error, max |fixed - eager|, and a
   verdict for the fixed model:
     proven                        shapes equal and np.allclose(fixed, eager, rtol=1e-3,
                                   atol=1e-4 + 1e-3 * max|eager|) (exact for ints and bools)
     ORT fails / wrong shape / wrong values
                                   the fixed model disagrees with eager where eager runs
     still breaks (error left)     as above, but the fix left an error, the original broke
                                   there too, and the fixed model does what the original does
     not counted (eager fails)     eager PyTorch refuses these sizes
     not counted (declared static) the original file declares an axis of these inputs static
                                   with another size
     not counted (the fix declared it static)
                                   the fixed file does (an unsafe fix that gives up the axis)
   At the export size the fixed model must also give the original's outputs ("safe"). A model
   is proven when every counted run is proven and the export-size run is safe.
   torch 1.13 eager runs under Debian's python3 (--torch1-python), in a subprocess of this
   script (--eager-1.13 JOB): it rebuilds and re-exports the modules, writes the inputs and the
   eager outputs as .npy files, and the weights file of a graph-only network; ORT runs here.

3. The record: per model the fixes and leftovers of each mode, the runs and "proven"; "counts"
   per mode and rule: errors on breaking models, fixable (fixed or fix rejected), fixed, proven.
   Nothing in it is copied: every verdict comes from a run of this script.

Run with the interpreter of the torch 2.x environment (requirements-torch2.txt) from the
repository root; rerunning with a newer linter is all it takes to refresh the record:
    VENV/bin/python tools/models/check_fixes.py --linter build/onnx-shapelint
Options: --only NAME... (files as in the labels; the record is then printed, not written),
--scratch DIR (kept; default a temporary directory), --torch1-python PY.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from outputs import compare_outputs  # noqa: E402

CORPORA = {"torch2": os.path.join(ROOT, "tests", "corpus", "torch2"),
           "exports": os.path.join(ROOT, "tests", "corpus", "exports")}
OUT = os.path.join(ROOT, "tests", "corpus", "fix", "corpus_fixes.json")
NETWORK_PREFIXES = ("tv_", "timm_", "hf_")
MODES = ("told", "alone", "unsafe")

FIX_LINE = re.compile(r"^(?P<what>fixed|left (?P<severity>error|warning|note)) (?P<rule>SL\d+) "
                      r"(?P<op>\S+) '(?P<node>.*?)': (?P<text>.*)$")
SUMMARY_LINE = re.compile(r"^(\d+) findings? fixed, (\d+) left$")
BREAKING = ("ORT fails", "wrong shape", "wrong values")
PROVEN = "proven"
LEFT_ERROR = "still breaks (error left)"
NOT_COUNTED_EAGER = "not counted (eager fails)"
NOT_COUNTED_STATIC = "not counted (declared static)"
NOT_COUNTED_FIX_STATIC = "not counted (the fix declared it static)"


# ---------------------------------------------------------------- the linter

def dims_arg(export_inputs):
    return ",".join("%s=%s" % (n, "x".join(str(d) for d in s)) for n, s in export_inputs.items())


def mode_options(mode, label):
    told = ["--export-dims", dims_arg(label["export_inputs"])]
    # SL009's and SL011's unsafe fixes declare the axis static: nothing to run at other sizes,
    # and beside another rule's fix of the same literal they would hide its proof.
    unsafe = told + ["--unsafe-fixes", "--ignore", "SL009,SL011"]
    return {"told": told, "alone": [], "unsafe": unsafe}[mode]


def parse_fix(stdout, model_path):
    """(fixed, left, other lines, summary counts) of `fix`'s output."""
    fixed, left, other, summary = [], [], [], None
    for line in stdout.splitlines():
        if line.startswith(model_path + ": "):
            line = line[len(model_path) + 2:]
        m = FIX_LINE.match(line)
        s = SUMMARY_LINE.match(line)
        if m:
            item = {"rule": m.group("rule"), "op": m.group("op"), "node": m.group("node")}
            if m.group("what") == "fixed":
                item["description"] = m.group("text")
                fixed.append(item)
            else:
                item["severity"] = m.group("severity")
                item["reason"] = m.group("text")
                left.append(item)
        elif s:
            summary = [int(s.group(1)), int(s.group(2))]
        elif line.strip():
            other.append(line)
    return fixed, left, other, summary


def lint_findings(linter, path, options):
    run = subprocess.run([linter, "--isolated", "--format", "json"] + options + [path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    try:
        doc = json.loads(run.stdout)
    except ValueError:
        return None, "lint failed (exit %d): %s" % (run.returncode, run.stderr.strip()[:300])
    model = doc["models"][0]
    if model.get("error"):
        return None, str(model["error"])[:300]
    return [{"rule": f["rule"], "severity": f["severity"], "node": f["node"]["name"],
             "op": f["node"]["op_type"]} for f in model["findings"]], None


def error_status(finding, fixed, left):
    key = (finding["rule"], finding["node"])
    if any((f["rule"], f["node"]) == key for f in fixed):
        return "fixed"
    for item in left:
        if (item["rule"], item["node"]) == key:
            if item["reason"].startswith("its fix was left out"):
                return "fix rejected"
            if "has no fix for this" in item["reason"]:
                return "no fix"
            return "not repairable"
    return "not listed"


def run_fix(linter, path, out, options):
    """One `fix` run: the record (fixed, left, ...) and whether it wrote `out`."""
    if os.path.exists(out):
        os.remove(out)
    # Run in the model's directory: this linter's ONNX checker looks for external data
    # relative to the working directory, and the networks' weights are beside the model.
    d, name = os.path.split(path)
    run = subprocess.run([linter, "fix", "--isolated"] + options + [name, "-o",
                                                                   os.path.basename(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         cwd=d)
    assert os.path.dirname(out) == d
    fixed, left, other, summary = parse_fix(run.stdout, name)
    record = {"exit": run.returncode, "fixed": fixed, "left": left}
    if other:
        record["other_output"] = other
    if run.stderr.strip():
        record["stderr"] = run.stderr.strip()[:400]
    if summary is not None and summary != [len(fixed), len(left)]:
        record["problem"] = "summary line says %d fixed, %d left; %d and %d lines parsed" % (
            summary[0], summary[1], len(fixed), len(left))
    lint_options = [o for o in options if o != "--unsafe-fixes"]
    findings, lint_error = lint_findings(linter, path, lint_options)
    if findings is None:
        record["lint_error"] = lint_error
    else:
        record["errors"] = [dict(rule=f["rule"], node=f["node"], op=f["op"],
                                 status=error_status(f, fixed, left))
                            for f in findings if f["severity"] == "error"]
        severity = {(f["rule"], f["node"]): f["severity"] for f in findings}
        for f in fixed:  # a finding a later round revealed is not in the first lint
            f["severity"] = severity.get((f["rule"], f["node"]))
    wrote = os.path.exists(out)
    return record, wrote


def onnx_checker(path):
    """ONNX's checker, full check, with the onnx of this environment (which knows the opsets the
    linter's own ONNX may not): "ok" or its message. A graph-only copy's missing weights file
    gets a sparse stand-in of the length its tensors point into: the checker asks that the file
    exists and reads none of it."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    ends = {}
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            info = {e.key: e.value for e in t.external_data}
            end = int(info.get("offset", 0)) + int(info.get("length", 0))
            ends[info["location"]] = max(end, ends.get(info["location"], 0))
    stand_ins = [os.path.join(os.path.dirname(path), location) for location in ends]
    stand_ins = [(f, end) for f, end in zip(stand_ins, ends.values()) if not os.path.exists(f)]
    for stand_in, end in stand_ins:
        with open(stand_in, "wb") as f:
            f.truncate(end)
    try:
        onnx.checker.check_model(path, full_check=True)
        return "ok"
    except Exception as err:  # the checker's verdict, recorded
        text = " ".join(str(err).split()).replace(os.path.dirname(path) + os.sep, "")
        return text[:300]
    finally:
        for stand_in, _ in stand_ins:
            os.remove(stand_in)


def graph_unchanged(original, fixed):
    """True when the fixed model is the original but for its declared shapes (a fix of
    declarations alone, SL004's): the same nodes, initializers and everything else, so that the
    original's labelled runs stand for it."""
    import onnx

    def without_declarations(path):
        model = onnx.load(path, load_external_data=False)
        for values in (model.graph.input, model.graph.output, model.graph.value_info):
            for vi in values:
                vi.type.tensor_type.ClearField("shape")
        return model.SerializeToString(deterministic=True)
    return without_declarations(original) == without_declarations(fixed)


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---------------------------------------------------------------- comparing outputs

def compare(want, got):
    """(shapes equal, values close, max |got - want| or None) of two output lists, with the
    corpus tolerance (outputs.compare_outputs)."""
    shapes, close, diff = compare_outputs(want, got)
    return shapes, close, None if diff is None else float("%.4g" % diff)


def verdict_of(want, got):
    """The label's verdict of ORT outputs `got` (list, or an error string) against eager."""
    if isinstance(got, str):
        return "ORT fails"
    shapes, close, _ = compare(want, got)
    return "ok" if close else ("wrong values" if shapes else "wrong shape")


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in inits]


def static_conflict(model, shapes):
    """The first input axis the file declares static with another size than `shapes` has."""
    for vi, want in zip(graph_inputs(model), shapes):
        dims = vi.type.tensor_type.shape.dim
        if len(dims) != len(want):
            continue
        for k, (d, w) in enumerate(zip(dims, want)):
            if d.HasField("dim_value") and d.dim_value != w:
                return "%s axis %d is declared %d" % (vi.name, k, d.dim_value)
    return None


class Ort:
    """ONNX Runtime on CPU, 1 intra-op and 1 inter-op thread."""

    def __init__(self):
        import onnxruntime as ort
        ort.set_default_logger_severity(4)
        self.ort = ort

    def run_all(self, path, feeds_list, scrub):
        """Outputs (list of arrays) or an error string, per feed."""
        import onnx
        model = onnx.load(path, load_external_data=False)
        names = [vi.name for vi in graph_inputs(model)]
        opts = self.ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 4
        try:
            sess = self.ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        except Exception as err:  # the session refuses the model
            return ["session: " + short_error(str(err), scrub)] * len(feeds_list)
        out = []
        for arrs in feeds_list:
            try:
                out.append([np.asarray(o) for o in sess.run(None, dict(zip(names, arrs)))])
            except Exception as err:
                out.append(short_error(str(err), scrub))
        del sess
        return out


def short_error(msg, scrub):
    import export_examples as ex
    return ex.shorten(scrub(ex.short_ort_error(" ".join(msg.split()))), 300)


def judge_runs(label_runs, model_path, fixed_paths, inputs, eager, ort, scrub, left_error):
    """The runs of one model: `inputs` and `eager` per label run (eager: output list or error
    string); `fixed_paths` {mode: path}. Returns {mode: (runs, proven)}."""
    import onnx
    original = onnx.load(model_path, load_external_data=False)
    orig_out = ort.run_all(model_path, inputs, scrub)
    result = {}
    for mode, path in fixed_paths.items():
        fixed_out = ort.run_all(path, inputs, scrub)
        fixed_model = onnx.load(path, load_external_data=False)
        rows = []
        for k, run in enumerate(label_runs):
            want, before, after = eager[k], orig_out[k], fixed_out[k]
            row = {"inputs": run["inputs"], "seed": 1000 + k, "label_verdict": run["verdict"]}
            if isinstance(want, str):
                row["eager_error"] = want
            else:
                row["eager"] = [list(w.shape) for w in want]
            for key, out in (("original", before), ("fixed", after)):
                if isinstance(out, str):
                    row[key + "_error"] = out
                else:
                    row[key] = [list(o.shape) for o in out]
            conflict = static_conflict(original, [a.shape for a in inputs[k]])
            # An unsafe fix may give up a dynamic axis (SL009, SL011): the fixed model then
            # refuses other sizes by its declaration, which is what the fix says it does.
            declared = static_conflict(fixed_model, [a.shape for a in inputs[k]])
            same_as_original = None
            if not isinstance(before, str) and not isinstance(after, str):
                shapes, close, diff = compare(before, after)
                same_as_original = close
                if shapes:
                    row["fixed_vs_original_max_abs_diff"] = diff
            elif isinstance(before, str) and isinstance(after, str):
                same_as_original = True  # both refuse these sizes
            else:
                same_as_original = False
            row["same_as_original"] = same_as_original
            if isinstance(want, str):
                row["verdict"] = NOT_COUNTED_EAGER
            elif conflict:
                row["verdict"] = NOT_COUNTED_STATIC
                row["declared"] = conflict
            elif declared:
                row["verdict"] = NOT_COUNTED_FIX_STATIC
                row["declared"] = declared
            else:
                row["original_verdict"] = verdict_of(want, before)
                if isinstance(after, str):
                    v = "ORT fails"
                else:
                    shapes, close, diff = compare(want, after)
                    row["max_abs_diff"] = diff
                    v = PROVEN if close else ("wrong values" if shapes else "wrong shape")
                if v != PROVEN and left_error[mode] and row["original_verdict"] in BREAKING \
                        and same_as_original:
                    v = LEFT_ERROR
                row["verdict"] = v
            if k == 0:
                # Safe: where the original works, the fixed model gives its outputs.
                row["safe"] = bool(same_as_original) and not isinstance(after, str) \
                    if row.get("original_verdict") == "ok" else None
            rows.append(row)
        counted = [r for r in rows if not r["verdict"].startswith("not counted")]
        proven = bool(counted) and all(r["verdict"] == PROVEN for r in counted) and \
            rows[0]["safe"] is not False
        result[mode] = (rows, proven)
    return result


# ---------------------------------------------------------------- torch 2.x

def tensors_of(model):
    """Every tensor the model holds: initializers and Constant values, (name, type, dims,
    bytes), in order."""
    from onnx import numpy_helper
    out = []
    for t in model.graph.initializer:
        out.append((t.name, t.data_type, tuple(t.dims), numpy_helper.to_array(t).tobytes()))
    for n in model.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value" and a.HasField("t"):
                    arr = numpy_helper.to_array(a.t)
                    out.append((n.output[0], a.t.data_type, tuple(arr.shape), arr.tobytes()))
    return out


def same_tensors(a, b):
    """'equal', 'equal up to names', or 'differ' for the tensors of two models."""
    ta, tb = tensors_of(a), tensors_of(b)
    if sorted(ta) == sorted(tb):
        return "equal"
    if sorted(t[1:] for t in ta) == sorted(t[1:] for t in tb):
        return "equal up to names"
    # Constants differing only in name and count (the optimizer dedups them) do not make
    # other weights: the initializers alone.
    def inits(m):
        from onnx import numpy_helper
        return sorted((t.data_type, tuple(t.dims), numpy_helper.to_array(t).tobytes())
                      for t in m.graph.initializer)
    if inits(a) == inits(b):
        return "initializers equal"
    return "differ"


class Torch2:
    """Rebuilds the small modules of the torch 2.x corpus as export_torch2.py does."""

    def __init__(self):
        import torch
        import export_corpus as ec
        import export_torch2 as et
        import torch2_runs as runs
        torch.set_num_threads(1)
        self.torch, self.ec, self.et, self.runs = torch, ec, et, runs
        small = ec.small_models() + et.extra_models()
        self.entries = {}
        for k, e in enumerate(small):
            e["index"] = k
            self.entries[e["name"]] = e

    def entry(self, file):
        base, variant = file[:-len(".onnx")].split(".", 1)
        e = dict(self.entries[base])
        entry = self.et.with_batch_one(e) if variant == "dynamo-b1" else e
        if "module" not in entry:
            self.torch.manual_seed(0)  # as export_torch2.export_variants: the same weights
            entry["module"] = self.et.SourceExpr(entry["name"], entry["src"], entry["inputs"],
                                                 entry["init"])
        return entry, variant

    def reexport(self, entry, variant):
        import export_examples as ex
        args = self.ec.build(entry)
        module = self.et.Positional(entry["module"], entry["inputs"]).eval()
        if variant.startswith("dynamo"):
            style = self.et.STYLES[entry["index"] % len(self.et.STYLES)] \
                if variant == "dynamo" else "auto"
            model, _, _ = self.et.dynamo_export(module, args, entry, style)
        else:
            model, _ = self.et.torchscript_export(module, args, entry)
        if model is None:
            return None
        ex.strip_doc_strings(model)
        self.runs.scrub_paths(model)
        self.et.slim_metadata(model)
        return model

    def eager(self, entry, label):
        import export_examples as ex
        inputs, outs = [], []
        for k, run in enumerate(label["runs"]):
            shapes = {n: tuple(s) for n, s in run["inputs"].items()}
            arrs = self.runs.inputs_for(entry, shapes, 1000 + k)
            inputs.append(list(arrs.values()))
            try:
                outs.append(self.runs.eager_outputs(entry, arrs))
            except Exception as err:  # eager refuses these sizes
                outs.append(ex.shorten(self.runs.portable_text(
                    "%s: %s" % (type(err).__name__, ex.first_line(err))), 300))
        return inputs, outs


# ---------------------------------------------------------------- torch 1.13 (subprocess)

def eager_113(job_path):
    """--eager-1.13 JOB: under torch 1.13, for each model of the job: rebuild and re-export it
    (export_corpus's way), compare with the committed file, write the fresh export when it
    differs (reexport.onnx) and the weights of a graph-only network; write each run's inputs
    (in_K_I.npy) and eager outputs (eager_K_J.npy) or error; result.json in each directory."""
    import torch
    import export_corpus as ec
    import export_examples as ex
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    with open(job_path) as f:
        job = json.load(f)
    entries = {e["name"]: e for e in ec.small_models()}
    tv_names = [t[0] for t in ec.TV]
    for m in job["models"]:
        try:
            res = eager_113_one(m, entries, tv_names)
        except Exception as err:  # recorded; the main script stops on it
            res = {"torch": torch.__version__,
                   "error": "%s: %s" % (type(err).__name__, ex.shorten(ex.first_line(err), 300))}
        with open(os.path.join(m["dir"], "result.json"), "w") as f:
            json.dump(res, f)
        print("  torch 1.13: %-36s %s" % (m["file"], res.get("match") or res["error"]), flush=True)


def eager_113_one(m, entries, tv_names):
    import onnx
    import onnx.numpy_helper
    import torch
    import export_corpus as ec
    import export_examples as ex
    base = m["file"][:-len(".onnx")]
    e = ec.tv_models([base])[0] if base in tv_names else entries[base]
    res = {"torch": torch.__version__}
    args = ec.build(e)
    model, _ = ec.export(e["module"], args, e["inputs"], e["dynamic"], e.get("fallback"),
                         e["out_names"])
    ex.strip_doc_strings(model)
    with open(m["committed"], "rb") as f:
        committed_bytes = f.read()
    committed = onnx.load_from_string(committed_bytes)
    if m.get("graph_only"):
        external = m["graph_only"]
        copy = ex.graph_only(model, external).SerializeToString()
        res["match"] = "graph-only copy identical" if copy == committed_bytes else "differ"
        if res["match"] != "differ":
            full = {t.name: t for t in model.graph.initializer}
            with open(os.path.join(m["dir"], external), "wb") as out:
                for t in committed.graph.initializer:
                    if t.data_location != onnx.TensorProto.EXTERNAL:
                        continue
                    info = {d.key: d.value for d in t.external_data}
                    raw = onnx.numpy_helper.to_array(full[t.name]).tobytes()
                    assert len(raw) == int(info["length"]), t.name
                    out.seek(int(info.get("offset", 0)))
                    out.write(raw)
    else:
        fresh = model.SerializeToString()
        if fresh == committed_bytes:
            res["match"] = "identical"
        else:
            res["match"] = same_tensors(model, committed)
    if res["match"] == "differ":
        onnx.save(model, os.path.join(m["dir"], "reexport.onnx"))
    ref = e.get("reference") or e["module"]
    ref.eval()
    res["eager"] = []
    for k, run in enumerate(m["runs"]):
        shapes = {n: tuple(s) for n, s in run["inputs"].items()}
        arrs = ec.make_inputs(e, shapes, 1000 + k)
        for i, a in enumerate(arrs.values()):
            np.save(os.path.join(m["dir"], "in_%d_%d.npy" % (k, i)), a)
        try:
            with torch.no_grad():
                outs = ec.flat_outputs(ref(*[torch.from_numpy(x) for x in arrs.values()]))
            for j, o in enumerate(outs):
                np.save(os.path.join(m["dir"], "eager_%d_%d.npy" % (k, j)), o.detach().numpy())
            res["eager"].append(len(outs))
        except Exception as err:  # eager refuses these sizes
            res["eager"].append("%s: %s" % (type(err).__name__,
                                            ex.shorten(ex.first_line(err), 300)))
    return res


def load_113(d, label_runs):
    with open(os.path.join(d, "result.json")) as f:
        res = json.load(f)
    inputs, eager = [], []
    if "error" in res:
        return res, None, None
    for k in range(len(label_runs)):
        n_in = len(label_runs[k]["inputs"])
        inputs.append([np.load(os.path.join(d, "in_%d_%d.npy" % (k, i))) for i in range(n_in)])
        e = res["eager"][k]
        eager.append(e if isinstance(e, str) else
                     [np.load(os.path.join(d, "eager_%d_%d.npy" % (k, j))) for j in range(e)])
    return res, inputs, eager


# ---------------------------------------------------------------- main

def fix_model(linter, path, label, out_dir):
    """Every mode's fix record on `path`; {mode: fixed path} for the distinct fixed outputs."""
    records, fixed_paths, digests = {}, {}, {}
    for mode in MODES:
        out = os.path.join(out_dir, "fixed_%s.onnx" % mode)
        record, wrote = run_fix(linter, path, out, mode_options(mode, label))
        if record["fixed"] and wrote:
            record["onnx_checker"] = onnx_checker(out)
            digest = file_digest(out)
            same = [m for m, d in digests.items() if d == digest]
            if same:
                record["same_output_as"] = same[0]
            else:
                digests[mode] = digest
                fixed_paths[mode] = out
        elif record["fixed"]:
            record["problem"] = "fixes listed but no output written"
        records[mode] = record
    return records, fixed_paths


def scrubber(work):
    def scrub(text):
        text = re.sub(re.escape(work) + r"[^\s'\"]*", lambda m: os.path.basename(m.group(0)), text)
        try:
            import torch2_runs
            return torch2_runs.portable_text(text)
        except ImportError:
            return text
    return scrub


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linter", help="the onnx-shapelint binary whose fix is checked")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--torch2", default=CORPORA["torch2"], help="the torch 2.x corpus directory")
    ap.add_argument("--exports", default=CORPORA["exports"], help="the torch 1.13 corpus directory")
    ap.add_argument("--torch1-python", default="/usr/bin/python3",
                    help="Debian's python3 with torch 1.13 (eager runs of tests/corpus/exports)")
    ap.add_argument("--scratch", help="working directory (kept); default a temporary one")
    ap.add_argument("--only", nargs="*", help="only these model files; the record is printed")
    ap.add_argument("--eager-1.13", dest="eager_113", metavar="JOB", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.eager_113:
        return eager_113(a.eager_113)
    if not a.linter:
        ap.error("--linter is required")
    linter = os.path.abspath(a.linter)
    work = os.path.abspath(a.scratch or tempfile.mkdtemp(prefix="shapelint-fixes-"))
    os.makedirs(work, exist_ok=True)
    try:
        check(a, linter, work)
    finally:
        if not a.scratch:
            shutil.rmtree(work, ignore_errors=True)


def check(a, linter, work):
    scrub = scrubber(work)

    import onnx
    import onnxruntime
    import torch
    ort = Ort()
    version = subprocess.run([linter, "--version"], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout.strip()
    models, jobs_113 = {}, []
    t2 = None
    for corpus, cdir in (("torch2", a.torch2), ("exports", a.exports)):
        with open(os.path.join(cdir, "ground_truth.json")) as f:
            labels = json.load(f)["models"]
        for file, label in sorted(labels.items()):
            if a.only and file not in a.only:
                continue
            key = "%s/%s" % (corpus, file)
            d = os.path.join(work, corpus, file[:-len(".onnx")])
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, file)
            shutil.copyfile(os.path.join(cdir, file), path)
            records, fixed_paths = fix_model(linter, path, label, d)
            network = file.startswith(NETWORK_PREFIXES) or bool(label.get("graph_only"))
            entry = {"corpus": corpus, "breaks": label["breaks"], "modes": records,
                     "network": network}
            if corpus == "torch2":
                entry["exporter"] = label["exporter"]
            models[key] = entry
            summary = "; ".join("%s: %d fixed, %d left" % (m, len(r["fixed"]), len(r["left"]))
                                for m, r in records.items())
            print("%-52s breaks=%-5s %s" % (key, label["breaks"], summary), flush=True)
            if not fixed_paths:
                continue
            if corpus == "torch2" and network:
                entry["not_run"] = "a torch 2.x network (torch2_zoo): fixed, not run"
                for mode, fixed_path in fixed_paths.items():
                    records[mode]["graph_unchanged"] = graph_unchanged(path, fixed_path)
                continue
            if corpus == "torch2":
                t2 = t2 or Torch2()
                e, variant = t2.entry(file)
                fresh = t2.reexport(e, variant)
                committed = onnx.load(path)
                entry["weights"] = "no re-export" if fresh is None else \
                    same_tensors(fresh, committed)
                if entry["weights"] == "differ":
                    entry["source"] = "re-exported"
                    path = os.path.join(d, "reexport.onnx")
                    onnx.save(fresh, path)
                    records, fixed_paths = fix_model(linter, path, label, d)
                    entry["modes"] = records
                else:
                    entry["source"] = "committed"
                inputs, eager = t2.eager(e, label)
                finish(entry, label, path, fixed_paths, inputs, eager, ort, scrub)
            else:
                jobs_113.append((key, file, label, d, path, fixed_paths))

    if jobs_113:
        job = {"models": [{"file": file, "committed": os.path.join(a.exports, file), "dir": d,
                           "graph_only": (label.get("graph_only") or {}).get("external_data"),
                           "runs": label["runs"]}
                          for key, file, label, d, path, fixed_paths in jobs_113]}
        job_path = os.path.join(work, "job_113.json")
        with open(job_path, "w") as f:
            json.dump(job, f)
        subprocess.run([a.torch1_python, os.path.abspath(__file__), "--eager-1.13", job_path],
                       check=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        torch1_version = None
        for key, file, label, d, path, fixed_paths in jobs_113:
            entry = models[key]
            res, inputs, eager = load_113(d, label["runs"])
            torch1_version = res["torch"]
            if "error" in res:
                # A missing python3-torchvision, say: the record would silently lose the model.
                sys.exit("%s: torch 1.13 could not rebuild the module: %s" % (key,
                                                                             scrub(res["error"])))
            entry["weights"] = res["match"]
            if res["match"] == "differ":
                entry["source"] = "re-exported"
                path = os.path.join(d, "reexport.onnx")
                records, fixed_paths = fix_model(linter, path, label, d)
                entry["modes"] = records
            elif label.get("graph_only"):
                # Fixed again now that its weights are beside it, as a user's model would be
                # (ONNX's checker then reads them).
                entry["source"] = "committed graph, re-exported weights"
                records, fixed_paths = fix_model(linter, path, label, d)
                entry["modes"] = records
            else:
                entry["source"] = "committed"
            finish(entry, label, path, fixed_paths, inputs, eager, ort, scrub)
    else:
        torch1_version = None

    counts = count(models)
    doc = {"about": "onnx-shapelint fix on every model of tests/corpus/torch2 and "
                    "tests/corpus/exports, each fixed model run on ONNX Runtime (CPU, 1 thread) "
                    "against eager PyTorch at every size of its labels; written by "
                    "tools/models/check_fixes.py (never edited by hand). Modes: 'told' = fix "
                    "--export-dims with the label's export sizes, 'alone' = fix without, 'unsafe' = "
                    "'told' with --unsafe-fixes. Run "
                    "verdicts: 'proven' = shapes equal and np.allclose(fixed, eager, rtol=1e-3, "
                    "atol=1e-4 + 1e-3 * max|eager|). Counts per rule: errors on breaking models, "
                    "fixable (fixed or fix rejected by its proof), fixed, proven (the fixed "
                    "model matches eager at every counted size).",
           "versions": {"torch": torch.__version__, "torch_1.13": torch1_version,
                        "onnxruntime": onnxruntime.__version__, "onnx": onnx.__version__,
                        "onnx-shapelint": version},
           "counts": counts, "models": models}
    print_summary(doc)
    if a.only:
        print(json.dumps(models, indent=1, sort_keys=True))
        return
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    text = json.dumps(doc, indent=1, sort_keys=True)
    assert work not in text, "a scratch path got into the record"
    with open(a.out, "w") as f:
        f.write(text + "\n")
    print("wrote %s" % os.path.relpath(a.out))


def finish(entry, label, path, fixed_paths, inputs, eager, ort, scrub):
    modes = entry["modes"]
    left_error = {m: any(x["severity"] == "error" for x in modes[m]["left"]) for m in fixed_paths}
    judged = judge_runs(label["runs"], path, fixed_paths, inputs, eager, ort, scrub, left_error)
    for mode, (rows, proven) in judged.items():
        modes[mode]["runs"] = rows
        modes[mode]["proven"] = proven
        print("    %-6s proven=%-5s %s" % (mode, proven, ", ".join(r["verdict"] for r in rows)),
              flush=True)


def mode_record(entry, mode):
    """The record holding `mode`'s runs (the other mode's when the outputs are the same)."""
    r = entry["modes"][mode]
    return entry["modes"][r["same_output_as"]] if "same_output_as" in r else r


def count(models):
    """{"all": per mode and rule, "torch2" / "exports": the same for one corpus}."""
    out = {"all": count_models(models)}
    for corpus in CORPORA:
        out[corpus] = count_models({k: e for k, e in models.items() if e["corpus"] == corpus})
    return out


def count_models(models):
    """Per mode and rule. Over the error findings of breaking models: errors, fixable (fixed or
    fix rejected), fixed, proven (fixed, and the fixed model proven). Over every fix applied,
    any severity, any model: fixed_any, proven_any, not_run (networks fixed but not run)."""
    counts = {}
    for mode in MODES:
        per = {}

        def rule(name):
            return per.setdefault(name, dict(errors=0, fixable=0, fixed=0, proven=0,
                                             fixed_any=0, proven_any=0, not_run=0))
        for key, entry in models.items():
            r = entry["modes"][mode]
            proven = mode_record(entry, mode).get("proven", False)
            for err in r.get("errors", []) if entry["breaks"] else []:
                c = rule(err["rule"])
                c["errors"] += 1
                c["fixable"] += err["status"] in ("fixed", "fix rejected")
                c["fixed"] += err["status"] == "fixed"
                c["proven"] += err["status"] == "fixed" and proven
            for f in r["fixed"]:
                c = rule(f["rule"])
                c["fixed_any"] += 1
                c["proven_any"] += proven
                c["not_run"] += "not_run" in entry
        counts[mode] = dict(sorted(per.items()))
    return counts


def print_summary(doc):
    for mode, corpus in [(m, c) for m in MODES for c in ["all"] + list(CORPORA)]:
        print("\nfix %s, %s: error findings on breaking models (fixable = fixed or fix rejected); "
              "every fix applied (any severity, any model)" % (mode, corpus))
        print("  %-6s %7s %8s %6s %7s   %9s %10s %8s" % (
            "rule", "errors", "fixable", "fixed", "proven", "fixed_any", "proven_any", "not_run"))
        for rule, c in doc["counts"][corpus][mode].items():
            print("  %-6s %7d %8d %6d %7d   %9d %10d %8d" % (
                rule, c["errors"], c["fixable"], c["fixed"], c["proven"], c["fixed_any"],
                c["proven_any"], c["not_run"]))
    print("\nnot proven (fixed model vs eager):")
    for key, entry in sorted(doc["models"].items()):
        for mode in MODES:
            r = entry["modes"][mode]
            if not r["fixed"] or "same_output_as" in r or "runs" not in r or r["proven"]:
                continue
            bad = ["%s: %s" % (" ".join("%s%s" % (n, s) for n, s in x["inputs"].items()),
                               x["verdict"]) for x in r["runs"]
                   if x["verdict"] != PROVEN and not x["verdict"].startswith("not counted")]
            if r["runs"][0]["safe"] is False:
                bad.insert(0, "not safe at the export size")
            print("  %s [%s]: %s" % (key, mode, "; ".join(bad)))
    unrun = [k for k, e in doc["models"].items() if e.get("not_run")]
    print("\nfixed, not run: %d torch 2.x networks" % len(unrun))
    mismatch = []
    for key, entry in sorted(doc["models"].items()):
        with_runs = [entry["modes"][m] for m in MODES if "runs" in entry["modes"][m]]
        for x in with_runs[0]["runs"] if with_runs else []:
            if "original_verdict" in x and x["original_verdict"] != x["label_verdict"]:
                mismatch.append("%s %s: label %s, here %s" % (key, x["inputs"], x["label_verdict"],
                                                              x["original_verdict"]))
    print("runs where the original model's verdict here is not its label's: %d%s" % (
        len(mismatch), "".join("\n  " + s for s in mismatch)))
    problems = ["%s [%s]: %s" % (k, m, e["modes"][m]["problem"]) for k, e in sorted(
        doc["models"].items()) for m in MODES if "problem" in e["modes"][m]]
    print("problems: %d%s" % (len(problems), "".join("\n  " + s for s in problems)))


if __name__ == "__main__":
    main()
