"""Shapes of every intermediate value of each corpus model, as ONNX Runtime computes them.

The linter's symbolic shape engine is tested value by value against these (tests in C++), so
this records, for each model of a corpus directory and for a few sets of input sizes from its
labels, the shape ONNX Runtime gives every value a node of the main graph produces.  It needs
only numpy, onnx and onnxruntime (tools/models/requirements-ort.txt), not torch.

How a model is run, and why:
  * Graph-only models keep their large float initializers as external data whose file is not
    shipped.  Those get deterministic random data of the declared dtype and dims (floats
    N(0, 0.02), seeded from the file name), in memory only.  Shapes do not depend on weights,
    except through data-dependent ops (NonZero, NMS, TopK of a computed k, ...).
  * Every value a main-graph node produces is made a graph output without a declared type, so
    ONNX Runtime returns it; subgraph values (If/Loop bodies) are not.  Only tensors are
    recorded (ORT returns sequences and optionals too, but they are not tensor values); values
    ORT would refuse as outputs are dropped, found by trying.
  * No graph optimizations (ORT_DISABLE_ALL), 1 thread, CPU: the graph runs as written.
  * Inputs: floats N(0, 1), integers all ones (ids, masks), booleans all True, seeded from the
    file name and the run's position.
  * Size sets: the export size, then the label's runs in order (those the file declares static
    with another size are left out: ONNX Runtime refuses them before running any node), at most
    --max-sizes.  The file is committed, so when it would be over --budget-mib the --tiers
    reductions apply in turn: large models keep fewer size sets (kept_indices says which).

Usage (from the repository root):
  python tools/models/intermediate_shapes.py tests/corpus/torch2 tests/corpus/exports tests/corpus/torch
writes DIR/intermediate_shapes.json for each corpus directory and prints a summary.
"""

import argparse
import json
import os
import re
import sys
import time
import zlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

ort.set_default_logger_severity(3)  # shape-mismatch warnings on exposed values are expected

LABEL_FILES = ("ground_truth.json", "labels.json")
OUT_NAME = "intermediate_shapes.json"
WEIGHT_STD = 0.02
ERROR_CHARS = 300


# ---------------------------------------------------------------- labels and size sets

def load_labels(corpus):
    """The corpus labels' `models` dict, from whichever label file the directory has."""
    for name in LABEL_FILES:
        path = os.path.join(corpus, name)
        if os.path.exists(path):
            with open(path) as f:
                return name, json.load(f)["models"]
    raise SystemExit("%s: no label file (%s)" % (corpus, ", ".join(LABEL_FILES)))


def declared_static(run):
    """Runs the file itself refuses (an axis declared static with another size)."""
    return run.get("verdict", "").startswith("declared static")


def size_sets(label, max_sizes):
    """The label runs to repeat: the export size first, then the runs in order, deduplicated.

    Returns (selected runs, runs left out as declared static).  A run is the label's run dict
    (for the cross-check); the export size, if no run has it, is a dict with only `inputs`."""
    export = label.get("export_inputs") or label["runs"][0]["inputs"]
    runs = list(label["runs"])
    if not any(r["inputs"] == export for r in runs):
        runs.insert(0, {"inputs": export})
    runs.sort(key=lambda r: r["inputs"] != export)  # stable: export first, others in order
    chosen, static, seen = [], [], set()
    for r in runs:
        key = json.dumps(r["inputs"], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        if declared_static(r):
            static.append(r)
        elif len(chosen) < max_sizes:
            chosen.append(r)
    return chosen, static


# ---------------------------------------------------------------- the model in memory

def name_seed(*parts):
    """A seed that is the same on every machine and Python (unlike hash())."""
    return [zlib.crc32(str(p).encode()) for p in parts]


def random_array(tensor, rng):
    """Data for an external initializer: its dtype and dims, values that look like weights."""
    dtype = helper.tensor_dtype_to_np_dtype(tensor.data_type)
    dims = tuple(tensor.dims)
    if np.issubdtype(dtype, np.floating):
        return (rng.standard_normal(dims, dtype=np.float32) * WEIGHT_STD).astype(dtype)
    if dtype == np.bool_:
        return rng.random(dims) < 0.5
    return rng.integers(0, 4, size=dims).astype(dtype)


def fill_external(model, seed):
    """Replaces every initializer stored as external data by random data; returns how many."""
    rng = np.random.default_rng(seed)
    n = 0
    for t in model.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        t.CopyFrom(numpy_helper.from_array(random_array(t, rng), t.name))
        n += 1
    return n


def node_values(graph):
    """Names of the values the main graph's nodes produce, in node order (subgraphs not)."""
    seen, out = set(), []
    for node in graph.node:
        for name in node.output:
            if name and name not in seen:
                seen.add(name)
                out.append(name)
    return out


def exposed_model(model, names):
    """A copy of `model` with `names` added as untyped graph outputs (existing ones kept)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    m.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names if n not in have)
    return m


def session_options():
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return opts


def try_session(model):
    """(session, None) or (None, error text)."""
    try:
        sess = ort.InferenceSession(model.SerializeToString(), session_options(),
                                    providers=["CPUExecutionProvider"])
        return sess, None
    except Exception as err:  # ORT raises its own exception types, all to be recorded
        return None, first_line(err)


def tensor_typed(model, names):
    """The names onnx shape inference does not type as something other than a tensor."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # inference may refuse graphs ORT runs; then keep every name
        return list(names)
    kinds = {vi.name: vi.type.WhichOneof("value") for vi in inferred.graph.value_info}
    return [n for n in names if kinds.get(n) in (None, "tensor_type")]


def accepted(model, names):
    """The names ORT accepts as outputs, found by halving the list until each part loads."""
    if not names:
        return []
    if try_session(exposed_model(model, names))[0] is not None:
        return list(names)
    if len(names) == 1:
        return []
    mid = len(names) // 2
    return accepted(model, names[:mid]) + accepted(model, names[mid:])


def build_session(model):
    """A session returning every node value it can, and the values it returns.

    Returns (session or None, exposed names, dropped count, session error or None).  Values
    ORT refuses as outputs are dropped: first those shape inference types as non-tensors,
    then, if it still refuses, by halving the rest."""
    names = node_values(model.graph)
    sess, _ = try_session(exposed_model(model, names))
    if sess is not None:
        return sess, names, 0, None
    base, base_err = try_session(model)
    if base is None:
        return None, [], 0, base_err  # the model itself does not load
    kept = tensor_typed(model, names)
    sess, _ = try_session(exposed_model(model, kept))
    if sess is None:
        kept = accepted(model, kept)
        sess, _ = try_session(exposed_model(model, kept))
    if sess is None:  # each part loads but not all together: the declared outputs only
        sess, kept = base, []
    return sess, kept, len(names) - len(kept), None


# ---------------------------------------------------------------- running

def first_line(err):
    """The first line of an error message, trimmed to ERROR_CHARS characters."""
    text = str(err).strip()
    line = text.splitlines()[0].strip() if text else type(err).__name__
    return line if len(line) <= ERROR_CHARS else line[:ERROR_CHARS - 3] + "..."


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in inits]


def static_dims(vi):
    """The input's dims if all are static, else None."""
    dims = vi.type.tensor_type.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


def input_array(vi, shape, rng):
    """Floats N(0, 1); integers all ones (valid ids, masks, lengths); booleans all True."""
    dtype = helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    return np.ones(shape, dtype=dtype)


def make_feeds(model, shapes, seed):
    """(feeds, None) for the run's input shapes, or (None, reason) when one cannot be made."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for vi in graph_inputs(model):
        shape = shapes.get(vi.name, static_dims(vi))
        if shape is None:
            return None, "input %s has no size in the run and dynamic dims" % vi.name
        feeds[vi.name] = input_array(vi, shape, rng)
    return feeds, None


def tensor_outputs(sess):
    """The session outputs that are tensors (ORT types such as 'tensor(float)'): sequences and
    optionals are not tensor values, even when ORT hands an optional back as an array."""
    return [o.name for o in sess.get_outputs() if o.type.startswith("tensor(")]


def run_shapes(sess, names, feeds):
    """{value: dims} of the tensors `names`, or the error's first line."""
    try:
        values = sess.run(names, feeds)
    except Exception as err:  # recorded: ORT failing at a size is ground truth too
        return None, first_line(err)
    return {n: list(v.shape) for n, v in zip(names, values, strict=True)}, None


def model_runs(model, sess, session_error, chosen, seed):
    """The recorded runs, the label runs they repeat (for the cross-check) and the runs skipped
    (with reasons)."""
    runs, used, skipped = [], [], []
    names = tensor_outputs(sess) if sess is not None else []
    for k, label_run in enumerate(chosen):
        shapes = label_run["inputs"]
        feeds, reason = make_feeds(model, shapes, name_seed(seed, k))
        if feeds is None:
            skipped.append({"inputs": shapes, "reason": reason})
            continue
        used.append(label_run)
        if sess is None:
            runs.append({"inputs": shapes, "error": session_error})
            continue
        got, err = run_shapes(sess, names, feeds)
        runs.append({"inputs": shapes, "error": err} if got is None else {"inputs": shapes, "shapes": got})
    return runs, used, skipped


def process(path, name, label, max_sizes):
    """One model: its record for the file, and what the summary needs."""
    model = onnx.load(path, load_external_data=False)
    filled = fill_external(model, name_seed(name, "weights"))
    sess, exposed, dropped, session_error = build_session(model)
    chosen, static = size_sets(label, max_sizes)
    runs, used, skipped = model_runs(model, sess, session_error, chosen, name)
    not_tensor = len(sess.get_outputs()) - len(tensor_outputs(sess)) if sess is not None else 0
    info = {"label_runs": used, "skipped": skipped, "declared_static": len(static),
            "filled": filled, "exposed": len(exposed), "dropped": dropped,
            "session_error": session_error, "not_tensor": not_tensor,
            "outputs": [o.name for o in model.graph.output]}
    return {"runs": runs}, info


# ---------------------------------------------------------------- cross-check with the labels

def label_outputs(label_run, outputs):
    """The label's ORT output shapes as {output: dims}, or None when it has none."""
    ort_shapes = label_run.get("ort")
    if ort_shapes is None:
        return None
    if isinstance(ort_shapes, dict):
        return ort_shapes
    return dict(zip(outputs, ort_shapes, strict=True))


COUNTS = ("error_known", "error_other_node", "error_new", "compared")
ORT_NODE = re.compile(r"running \w+ node\. Name:'([^']*)'")


def same_node(error, label_run):
    """Whether the error names the node the label's ORT error named (the labels of
    tests/corpus/exports come from an optimized session: 'fused NAME' is node NAME)."""
    want = label_run.get("ort_node", label_run.get("ort_fails_at"))
    m = ORT_NODE.search(error)
    if want is None or m is None:
        return True  # nothing to compare
    return m.group(1) == re.sub(r"^fused ", "", want)


def cross_check(name, record, info):
    """Disagreements between these runs and the label's ORT runs, as text lines, and counts.

    A run's final outputs must have the label's ORT output shapes; a run ORT fails must fail in
    the label too ('error_known', and at the same node, else 'error_other_node'), not have
    output shapes there ('error_new')."""
    problems, counts = [], dict.fromkeys(COUNTS, 0)
    for run, label_run in zip(record["runs"], info["label_runs"], strict=True):
        want = label_outputs(label_run, info["outputs"])
        known_error = "ort_error" in label_run or "ort_fails_at" in label_run
        if "error" in run:
            counts["error_known" if known_error else "error_new"] += 1
            if known_error and not same_node(run["error"], label_run):
                counts["error_other_node"] += 1
                problems.append("%s %s: ORT fails at another node than in the label: %s | %s"
                                % (name, run["inputs"], run["error"], label_run.get("ort_node")))
            if not known_error:
                problems.append("%s %s: ORT fails here (%s), label has outputs %s"
                                % (name, run["inputs"], run["error"], want))
            continue
        if known_error:
            problems.append("%s %s: ran, label says ORT fails (%s)"
                            % (name, run["inputs"], label_run.get("ort_error", label_run.get("ort_fails_at"))))
            continue
        if want is None:
            continue
        counts["compared"] += 1
        got = {o: run["shapes"].get(o) for o in want}
        if any(g is not None and g != want[o] for o, g in got.items()):
            problems.append("%s %s: outputs %s, label %s" % (name, run["inputs"], got, want))
    return problems, counts


# ---------------------------------------------------------------- the file

def axes_changed(inputs, export):
    """How many input axes have another size than at the export size."""
    return sum(a != b for name, dims in inputs.items()
               for a, b in zip(dims, export.get(name, []), strict=False))


def kept_indices(runs, n):
    """Which runs a reduced model keeps: the export size (runs[0]) and the other run ONNX
    Runtime completed that changes the most input axes (the earliest of those; the first other
    run if none completed), or for n == 1 only that run (the export size if no other run
    completed).  Other sizes, and most of all other spatial or sequence sizes besides the batch,
    test a shape engine more than the export size, where the graph's baked sizes all hold."""
    others = list(range(1, len(runs)))
    if not others:
        return [0]
    done = [k for k in others if "shapes" in runs[k]]
    export = runs[0]["inputs"]
    pick = max(done, key=lambda k: (axes_changed(runs[k]["inputs"], export), -k)) if done else others[0]
    if n == 1:
        return [pick] if done else [0]
    return [0, pick]


def reduce_runs(models, infos, over, keep):
    """Keeps `keep` size sets for models with more than `over` exposed values; returns names."""
    cut = []
    for name, rec in models.items():
        info = infos[name]
        if info["exposed"] <= over or len(rec["runs"]) <= keep:
            continue
        idx = kept_indices(rec["runs"], keep)
        rec["runs"] = [rec["runs"][k] for k in idx]
        info["label_runs"] = [info["label_runs"][k] for k in idx]
        cut.append(name)
    return cut


PICKED = ("the export size and the other run ONNX Runtime completed that changes the most input "
          "axes (the earliest of those)")


def about_text(command, max_sizes, tiers):
    """What the file holds and exactly how it was made; `tiers` are the reductions applied."""
    text = (
        "Shapes of every value produced by a node of each model's main graph (not subgraphs), as "
        "ONNX Runtime computes them; written by tools/models/intermediate_shapes.py, never edited "
        "by hand. Command (from the repository root): python %s. Session: "
        "graph_optimization_level ORT_DISABLE_ALL, 1 intra-op and 1 inter-op thread, "
        "CPUExecutionProvider; every node value of the main graph added as an untyped graph "
        "output; only tensor values are recorded (not sequences or optionals; a value ORT "
        "refused as an output would be left out, the script prints how many). Initializers "
        "stored as external data (graph-only models: their data file is not shipped) are "
        "replaced in memory by random data of their dtype and dims: floats N(0, %g) drawn as "
        "float32 (other dtypes: integers in [0, 4)), numpy default_rng([crc32(file name), "
        "crc32('weights')]) in initializer order. "
        "The weights are random: shapes do not depend on them except through data-dependent ops "
        "(NonZero, NMS, TopK or Range of computed values...). Inputs, in graph-input order: "
        "floats N(0, 1) from default_rng([crc32(file name), crc32(str(k))]), k the run's "
        "position among the size sets (0 = export size); integer inputs all ones; bool inputs "
        "all True. Size sets: the export size first, then the label's runs in order (those the "
        "file declares static with another size left out), at most %d. Per model 'runs': "
        "'inputs' (input shapes) and either 'shapes' (the dims of each value of the model's "
        "'values', in that order; null where the run did not return it) or 'error' (the first "
        "line of ONNX Runtime's error, at most %d characters)."
        % (command, WEIGHT_STD, max_sizes, ERROR_CHARS))
    for over, keep in tiers:
        text += (" To keep the file small, models with more than %d values keep only %s."
                 % (over, PICKED if keep == 2 else PICKED.replace("the export size and ", "")
                    + " (else the export size)"))
    return text


def compact(record):
    """The record as the file stores it: the value names once per model ('values', sorted), each
    run's 'shapes' a list in that order (null for a value that run did not return). The names
    were most of the bytes when every run repeated them."""
    names = sorted({v for run in record["runs"] for v in run.get("shapes", {})})
    runs = []
    for run in record["runs"]:
        if "shapes" in run:
            run = dict(run, shapes=[run["shapes"].get(v) for v in names])
        runs.append(run)
    return dict(record, values=names, runs=runs)


def document_text(about, models):
    """The JSON text: header on the first line, then one line per model, keys sorted."""
    head = json.dumps({"about": about, "versions": versions()}, sort_keys=True)
    lines = ["%s: %s" % (json.dumps(name),
                         json.dumps(compact(rec), sort_keys=True, separators=(",", ":")))
             for name, rec in sorted(models.items())]
    return head[:-1] + ', "models": {\n' + ",\n".join(lines) + "}}\n"


def versions():
    return {"numpy": np.__version__, "onnx": onnx.__version__, "onnxruntime": ort.__version__}


def fit_budget(models, infos, about, budget, tiers):
    """The file's text, with the reduction tiers applied in turn while it is over `budget`
    bytes; returns (text, {tier: models reduced})."""
    applied, cut = [], {}
    text = document_text(about(applied), models)
    for over, keep in tiers:
        if len(text.encode()) <= budget:
            break
        cut[(over, keep)] = reduce_runs(models, infos, over, keep)
        applied.append((over, keep))
        text = document_text(about(applied), models)
    return text, cut


# ---------------------------------------------------------------- main

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def command_line(args):
    """The command as run from the repository root, without this machine's paths."""
    parts = ["tools/models/intermediate_shapes.py"]
    parts += [os.path.relpath(os.path.abspath(c), ROOT) for c in args.corpora]
    if args.max_sizes != MAX_SIZES_DEFAULT:
        parts += ["--max-sizes", str(args.max_sizes)]
    if args.budget_mib != BUDGET_MIB_DEFAULT:
        parts += ["--budget-mib", "%g" % args.budget_mib]
    if args.tiers != TIERS_DEFAULT:
        parts += ["--tiers", args.tiers]
    return " ".join(parts)


def corpus_models(corpus, only):
    """(file name, label) of every labelled model of `corpus`, optionally only those named."""
    _, labels = load_labels(corpus)
    names = sorted(n for n in labels if os.path.exists(os.path.join(corpus, n)))
    missing = sorted(set(labels) - set(names))
    if missing:
        print("%s: %d labelled models have no file: %s" % (corpus, len(missing), ", ".join(missing)))
    return [(n, labels[n]) for n in names if not only or n in only]


def summarize(corpus, models, infos, check, size, seconds, cut):
    """Prints what the report needs: counts, reductions, file size, cross-check problems."""
    problems, counts = check
    runs = sum(len(r["runs"]) for r in models.values())
    errors = sum(1 for r in models.values() for x in r["runs"] if "error" in x)
    dropped = {n: i["dropped"] for n, i in infos.items() if i["dropped"]}
    skipped = [(n, s) for n, i in infos.items() for s in i["skipped"]]
    print("== %s: %d models, %d runs recorded, %d with an ORT error (%d failing in the label "
          "too, %d of them at another node; %d not); %d runs' outputs compared with the label's; "
          "%.1f s" % (corpus, len(models), runs, errors, counts["error_known"],
                      counts["error_other_node"], counts["error_new"], counts["compared"], seconds))
    print("   models with external initializers filled: %d; declared-static runs left out: %d"
          % (sum(1 for i in infos.values() if i["filled"]),
             sum(i["declared_static"] for i in infos.values())))
    print("   models with values dropped (ORT refused them as outputs): %d %s" % (len(dropped), dropped))
    not_tensor = {n: i["not_tensor"] for n, i in infos.items() if i["not_tensor"]}
    print("   models with non-tensor values (not recorded): %d %s" % (len(not_tensor), not_tensor))
    print("   models whose session failed: %d" % sum(1 for i in infos.values() if i["session_error"]))
    print("   runs skipped: %d %s" % (len(skipped), skipped))
    for (over, keep), names in cut.items():
        print("   over %d values, reduced to %d size set(s): %d models %s" % (over, keep, len(names), names))
    print("   file: %d bytes (%.2f MiB)" % (size, size / 2**20))
    print("   cross-check problems: %d" % len(problems))
    for p in problems:
        print("     " + p)


def cross_check_all(models, infos):
    problems, counts = [], dict.fromkeys(COUNTS, 0)
    for name in sorted(models):
        p, c = cross_check(name, models[name], infos[name])
        problems += p
        for k in counts:
            counts[k] += c[k]
    return problems, counts


def run_corpus(corpus, args):
    start = time.time()
    models, infos = {}, {}
    for name, label in corpus_models(corpus, args.only):
        t0 = time.time()
        models[name], infos[name] = process(os.path.join(corpus, name), name, label, args.max_sizes)
        if args.verbose:
            print("  %s: %d values, %d runs, %.1f s" % (name, infos[name]["exposed"],
                                                       len(models[name]["runs"]), time.time() - t0))
            sys.stdout.flush()
    command = command_line(args)
    text, cut = fit_budget(models, infos, lambda tiers: about_text(command, args.max_sizes, tiers),
                           args.budget_mib * 2**20, parse_tiers(args.tiers))
    if not args.only or args.out:
        with open(args.out or os.path.join(corpus, OUT_NAME), "w") as f:
            f.write(text)
    summarize(corpus, models, infos, cross_check_all(models, infos), len(text.encode()),
              time.time() - start, cut)
    if len(text.encode()) > args.budget_mib * 2**20:
        print("   WARNING: over the budget of %g MiB after every reduction tier" % args.budget_mib)


MAX_SIZES_DEFAULT = 4
BUDGET_MIB_DEFAULT = 4.5
TIERS_DEFAULT = "300:2,600:1"


def parse_tiers(text):
    """'300:2,600:1' -> [(300, 2), (600, 1)]: over N values keep K size sets."""
    return [tuple(int(x) for x in part.split(":")) for part in text.split(",") if part]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="+", help="corpus directories (with ground_truth.json)")
    ap.add_argument("--max-sizes", type=int, default=MAX_SIZES_DEFAULT,
                    help="size sets per model (default %(default)s)")
    ap.add_argument("--budget-mib", type=float, default=BUDGET_MIB_DEFAULT,
                    help="apply the reduction tiers while a file is over this (default %(default)s)")
    ap.add_argument("--tiers", default=TIERS_DEFAULT,
                    help="reductions, in order: OVER:KEEP keeps KEEP size sets of models with "
                         "more than OVER values (default %(default)s)")
    ap.add_argument("--only", nargs="*", help="only these model files (file not written)")
    ap.add_argument("--out", help="write here instead (one corpus only)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per model")
    args = ap.parse_args()
    if args.out and len(args.corpora) != 1:
        ap.error("--out takes one corpus")
    for corpus in args.corpora:
        run_corpus(os.path.normpath(corpus), args)


if __name__ == "__main__":
    main()
