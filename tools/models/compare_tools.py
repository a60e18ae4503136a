"""Runs other ONNX shape tools and onnx-shapelint side by side on the models that break.

Every corpus directory holds a ground_truth.json (written by export_corpus.py or
export_torch2.py) whose "models" entries say, per file, whether the model breaks at another
size of its dynamic axes ("breaks") and the sizes it was exported at ("export_inputs").  Each
tool below runs on each breaking model (--include-healthy: on every model) in a subprocess of
its own, with a timeout and a memory limit, so a crash or hang is recorded rather than fatal:

  onnx          onnx.checker.check_model(path, full_check=True), then
                onnx.shape_inference.infer_shapes(strict_mode=True, data_prop=True)
  ort-sym       onnxruntime.tools.symbolic_shape_infer, auto_merge=False
  ort-sym-merge the same with auto_merge=True
  polygraphy    polygraphy check lint MODEL -o REPORT (it runs ONNX Runtime once, every
                dynamic dim set to 1)
  polygraphy-shapes  the same with --input-shapes: on each axis the smallest size of the
                labelled runs where eager PyTorch ran (a runtime test at one valid size)
  osi           onnx-shape-inference's infer_symbolic_shapes, policy "refine" (its default)
  osi-strict    the same with policy "strict"
  shapelint     onnx-shapelint --isolated --format json MODEL
  shapelint-dims  the same with --export-dims from the labels

Each (tool, model) is classified as "reports" (an error about a shape contradiction or
mismatched dims), "warns" (a non-fatal message about shapes), "silent" (passes), or "fails"
(crash, timeout, unsupported op, or an error unrelated to shapes).  The classification is by
the text of the message (see classify_* and reconcile); every message is kept in
results.json so it can be checked by hand, and --reclassify applies changed rules to it.

Graph-only models (external weights that are not shipped) get a zero-filled sparse weight
file in a scratch directory, so that the tools that load weights can run; shapes do not
depend on weight values.  With --decoder MODEL, each tool is also timed on that model
(median of --timing-runs runs when a run takes under a minute, else one run).

Run it (from the repo root):

    python3 -m venv VENV
    VENV/bin/pip install -r tools/models/requirements-compare.txt
    VENV/bin/python tools/models/compare_tools.py --linter build/onnx-shapelint --out DIR \\
        [NAME=]CORPUS_DIR [...] [--decoder DECODER.onnx] [--jobs 2]

It writes DIR/results.json (every run) and DIR/table.md (the tables, in Markdown).  A model
file found byte for byte under the same name in an earlier CORPUS_DIR runs once.
"""

import argparse
import concurrent.futures
import hashlib
import io
import json
import logging
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout

from compare_verdicts import classify_record, reconcile
from compare_report import CLASSES, TOOL_LABELS, TOOLS, versions, write_table


# ---------------------------------------------------------------------------------------------
# Workers: each runs one Python tool in this process and writes a JSON result to a file.


def dims_of(value_info):
    """The dims of an onnx ValueInfoProto: ints, dim_param strings, or None when unknown."""
    if not value_info.type.HasField("tensor_type"):
        return None
    tensor_type = value_info.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    dims = []
    for dim in tensor_type.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(dim.dim_value)
        elif dim.HasField("dim_param"):
            dims.append(dim.dim_param)
        else:
            dims.append(None)
    return dims


def io_dims(graph):
    """{name: dims} of the graph's inputs and outputs, from an onnx GraphProto."""
    return {"inputs": {v.name: dims_of(v) for v in graph.input},
            "outputs": {v.name: dims_of(v) for v in graph.output}}


def literal_rewrites(before, after):
    """Declared symbolic dims of graph inputs/outputs that a tool replaced by a literal."""
    rewrites = []
    for kind in ("inputs", "outputs"):
        for name, old in before[kind].items():
            new = after[kind].get(name)
            if not old or not new or len(old) != len(new):
                continue
            for axis, (o, n) in enumerate(zip(old, new)):
                if isinstance(o, str) and isinstance(n, int):
                    rewrites.append(f"{kind[:-1]} {name}[{axis}]: {o} -> {n}")
    return rewrites


class LogCapture(logging.Handler):
    """Keeps the log records at WARNING and above (what a user of the tool sees), and the
    debug record where ORT's symbolic shape inference says on which node it stopped."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []
        self.stopped = []

    def emit(self, record):
        text = record.getMessage()
        if record.levelno >= logging.WARNING:
            self.messages.append(f"{record.name}: {text}")
        elif text.startswith("Stopping at incomplete shape inference"):
            self.stopped.append(text)


def work_onnx(path, result):
    import onnx
    result["stage"] = "check_model(full_check=True)"
    onnx.checker.check_model(path, full_check=True)
    result["stage"] = "infer_shapes(strict_mode=True, data_prop=True)"
    model = onnx.load(path, load_external_data=False)
    onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)


def work_ort_sym(path, result, auto_merge):
    import onnx
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    # It reads the few weights it wants the values of relative to the working directory,
    # which for a model with external data is the scratch copy's (see with_weights).
    model = onnx.load(path, load_external_data=False)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        os.chdir(os.path.dirname(path))
    before = io_dims(model.graph)
    out = SymbolicShapeInference.infer_shapes(model, auto_merge=auto_merge)
    result["returned_none"] = out is None
    if out is not None:
        result["rewrites"] = literal_rewrites(before, io_dims(out.graph))


def ir_dims(shape):
    if shape is None:
        return None
    return [d if isinstance(d, int) else getattr(d, "value", None) for d in shape.dims]


def work_osi(path, result, policy):
    import onnx_ir as ir
    from onnx_shape_inference import infer_symbolic_shapes
    model = ir.load(path)

    def snapshot():
        return {"inputs": {v.name: ir_dims(v.shape) for v in model.graph.inputs},
                "outputs": {v.name: ir_dims(v.shape) for v in model.graph.outputs}}

    before = snapshot()
    infer_symbolic_shapes(model, policy=policy)
    result["rewrites"] = literal_rewrites(before, snapshot())


WORKERS = {
    "onnx": work_onnx,
    "ort-sym": lambda path, result: work_ort_sym(path, result, auto_merge=False),
    "ort-sym-merge": lambda path, result: work_ort_sym(path, result, auto_merge=True),
    "osi": lambda path, result: work_osi(path, result, policy="refine"),
    "osi-strict": lambda path, result: work_osi(path, result, policy="strict"),
}


def describe_exception(e):
    """Type, message and raising line of an exception, with the exception that caused it."""
    frames = traceback.extract_tb(e.__traceback__)
    described = {"type": type(e).__name__, "message": str(e),
                 "where": f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}"
                 if frames else ""}
    if e.__cause__ is not None:
        described["cause"] = describe_exception(e.__cause__)
    return described


def run_worker(tool, path, result_path):
    """Runs one Python tool on one model here; writes what happened to result_path."""
    capture = LogCapture()
    logging.getLogger().addHandler(capture)
    logging.getLogger("onnxruntime.tools.symbolic_shape_infer").setLevel(logging.DEBUG)
    out, err = io.StringIO(), io.StringIO()
    result = {"exception": None}
    with warnings.catch_warnings(record=True) as caught, redirect_stdout(out), \
            redirect_stderr(err):
        warnings.simplefilter("always")
        try:
            WORKERS[tool](path, result)
        except BaseException as e:  # the point is to record whatever the tool raises
            result["exception"] = describe_exception(e)
    result["log"] = capture.messages + [f"{w.category.__name__}: {w.message}" for w in caught]
    result["stopped_at"] = capture.stopped[:3]
    result["stdout"] = out.getvalue()[-4000:]
    result["stderr"] = err.getvalue()[-4000:]
    with open(result_path, "w") as f:
        json.dump(result, f)


# ---------------------------------------------------------------------------------------------
# Running tools in subprocesses.


def memory_limiter(limit_bytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def run_process(cmd, cwd, timeout, mem_limit):
    """Runs cmd; returns rc, output, wall time, peak RSS (KiB, via /usr/bin/time), timeout."""
    time_file = os.path.join(cwd, "time.txt")
    timed = os.path.exists("/usr/bin/time")
    full = (["/usr/bin/time", "-f", "%M", "-o", time_file] if timed else []) + cmd
    start = time.monotonic()
    proc = subprocess.Popen(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace", start_new_session=True,
                            preexec_fn=memory_limiter(mem_limit) if mem_limit else None)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        stdout, stderr = proc.communicate()
        timed_out = True
    seconds = time.monotonic() - start
    rss = None
    if timed and os.path.exists(time_file):
        with open(time_file) as f:
            lines = [line for line in f.read().split("\n") if line.strip().isdigit()]
        rss = int(lines[-1]) if lines else None
    return {"rc": proc.returncode, "stdout": stdout, "stderr": stderr,
            "seconds": round(seconds, 3), "peak_rss_kib": rss, "timed_out": timed_out}


def tool_command(tool, model, ctx, workdir):
    """The command that runs tool on the model case, and where its report goes."""
    if tool in WORKERS:
        result = os.path.join(workdir, "result.json")
        return [ctx.python, os.path.abspath(__file__), "--worker", tool, model.path,
                "--worker-result", result], result
    if tool.startswith("polygraphy"):
        report = os.path.join(workdir, "lint.json")
        cmd = [ctx.polygraphy, "check", "lint", model.path, "-o", report]
        if tool == "polygraphy-shapes":
            cmd += ["--input-shapes", *lint_shapes(model.label)]
        return cmd, report
    cmd = [ctx.linter, "--isolated", "--format", "json"]
    if tool == "shapelint-dims":
        dims = export_dims(model.label)
        if dims:
            cmd += ["--export-dims", dims]
    return cmd + [model.path], None


def export_dims(label):
    """--export-dims text from a label's export_inputs: x=2x3x224x224,lengths=2."""
    parts = []
    for name, dims in (label.get("export_inputs") or {}).items():
        if dims:
            parts.append(f"{name}=" + "x".join(str(d) for d in dims))
    return ",".join(parts)


def lint_shapes(label):
    """polygraphy --input-shapes: on each axis, the smallest size that a labelled run where
    eager PyTorch ran gave it (a size the model is meant to take, unlike polygraphy's 1 on
    a channel axis that a weight fixes, or on an image side)."""
    runs = [r["inputs"] for r in label.get("runs", []) if "eager_error" not in r]
    shapes = []
    for name, dims in (label.get("export_inputs") or {}).items():
        sizes = [min([dims[axis]] + [r[name][axis] for r in runs if name in r])
                 for axis in range(len(dims))]
        shapes.append(f"{name}:[" + ",".join(str(d) for d in sizes) + "]")
    return shapes


def run_tool(tool, model, ctx):
    """Runs one tool on one model in a scratch directory; returns its record, classified."""
    if tool.startswith("polygraphy") and ctx.mem_limit and model.weight_bytes > ctx.mem_limit:
        return not_run(tool, f"not run: it runs the model on ONNX Runtime, which needs its "
                             f"{model.weight_bytes / 2**30:.0f} GiB of weights in memory")
    with tempfile.TemporaryDirectory(dir=ctx.scratch) as workdir:
        cmd, report_path = tool_command(tool, model, ctx, workdir)
        proc = run_process(cmd, workdir, ctx.timeout, ctx.mem_limit)
        report = read_json(report_path) if report_path else None
    if tool.startswith("shapelint"):
        report = shapelint_summary(read_json_text(proc["stdout"]))
    record = {"tool": tool, "seconds": proc["seconds"], "peak_rss_kib": proc["peak_rss_kib"],
              "rc": proc["rc"], "timed_out": proc["timed_out"],
              "stderr_tail": proc["stderr"][-1000:], "report": report}
    record.update(classify_record(record))
    return record


def not_run(tool, why):
    return {"tool": tool, "seconds": 0.0, "peak_rss_kib": None, "rc": None,
            "timed_out": False, "stderr_tail": "", "report": None, "verdict": "fails",
            "message": why, "detail": {"not_run": True}}


def read_json(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return read_json_text(f.read())


def read_json_text(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def shapelint_summary(report):
    """The part of onnx-shapelint's JSON report that results.json keeps."""
    if report is None:
        return None
    model = report["models"][0]
    return {"error": model.get("error"),
            "findings": [{"rule": f["rule"], "severity": f["severity"],
                          "node": f["node"]["name"], "message": f["message"]}
                         for f in model["findings"]]}


# ---------------------------------------------------------------------------------------------
# Models.


class Model:
    def __init__(self, corpus, name, path, label):
        self.corpus, self.name, self.path, self.label = corpus, name, path, label
        self.weight_bytes = 0


def load_corpus(argument, include_healthy):
    """The models of one corpus, NAME=DIR or DIR (named by its base name), from the
    ground_truth.json in DIR."""
    name, sep, directory = argument.partition("=")
    if not sep or "/" in name:
        name, directory = os.path.basename(os.path.normpath(argument)), argument
    with open(os.path.join(directory, "ground_truth.json")) as f:
        labels = json.load(f)["models"]
    models = []
    for file_name in sorted(labels):
        label = labels[file_name]
        if label.get("breaks") or include_healthy:
            path = os.path.abspath(os.path.join(directory, file_name))
            models.append(Model(name, file_name, path, label))
    return models


def load_corpora(arguments, include_healthy, only):
    """The models of every corpus; a file of an earlier corpus with the same name and bytes
    is taken once, under the first (for a corpus that later joined another)."""
    seen, models = {}, []
    for argument in arguments:
        for model in load_corpus(argument, include_healthy):
            if only is not None and model.name not in only:
                continue
            with open(model.path, "rb") as f:
                key = (model.name, hashlib.sha256(f.read()).hexdigest())
            if seen.get(key, model.corpus) != model.corpus:
                print(f"{model.corpus}/{model.name}: the same file as in {seen[key]}, "
                      "taken once", file=sys.stderr)
                continue
            seen[key] = model.corpus
            models.append(model)
    return models


def external_extents(path):
    """{location: bytes needed} of the external data that a model references."""
    import onnx
    from onnx.external_data_helper import ExternalDataInfo, _get_all_tensors
    model = onnx.load(path, load_external_data=False)
    extents = {}
    for tensor in _get_all_tensors(model):
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            info = ExternalDataInfo(tensor)
            end = (info.offset or 0) + (info.length or 0)
            extents[info.location] = max(extents.get(info.location, 0), end)
    return extents


def with_weights(model, scratch):
    """A copy of a model with external data in a scratch directory, next to its weight files
    (linked) or, where they are missing, zero-filled sparse stand-ins of the declared size.
    Returns the path to use, a note, and the bytes of weights declared."""
    extents = external_extents(model.path)
    if not extents:
        return model.path, None, 0
    directory = os.path.dirname(model.path)
    copy_dir = tempfile.mkdtemp(prefix="weights-", dir=scratch)
    copy = os.path.join(copy_dir, os.path.basename(model.path))
    shutil.copyfile(model.path, copy)
    missing = 0
    for loc, size in extents.items():
        source = os.path.join(directory, loc)
        if os.path.exists(source):
            os.symlink(os.path.abspath(source), os.path.join(copy_dir, loc))
        else:
            with open(os.path.join(copy_dir, loc), "wb") as f:
                f.truncate(size)  # sparse: no disk used, reads as zeros
            missing += size
    total = sum(extents.values())
    return copy, f"zero weights ({missing / 2**30:.1f} GiB)" if missing else None, total


def run_model(model, tools, ctx):
    """Every tool on one model; returns its results record."""
    original = model.path
    model.path, weights_note, model.weight_bytes = with_weights(model, ctx.scratch)
    try:
        runs = reconcile({tool: run_tool(tool, model, ctx) for tool in tools})
    finally:
        if model.path != original:
            shutil.rmtree(os.path.dirname(model.path), ignore_errors=True)
        model.path = original
    return {"corpus": model.corpus, "model": model.name,
            "exporter": model.label.get("exporter", "torchscript"),
            "breaks": bool(model.label.get("breaks")), "weights": weights_note,
            "blamed": blamed_nodes(model.label), "runs": runs}


def blamed_nodes(label):
    """The nodes the labels blame: 'responsible' (by hand) or 'suspects' (found by reading
    the constants that hold an export size)."""
    return sorted(set(label.get("responsible") or []) | set(label.get("suspects") or []))


# ---------------------------------------------------------------------------------------------
# Timing on one large model.


def time_tool(tool, model, ctx, runs):
    """Wall time and peak RSS of one tool; median of `runs` when a run is under a minute."""
    records = [run_tool(tool, model, ctx)]
    if records[0]["detail"].get("not_run"):
        runs = 1
    while len(records) < runs and records[0]["seconds"] < 60 and not records[0]["timed_out"]:
        records.append(run_tool(tool, model, ctx))
    seconds = [r["seconds"] for r in records]
    rss = [r["peak_rss_kib"] for r in records if r["peak_rss_kib"]]
    return {"tool": tool, "verdict": records[0]["verdict"], "message": records[0]["message"],
            "runs": seconds, "median_seconds": statistics.median(seconds),
            "peak_rss_kib": max(rss) if rss else None, "timed_out": records[0]["timed_out"]}


def time_decoder(path, tools, ctx, runs):
    model = Model("timing", os.path.basename(path), os.path.abspath(path), {})
    model.path, note, model.weight_bytes = with_weights(model, ctx.scratch)
    ctx_timing = argparse.Namespace(**vars(ctx))
    ctx_timing.timeout = ctx.timing_timeout
    load_before = os.getloadavg()[0]
    try:
        results = []
        for tool in tools:
            if tool in ("shapelint-dims", "polygraphy-shapes"):
                continue  # the decoder has no labels: no export sizes
            print(f"timing {tool} on {model.name}", file=sys.stderr, flush=True)
            results.append(time_tool(tool, model, ctx_timing, runs))
    finally:
        if model.weight_bytes:
            shutil.rmtree(os.path.dirname(model.path), ignore_errors=True)
    return {"model": os.path.basename(path), "weights": note, "nodes": count_nodes(path),
            "tools": results, "load_average": [load_before, os.getloadavg()[0]]}


def count_nodes(path):
    import onnx
    return len(onnx.load(path, load_external_data=False).graph.node)


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", metavar="CORPUS_DIR",
                    help="directories holding ground_truth.json and the models, each "
                         "DIR or NAME=DIR (NAME heads its column; default: DIR's base name)")
    ap.add_argument("--linter", help="the onnx-shapelint binary")
    ap.add_argument("--out", help="directory for results.json and table.md")
    ap.add_argument("--tools", default=",".join(TOOLS),
                    help=f"comma-separated subset of {','.join(TOOLS)}")
    ap.add_argument("--include-healthy", action="store_true",
                    help="run on the healthy models too (counted apart in results.json)")
    ap.add_argument("--only", nargs="*", default=None, help="only these model file names")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run (default 300)")
    ap.add_argument("--mem-limit-gb", type=float, default=12,
                    help="address-space limit of each run (default 12 GiB; 0: none)")
    ap.add_argument("--jobs", type=int, default=1, help="models run at once (default 1)")
    ap.add_argument("--decoder", help="a large model to time every tool on")
    ap.add_argument("--timing-tools", default=",".join(TOOLS),
                    help="the tools to time on --decoder (default: all)")
    ap.add_argument("--timing-runs", type=int, default=3)
    ap.add_argument("--timing-timeout", type=float, default=1800)
    ap.add_argument("--polygraphy", help="the polygraphy CLI (default: next to this Python)")
    ap.add_argument("--reuse", metavar="RESULTS_JSON",
                    help="take the runs of the tools not in --tools from this earlier "
                         "results.json (models matched by file name)")
    ap.add_argument("--reclassify", metavar="RESULTS_JSON",
                    help="run nothing: classify the runs of an earlier results.json again "
                         "and write --out from it")
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--worker-result", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker or (args.reclassify and args.out):
        return args
    if not (args.linter and args.out and (args.corpora or args.decoder)):
        ap.error("--linter, --out and CORPUS_DIR (or --decoder) are required")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.corpora[0], args.worker_result)
        return 0
    tools = [t for t in args.tools.split(",") if t]
    timing_tools = [t for t in args.timing_tools.split(",") if t]
    unknown = set(tools + timing_tools) - set(TOOLS)
    if unknown:
        sys.exit(f"unknown tools: {', '.join(sorted(unknown))}")
    os.makedirs(args.out, exist_ok=True)
    if args.reclassify:
        return reclassify(args.reclassify, args.out)
    ctx = argparse.Namespace(
        python=sys.executable, linter=os.path.abspath(args.linter),
        polygraphy=args.polygraphy or os.path.join(os.path.dirname(sys.executable), "polygraphy"),
        timeout=args.timeout, timing_timeout=args.timing_timeout,
        mem_limit=int(args.mem_limit_gb * (1 << 30)) or None,
        scratch=tempfile.mkdtemp(prefix="compare-tools-"))
    try:
        models = load_corpora(args.corpora, args.include_healthy, args.only)
        results = run_models(models, tools, ctx, args.jobs)
        if args.reuse:
            reuse_runs(results, args.reuse)
        timing = (time_decoder(args.decoder, timing_tools, ctx, args.timing_runs)
                  if args.decoder else None)
    finally:
        shutil.rmtree(ctx.scratch, ignore_errors=True)
    document = {"versions": versions(ctx), "tools": TOOL_LABELS, "classes": CLASSES,
                "timeout_seconds": args.timeout, "models": results, "timing": timing}
    write_outputs(args.out, document)
    return 0


def write_outputs(out, document):
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(document, f, indent=1)
    tools = [t for t in TOOLS if any(t in r["runs"] for r in document["models"])]
    write_table(os.path.join(out, "table.md"), document, tools)
    print(f"wrote {out}/results.json and table.md ({len(document['models'])} models)",
          file=sys.stderr)


def reuse_runs(results, path):
    """Adds to each model the runs an earlier results.json has of tools not run now."""
    with open(path) as f:
        earlier = {r["model"]: r["runs"] for r in json.load(f)["models"]}
    for record in results:
        runs = earlier.get(record["model"], {})
        merged = {t: record["runs"].get(t) or runs.get(t) for t in TOOLS
                  if t in record["runs"] or t in runs}
        for run in merged.values():
            run.update(classify_record(run))  # undoes an earlier reconcile
        record["runs"] = reconcile(merged)


def reclassify(path, out):
    """Classifies the runs of an earlier results.json again (after a change of the rules)."""
    with open(path) as f:
        document = json.load(f)
    for record in document["models"]:
        for run in record["runs"].values():
            run.update(classify_record(run))
        reconcile(record["runs"])
    write_outputs(out, document)
    return 0


def run_models(models, tools, ctx, jobs):
    results = [None] * len(models)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_model, m, tools, ctx): i for i, m in enumerate(models)}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            i = futures[future]
            results[i] = future.result()
            verdicts = " ".join(f"{t}={r['verdict'][0]}" for t, r in results[i]["runs"].items())
            print(f"[{done}/{len(models)}] {models[i].corpus}/{models[i].name}: {verdicts}",
                  file=sys.stderr, flush=True)
    return results


if __name__ == "__main__":
    sys.exit(main())
