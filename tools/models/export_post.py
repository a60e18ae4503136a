"""The post-processed corpus, tests/corpus/post: our own exports after the graph tools users run
on them before deployment, labelled by running them.

Users rarely ship what torch.onnx.export wrote: ultralytics runs onnxslim on every export,
onnx-simplifier is the usual next step, and ONNX Runtime's symbolic shape inference is run to
write shapes into a model (for TensorRT, for quantization). Each tool rewrites the graph (folds
constants, fuses nodes) or writes value_info and output shapes of its own, so the linter meets
graphs no exporter wrote. This script builds those graphs from the two labelled export corpora,
tests/corpus/torch2 (torch 2.x, dynamo and TorchScript) and tests/corpus/exports (torch 1.13):

  slim       onnxslim.slim(model), its defaults (as ultralytics calls it)
  sim        onnxsim.simplify(model), input shapes left as declared (dynamic)
  ssi        onnxruntime.tools.symbolic_shape_infer, infer_shapes(model, auto_merge=False)
  ssi-merge  the same with auto_merge=True

Each output is `<source stem>.<processor>.onnx` (conv2d.dynamo.slim.onnx; conv2d.slim.onnx for
tests/corpus/exports). Which sources go through which processor is chosen by `selection`.

The processors need weights, and the networks of the source corpora are graph-only (float
initializers over 1 KiB are external data whose file is not shipped). Before processing, each
such initializer is filled with deterministic random data seeded by the source's file name
(N(0, 0.02); a BatchNormalization variance gets 1 + |N(0, 0.02)| so that normalising stays
finite). After processing, a model is stored graph-only again when its source was or when it is
over 64 KB (model_files.graph_only, the convention of export_torch2.py).

Labels are measured, never guessed. Every run of the source's label (at most 5, export size
first) runs on ONNX Runtime (CPU, 1 thread, ORT_DISABLE_ALL, so that ORT's own rewrites do not
blur what the processor did) for the processed model and for its source with the same weights,
on the same inputs (seeded by the source's name and the run: floats N(0, 1), integers 1, booleans
true). A run's verdict:

  declared static (not counted)
                        the processed file declares an input axis static with another size
                        than the run gives it (slim and ssi-merge fix dynamic axes to their
                        export size; `specialized` lists them): the file says it does not take
                        these sizes, as in the source labels
  the source's          both fail, or both give the same shapes and values (outputs.
                        compare_outputs, the corpus tolerance): the processed model does what
                        its source does there, so the source's verdict against eager PyTorch
                        holds for it too
  differs from source   they differ otherwise (`source_verdict`, `source_ort` say how). It
                        breaks where the source's run counted (eager ran), except where the
                        source was wrong there and the processed model now gives eager's shapes:
                        its values are not compared with eager's here, so the model is marked
                        `uncertain` instead

`breaks` means what it means in the source labels: some counted run is not ok. Each run also
says where this rerun of the source does not reproduce its label's ORT outcome
(`source_rerun`; none did when this was written).

Each source module (the file name before the first dot, so every exporter variant and processor
of one module together) is held out when sha256(module) % 3 == 0: `held_out` in each label.

Run from the repository root with the packages of requirements-post.txt; see README.md.
"""

import argparse
import contextlib
import hashlib
import json
import multiprocessing
import os
import sys
import tempfile
import time
import traceback

import numpy as np
import onnx
import onnx.helper
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from model_files import dims_of, graph_only, write_json  # noqa: E402
from outputs import compare_outputs  # noqa: E402

ort.set_default_logger_severity(4)  # failures are recorded per run; ORT's own log is noise here

SOURCES = (("torch2", os.path.join("tests", "corpus", "torch2")),
           ("exports", os.path.join("tests", "corpus", "exports")))
PROCESSORS = ("slim", "sim", "ssi", "ssi-merge")
INLINE_LIMIT = 64 * 1024    # processed models bigger than this are stored graph-only
MAX_RUNS = 5                # runs of the source label replayed per model
TIMEOUT = 60                # seconds a processor may take on one model
DIR_BUDGET = 10 * 10**6     # bytes of the whole output directory (checked)
WEIGHT_STD = 0.02

BREAKING = ("ORT fails", "wrong shape", "wrong values")
NOT_COUNTED = ("eager fails (not counted)", "declared static (not counted)")
DIFFERS = "differs from source"


# ---------------------------------------------------------------- selection

def module_of(file):
    """The source module of a corpus file: its name before the first dot."""
    return file.split(".", 1)[0]


def digest(text):
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def held_out(file):
    """The held-out third, by module, so that no variant of a held-out module is seen."""
    return digest(module_of(file)) % 3 == 0


def load_sources(root):
    """(corpus, directory, file, label) of every source file the family may use: torch 2.x
    `.dynamo.onnx` and `.ts.onnx` (not `.dynamo-b1.onnx`), and every torch 1.13 export."""
    out = []
    for corpus, rel in SOURCES:
        with open(os.path.join(root, rel, "ground_truth.json")) as f:
            labels = json.load(f)["models"]
        for file, label in sorted(labels.items()):
            if corpus == "torch2" and not file.endswith((".dynamo.onnx", ".ts.onnx")):
                continue
            out.append({"corpus": corpus, "dir": os.path.join(root, rel), "file": file,
                        "label": label, "size": os.path.getsize(os.path.join(root, rel, file))})
    return out


def select(sources, network_bytes, subset_every):
    """[(source, processors)]: the plan, deterministic. Small modules (whole files) go through
    slim and ssi-merge, and through sim and ssi when sha256('sim-ssi:' + module) % subset_every
    is 0; networks (graph-only files) go through slim only, smallest first, while their source
    files add up to at most network_bytes."""
    plan, used = [], 0
    for s in sources:
        if s["label"].get("graph_only"):
            continue
        procs = ["slim", "ssi-merge"]
        if digest("sim-ssi:" + module_of(s["file"])) % subset_every == 0:
            procs = list(PROCESSORS)
        plan.append((s, procs))
    networks = sorted((s for s in sources if s["label"].get("graph_only")),
                      key=lambda s: (s["size"], s["file"]))
    for s in networks:
        if used + s["size"] > network_bytes:
            break
        used += s["size"]
        plan.append((s, ["slim"]))
    return plan


# ---------------------------------------------------------------- weights and inputs

def rng_for(*parts):
    return np.random.default_rng(digest("/".join(str(p) for p in parts)) % 2**63)


def variance_inputs(model):
    """Names of the tensors that feed a BatchNormalization's variance (input 4)."""
    return {n.input[4] for n in model.graph.node
            if n.op_type == "BatchNormalization" and len(n.input) > 4}


def fill_external(model, name):
    """A copy of a graph-only model with every external initializer filled with random data
    seeded by `name` (the processors and ONNX Runtime need the values; shapes do not depend
    on them). Returns (model, number of tensors filled)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    rng, var, filled = rng_for("weights", name), variance_inputs(m), 0
    for t in m.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.data_type)
        values = rng.normal(0.0, WEIGHT_STD, size=tuple(t.dims))
        if t.name in var:
            values = 1.0 + np.abs(values)
        del t.external_data[:]
        t.data_location = onnx.TensorProto.DEFAULT
        t.raw_data = values.astype(dtype).tobytes()
        filled += 1
    return m, filled


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in inits]


def make_inputs(model, shapes, seed_parts):
    """Feeds for one run: floats N(0, 1), integers 1, booleans true (ids, masks and flags that
    every model of the corpora accepts at any size)."""
    rng, feeds = rng_for("inputs", *seed_parts), {}
    for vi in graph_inputs(model):
        shape = tuple(shapes[vi.name])
        dtype = onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
        if dtype.kind == "f":
            feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind == "b":
            feeds[vi.name] = np.ones(shape, dtype=bool)
        else:
            feeds[vi.name] = np.ones(shape, dtype=dtype)
    return feeds


# ---------------------------------------------------------------- processors

def run_processor(processor, model):
    """The processed ModelProto (in this process; process() calls it in a child)."""
    if processor == "slim":
        import onnxslim
        return onnxslim.slim(model)
    if processor == "sim":
        import onnxsim
        simplified, _ = onnxsim.simplify(model)
        return simplified
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    return SymbolicShapeInference.infer_shapes(model, auto_merge=(processor == "ssi-merge"))


def processor_versions():
    import onnxslim
    import onnxsim
    return {"slim": "onnxslim " + onnxslim.__version__, "sim": "onnxsim " + onnxsim.__version__,
            "ssi": "onnxruntime " + ort.__version__, "ssi-merge": "onnxruntime " + ort.__version__}


def _child(processor, model, out_path, err_path, run=run_processor):
    """Body of the child process: quiet (the tools print progress and tables), and every
    failure written down for the parent. `run(processor, model)` does the processing
    (run_processor here; export_fused.py passes its own)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        with contextlib.redirect_stdout(None):
            result = run(processor, model)
        if not isinstance(result, onnx.ModelProto):
            raise TypeError("returned %s, not a model" % type(result).__name__)
        with open(out_path, "wb") as f:
            f.write(result.SerializeToString())
    except BaseException as err:  # noqa: B902  (anything the tool raises is the record)
        frames = traceback.extract_tb(err.__traceback__)
        where = "%s:%d" % (os.path.basename(frames[-1].filename), frames[-1].lineno) if frames else ""
        with open(err_path, "w") as f:
            f.write("%s: %s (%s)" % (type(err).__name__, one_line(str(err), 300), where))
    os._exit(0)


def process(processor, model, work, run=run_processor, timeout=TIMEOUT):
    """(processed model, None) or (None, why not): the processor runs in a forked child with a
    timeout, so that a hang or a crash in a tool's native code is recorded, not fatal."""
    out_path, err_path = os.path.join(work, "out.onnx"), os.path.join(work, "err.txt")
    for p in (out_path, err_path):
        if os.path.exists(p):
            os.remove(p)
    child = multiprocessing.get_context("fork").Process(
        target=_child, args=(processor, model, out_path, err_path, run))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
        return None, "timed out after %d s" % timeout
    if os.path.exists(err_path):
        with open(err_path) as f:
            return None, f.read()
    if not os.path.exists(out_path):
        return None, "the process died (exit code %s)" % child.exitcode
    return onnx.load(out_path), None


# ---------------------------------------------------------------- running

def one_line(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def session(model_bytes):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 4
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model_bytes, opts, providers=["CPUExecutionProvider"])


def run_all(model, feeds_list):
    """Per run: ("ok", [arrays]) or ("error", message). A model ORT cannot load fails every run."""
    try:
        sess = session(model.SerializeToString())
    except Exception as err:
        return [("error", one_line(err, 400))] * len(feeds_list)
    out = []
    for feeds in feeds_list:
        try:
            out.append(("ok", [np.asarray(a) for a in sess.run(None, feeds)]))
        except Exception as err:
            out.append(("error", one_line(err, 400)))
    return out


def shapes_of(outcome):
    return [list(a.shape) for a in outcome[1]]


def as_list(shapes, names):
    """Output shapes as a list in graph output order (tests/corpus/exports stores a dict)."""
    return [shapes[n] for n in names] if isinstance(shapes, dict) else shapes


def same_behaviour(src, got):
    """(same, max |difference| or None): both fail, or equal shapes and close values."""
    if src[0] == "error" or got[0] == "error":
        return src[0] == got[0], None
    shapes, close, diff = compare_outputs(src[1], got[1])
    return shapes and close, (float("%.4g" % diff) if shapes and not close else None)


def rerun_note(label_run, src, names):
    """Where this rerun of the source (other ORT, no ORT optimizations, filled weights) does
    not reproduce its label's ORT outcome, say how; None where it does."""
    if "ort" in label_run:
        want = as_list(label_run["ort"], names)
        if src[0] == "error":
            return "source fails here: " + one_line(src[1], 200)
        return None if shapes_of(src) == want else "source gives %s, its label %s" % (shapes_of(src), want)
    if "ort_error" in label_run and src[0] == "ok":
        return "source runs here (%s), its label says ORT fails" % shapes_of(src)
    return None


def static_conflict(model, shapes):
    """The first input axis `model` declares static with another size than `shapes` gives it
    (as torch2_runs.static_conflict): a processor may fix a dynamic axis to its export size."""
    for vi in graph_inputs(model):
        want = shapes.get(vi.name)
        dims = vi.type.tensor_type.shape.dim
        if want is None or len(dims) != len(want):
            continue
        for k, (d, w) in enumerate(zip(dims, want)):
            if d.HasField("dim_value") and d.dim_value != w:
                return "%s axis %d is declared %d" % (vi.name, k, d.dim_value)
    return None


def label_run(source_run, names, src, got, processed):
    """The processed model's row for one run of its source's label."""
    row = {"inputs": source_run["inputs"]}
    if "eager" in source_run:
        row["eager"] = as_list(source_run["eager"], names)
    if "eager_error" in source_run:
        row["eager_error"] = source_run["eager_error"]
    if got[0] == "ok":
        row["ort"] = shapes_of(got)
    else:
        row["ort_error"] = got[1]
    same, diff = same_behaviour(src, got)
    declared = static_conflict(processed, source_run["inputs"])
    if declared:
        # The processed file itself says it does not take these sizes (a processor may fix a
        # dynamic axis to its export size): not counted, as in the source labels.
        row["verdict"] = "declared static (not counted)"
        row["declared"] = declared
    elif same:
        row["verdict"] = source_run["verdict"]
        if "declared" in source_run:
            row["declared"] = source_run["declared"]
    else:
        row["verdict"] = DIFFERS
        if got[0] == "ok" and "eager" in row:
            row["eager_shapes_match"] = row["ort"] == row["eager"]
    if row["verdict"] != source_run["verdict"]:
        row["source_verdict"] = source_run["verdict"]
    if not same:
        row["source_ort"] = shapes_of(src) if src[0] == "ok" else src[1]
        if diff is not None:
            row["max_abs_diff"] = diff
    note = rerun_note(source_run, src, names)
    if note:
        row["source_rerun"] = note
    return row


def uncertain(row):
    """A difference from a source that was itself wrong here, toward eager's shapes: the
    processed model may be right (its values are not compared with eager's here)."""
    return (row["verdict"] == DIFFERS and row["source_verdict"] in BREAKING
            and row.get("eager_shapes_match", False))


def breaking(row):
    """A run that counts and is not ok: a breaking verdict carried from the source, or a
    difference from the source where eager ran, unless uncertain()."""
    if row["verdict"] == DIFFERS:
        return row["source_verdict"] not in NOT_COUNTED and not uncertain(row)
    return row["verdict"] in BREAKING


# ---------------------------------------------------------------- labels

def input_axes(model):
    return {vi.name: {str(k): (d.dim_param if d.HasField("dim_param") else d.dim_value)
                      for k, d in enumerate(vi.type.tensor_type.shape.dim)}
            for vi in graph_inputs(model)}


def specialized(processed, source_axes):
    """Input axes the source declares dynamic and the processed file static: '<input>[axis]=size'."""
    out = []
    for name, axes in input_axes(processed).items():
        for k, d in axes.items():
            if isinstance(d, int) and isinstance(source_axes.get(name, {}).get(k), str):
                out.append("%s[%s]=%d" % (name, k, d))
    return out


def graph_counts(model):
    g = model.graph
    return {"nodes": len(g.node), "initializers": len(g.initializer), "value_info": len(g.value_info)}


def make_label(source, processor, version, processed, rows, external):
    lab = source["label"]
    axes = input_axes(processed)
    entry = {
        "source": "%s/%s" % (source["corpus"], source["file"]),
        "module": module_of(source["file"]),
        "processor": processor,
        "processor_version": version,
        "held_out": held_out(source["file"]),
        "exporter": lab.get("exporter", "torchscript (torch 1.13)"),
        "export_inputs": lab["export_inputs"],
        "dynamic_axes": axes,
        "dynamic_axes_changed": axes != lab["dynamic_axes"] or None,
        "specialized": specialized(processed, lab["dynamic_axes"]) or None,
        "graph_only": {"external_data": external} if external else None,
        "declared_outputs": {o.name: dims_of(o) for o in processed.graph.output},
        "graph": graph_counts(processed),
        "runs": rows,
        "breaks": any(breaking(r) for r in rows),
        "uncertain": any(uncertain(r) for r in rows) or None,
        "source_breaks": lab["breaks"],
    }
    return {k: v for k, v in entry.items() if v is not None}


def store(model, out_dir, name, source_graph_only):
    """Writes the committed copy (graph-only when the source was, or when large); returns the
    external data location or None."""
    data = model.SerializeToString()
    external = None
    if source_graph_only or len(data) > INLINE_LIMIT:
        external = name[:-len(".onnx")] + ".weights.bin"
        data = graph_only(model, external).SerializeToString()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)
    return external


# ---------------------------------------------------------------- main

def source_runs(source, model, names, max_runs=MAX_RUNS):
    """(label runs, feeds, source outcomes) for the first `max_runs` runs of the source label
    (every run when None)."""
    runs = source["label"]["runs"][:max_runs]
    feeds = [make_inputs(model, r["inputs"], (source["file"], k)) for k, r in enumerate(runs)]
    return runs, feeds, run_all(model, feeds)


def do_source(source, procs, a, work, versions, labels, not_processed):
    path = os.path.join(source["dir"], source["file"])
    model, filled = fill_external(onnx.load(path, load_external_data=False), source["file"])
    names = [o.name for o in model.graph.output]
    runs, feeds, src = source_runs(source, model, names)
    stem = source["file"][:-len(".onnx")]
    for proc in procs:
        name = "%s.%s.onnx" % (stem, proc)
        start = time.time()
        processed, why = process(proc, model, work)
        if processed is None:
            not_processed[name] = {"source": "%s/%s" % (source["corpus"], source["file"]),
                                   "processor": proc, "why": why}
            print("  %-48s not processed: %s" % (name, one_line(why, 120)), flush=True)
            continue
        got = run_all(processed, feeds)
        rows = [label_run(r, names, s, g, processed) for r, s, g in zip(runs, src, got)]
        external = store(processed, a.out, name, bool(source["label"].get("graph_only")))
        labels[name] = make_label(source, proc, versions[proc], processed, rows, external)
        print("  %-48s %s%s (%.1f s)" % (name, "breaks" if labels[name]["breaks"] else "healthy",
                                          ", filled %d" % filled if filled else "",
                                          time.time() - start), flush=True)


def versions_of():
    import onnxslim
    import onnxsim
    import sympy
    return {"onnx": onnx.__version__, "onnxruntime": ort.__version__, "onnxslim": onnxslim.__version__,
            "onnxsim": onnxsim.__version__, "sympy": sympy.__version__, "numpy": np.__version__}


def counts(labels, not_processed):
    out = {"models": len(labels), "breaks": sum(v["breaks"] for v in labels.values()),
           "not_processed": len(not_processed), "by_processor": {}}
    out["healthy"] = out["models"] - out["breaks"]
    for proc in PROCESSORS:
        mine = [v for v in labels.values() if v["processor"] == proc]
        out["by_processor"][proc] = {
            "models": len(mine), "breaks": sum(v["breaks"] for v in mine),
            "held_out": sum(v["held_out"] for v in mine),
            "differs_from_source": sum(any(r["verdict"] == DIFFERS for r in v["runs"]) for v in mine),
            "uncertain": sum(bool(v.get("uncertain")) for v in mine),
            "specialized": sum(bool(v.get("specialized")) for v in mine),
            "not_processed": sum(1 for v in not_processed.values() if v["processor"] == proc)}
    out["modules"] = len({v["module"] for v in labels.values()})
    out["held_out_modules"] = len({v["module"] for v in labels.values() if v["held_out"]})
    return out


def document(labels, not_processed, a):
    return {
        "about": "Ground truth for the models in this directory, written by tools/models/export_post.py "
                 "(never edited by hand): the exports of tests/corpus/torch2 and tests/corpus/exports after "
                 "onnxslim (slim), onnx-simplifier (sim) and ONNX Runtime's symbolic shape inference "
                 "(ssi, ssi-merge with auto_merge). Each run of the source's label (at most %d) ran on ONNX "
                 "Runtime (CPU, 1 thread, no graph optimizations) for the processed model and its source "
                 "with the same weights (the source's, or random ones seeded by its name where the source "
                 "is graph-only) and inputs. Where the processed file declares an input axis static with "
                 "another size than a run gives it: 'declared static (not counted)'. Otherwise, where both "
                 "agree (both fail, or the same shapes and values within the corpus tolerance), the source's "
                 "verdict against eager PyTorch is carried; where not, 'differs from source', breaking where "
                 "eager ran, unless the source was wrong there and the processed model gives eager's shapes "
                 "('uncertain': values not checked against eager). 'breaks': some run that counts is not ok. "
                 "'held_out': sha256(module) %% 3 == 0." % MAX_RUNS,
        "versions": versions_of(),
        "selection": {"small modules": "every whole file: slim, ssi-merge; sim and ssi where "
                                        "sha256('sim-ssi:' + module) %% %d == 0" % a.subset_every,
                      "networks": "graph-only files, smallest first, slim only, sources up to %d bytes"
                                  % a.network_bytes},
        "counts": counts(labels, not_processed),
        "not_processed": dict(sorted(not_processed.items())),
        "models": dict(sorted(labels.items())),
    }


def corpus_parser(doc, corpus):
    """The arguments every corpus script of this directory takes: --root (the repository) and
    --out (the corpus directory, tests/corpus/`corpus` by default); `doc` is its docstring."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--root", default=os.path.normpath(os.path.join(HERE, "..", "..")),
                   help="repository root (default: this script's)")
    p.add_argument("--out", default=os.path.join("tests", "corpus", corpus))
    return p


def parse_args():
    p = corpus_parser(__doc__, "post")
    p.add_argument("--network-bytes", type=int, default=3 * 10**6,
                   help="networks: total size of the source files taken, smallest first")
    p.add_argument("--subset-every", type=int, default=1,
                   help="small modules through sim and ssi: one module in N (by hash)")
    p.add_argument("--only", nargs="+", help="these source files only (written to a temporary directory)")
    return p.parse_args()


def fixed_hash_seed():
    """Re-runs this script with PYTHONHASHSEED=0 unless it already has it: onnxslim's results
    depend on set and dict order of strings (which of two equal dim symbols it keeps, which of
    two expressions of one dim it writes into value_info), so without a fixed seed the same
    input gives other files from run to run."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


def main():
    fixed_hash_seed()
    a = parse_args()
    a.out = os.path.join(a.root, a.out) if not os.path.isabs(a.out) else a.out
    plan = select(load_sources(a.root), a.network_bytes, a.subset_every)
    if a.only:
        plan = [(s, p) for s, p in plan if s["file"] in a.only]
        a.out = tempfile.mkdtemp()
    os.makedirs(a.out, exist_ok=True)
    for f in os.listdir(a.out):
        if f.endswith(".onnx") and not a.only:
            os.remove(os.path.join(a.out, f))
    versions = dict(processor_versions())
    labels, not_processed, start = {}, {}, time.time()
    with tempfile.TemporaryDirectory() as work:
        for k, (source, procs) in enumerate(plan):
            print("[%d/%d] %s/%s" % (k + 1, len(plan), source["corpus"], source["file"]), flush=True)
            do_source(source, procs, a, work, versions, labels, not_processed)
    doc = document(labels, not_processed, a)
    print(json.dumps(doc["counts"], indent=1))
    print("%.0f s" % (time.time() - start))
    write_json(os.path.join(a.out, "ground_truth.json"), doc)
    if a.only:
        print("written to", a.out)
        return 0
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out))
    print("%s: %d bytes" % (a.out, total))
    if total > DIR_BUDGET:
        print("PROBLEM: over the budget of %d bytes" % DIR_BUDGET)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
