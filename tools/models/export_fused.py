"""The fused corpus, tests/corpus/fused: labelled exports after ONNX Runtime's transformer
optimizer, labelled by running them.

Users who deploy a transformer on ONNX Runtime run `onnxruntime.transformers.optimizer.
optimize_model` on their export (ORT's own export scripts for BERT, GPT-2, Llama, Phi, T5 and
Whisper do): it first lets an ONNX Runtime session rewrite the graph at a basic level (constant
folding, redundant nodes; extended for T5), then fuses subgraphs into com.microsoft contrib ops
(Attention, MultiHeadAttention, SkipLayerNormalization, BiasGelu, FastGelu,
EmbedLayerNormalization, SimplifiedLayerNormalization, RotaryEmbedding, GroupQueryAttention,
...). The linter meets ops and graphs no exporter writes. This script builds those graphs from
the labelled corpora tests/corpus/torch2 (`.dynamo.onnx` and `.ts.onnx`), tests/corpus/exports,
tests/corpus/library, tests/corpus/third and tests/corpus/pipes:

  fused      optimize_model(path, model_type, num_heads=0, hidden_size=0, use_gpu=False), the
             model type's default opt_level; model_type by the module's family (`model_type_of`):
             'swin' for Swin, 'clip' for CLIP, 'phi' for Phi, 'gpt2' for decoder-only language
             models (GPT-2, GPT-Neo, OPT, and Llama, Mistral, Qwen2, Gemma as ORT's Llama export
             script does), 'bart' for BART, mBART, Pegasus, Marian and Whisper, 't5' for T5 and
             LongT5, 'vit' for ViT, DeiT, BEiT and DINOv2, 'bert' for the rest

A source is selected when its graph (subgraphs included) holds a pattern the optimizer's fusions
look for (`patterns`): LayerNormalization or its ReduceMean-Pow-Sqrt decomposition (RMSNorm
too), GELU (Erf, Gelu, or Tanh with Pow), or a Softmax fed by a MatMul through at most four
elementwise ops (attention). The selected sources are taken smallest file first (then corpus and
name) while the stored outputs add up to at most --model-bytes (default 6.5 MB), so that the
directory stays under export_post.DIR_BUDGET with its intermediate_shapes.json (checked); the
sources left out, the largest networks, are listed in the document's `selection`. An output is kept only when the optimizer changed the graph (a contrib op
appears or the main graph's node count changed); the rest, and every optimizer failure or
timeout (the optimizer runs in a child process, export_post.process), are listed in
`not_processed` with the reason.

Each output is `<source stem>.fused.onnx` for tests/corpus/torch2 and tests/corpus/exports
(hf_bert.ts.fused.onnx, mha.fused.onnx: their stems never collide, the torch 2.x ones ending in
.dynamo or .ts), and `<corpus>_<source stem>.fused.onnx` for the other three
(library_hf_vit.dynamo.fused.onnx, third_optimum_bart.encoder_model.fused.onnx,
pipes_optimum_albert.model.slim.fused.onnx), whose stems can collide with torch2's (hf_vit.dynamo
is in both torch2 and library). Each label says its source (`source`, relative to tests/corpus)
and the source's corpus (`corpus`), `model_type`, `opt_level` and the contrib ops it holds.

Weights, storing and labels are export_post.py's, by its own functions: graph-only float
initializers are filled with deterministic random weights seeded by the source's file name, the
filled model is written to a file and optimized from there (given a ModelProto, optimize_model
hands every initializer to ONNX Runtime as external data, and ORT's shape inference then fails
on any Reshape or Slice whose constant operand it needs), the output is stored graph-only when
its source was or when it is over 64 KB. Every run of the source's label (all of them, in the
label's order) runs on ONNX Runtime (CPU, 1 thread, ORT_DISABLE_ALL) for the fused model and for
its source with the same weights and inputs, and gets export_post's verdict: 'declared static
(not counted)' where the fused file declares an input axis static with another size, the
source's verdict where both behave the same (both fail, or the same shapes and values within the
corpus tolerance), 'differs from source' otherwise, breaking where eager ran unless 'uncertain'.
`breaks`: some counted run is not ok.

Held out: for tests/corpus/torch2 and tests/corpus/exports sources, export_post.held_out
(sha256(module) % 3 == 0, by module); every tests/corpus/pipes source (that corpus is held out
whole); for tests/corpus/library and tests/corpus/third sources, their own label's `held_out`
(the hash rule if it had none).

Run from the repository root with the venv of requirements-torch2.txt (onnxruntime 1.31.1, onnx
1.23.2 and numpy 2.4.6 as requirements-post.txt pins them, and torch, which optimize_model
imports when opt_level > 0); no model hub is used:

  python tools/models/export_fused.py
  python tools/models/intermediate_shapes.py tests/corpus/fused

It re-runs itself with PYTHONHASHSEED=0 (export_post.fixed_hash_seed); the files are the same
from run to run.
"""

import collections
import functools
import json
import logging
import os
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_post as post  # noqa: E402
from model_files import write_json  # noqa: E402

SOURCES = (("torch2", os.path.join("tests", "corpus", "torch2")),
           ("exports", os.path.join("tests", "corpus", "exports")),
           ("library", os.path.join("tests", "corpus", "library")),
           ("third", os.path.join("tests", "corpus", "third")),
           ("pipes", os.path.join("tests", "corpus", "pipes")))
PREFIXED = ("library", "third", "pipes")   # output names start with the corpus
PROCESSOR = "fused"
CONTRIB = "com.microsoft"
TIMEOUT = 300               # seconds the optimizer may take on one model
MODEL_BYTES = 65 * 10**5    # default --model-bytes: the stored .onnx files together

# (model_type, the module-name words that choose it); first match wins, else 'bert'
MODEL_TYPES = (
    ("swin", ("swin",)),
    ("clip", ("clip",)),
    ("phi", ("phi",)),
    ("gpt2", ("gpt2", "gpt", "neo", "opt", "llama", "mistral", "qwen2", "gemma")),
    ("bart", ("bart", "mbart", "pegasus", "marian", "whisper")),
    ("t5", ("t5", "longt5")),
    ("vit", ("vit", "deit", "beit", "dinov2")),
)
ELEMENTWISE = ("Add", "Mul", "Div", "Sub", "Where", "Cast")


# ---------------------------------------------------------------- selection

def model_type_of(file):
    """The optimizer's model_type for a source, by the words of its module name
    (timm_vit_tiny_patch16_224 -> vit; timm_mobilevit_xxs -> bert: 'mobilevit' is no word of
    the table)."""
    words = set(post.module_of(file).split("_"))
    for model_type, names in MODEL_TYPES:
        if words & set(names):
            return model_type
    return "bert"


def graphs_of(graph):
    """The graph and every subgraph in it (If branches, Loop bodies), depth first."""
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from graphs_of(attr.g)
            for g in attr.graphs:
                yield from graphs_of(g)


def patterns(model):
    """The fusable patterns in the model, sorted: 'layer norm' (LayerNormalization, or ReduceMean
    with Pow and Sqrt), 'gelu' (Erf, Gelu, or Tanh with Pow), 'attention' (a Softmax fed by a
    MatMul through at most four elementwise ops)."""
    found = set()
    for g in graphs_of(model.graph):
        ops = collections.Counter(n.op_type for n in g.node)
        if ops["LayerNormalization"] or (ops["ReduceMean"] and ops["Pow"] and ops["Sqrt"]):
            found.add("layer norm")
        if ops["Erf"] or ops["Gelu"] or (ops["Tanh"] and ops["Pow"]):
            found.add("gelu")
        producer = {o: n for n in g.node for o in n.output}
        for n in g.node:
            if n.op_type != "Softmax":
                continue
            x, steps = producer.get(n.input[0]), 0
            while x is not None and x.op_type in ELEMENTWISE and steps < 4:
                x, steps = producer.get(x.input[0]), steps + 1
            if x is not None and x.op_type in ("MatMul", "Einsum"):
                found.add("attention")
    return sorted(found)


def out_name(source):
    stem = source["file"][:-len(".onnx")]
    prefix = source["corpus"] + "_" if source["corpus"] in PREFIXED else ""
    return "%s%s.%s.onnx" % (prefix, stem, PROCESSOR)


def load_sources(root):
    """Every source file of the five corpora (torch2: `.dynamo.onnx` and `.ts.onnx` only), with
    its label, size and fusable patterns, smallest first (then corpus and name)."""
    out = []
    for corpus, rel in SOURCES:
        with open(os.path.join(root, rel, "ground_truth.json")) as f:
            labels = json.load(f)["models"]
        for file, label in sorted(labels.items()):
            if corpus == "torch2" and not file.endswith((".dynamo.onnx", ".ts.onnx")):
                continue
            path = os.path.join(root, rel, file)
            found = patterns(onnx.load(path, load_external_data=False))
            out.append({"corpus": corpus, "dir": os.path.join(root, rel), "file": file,
                        "label": label, "size": os.path.getsize(path), "patterns": found})
    order = {c: k for k, (c, _) in enumerate(SOURCES)}
    return sorted(out, key=lambda s: (s["size"], order[s["corpus"]], s["file"]))


def held_out_of(source):
    if source["corpus"] == "pipes":
        return True
    if source["corpus"] in ("library", "third") and "held_out" in source["label"]:
        return bool(source["label"]["held_out"])
    return post.held_out(source["file"])


# ---------------------------------------------------------------- the optimizer

def default_opt_level(model_type):
    from onnxruntime.transformers.optimizer import MODEL_TYPES as ORT_TYPES
    return ORT_TYPES[model_type][2]


def run_optimizer(model_type, work, processor, model):
    """optimize_model on `model` written to a file (in the child process of export_post.process).
    The optimizer logs through `logging`; export_post's child silences it."""
    from onnxruntime.transformers.optimizer import optimize_model
    logging.disable(logging.CRITICAL)
    path = os.path.join(work, "source.onnx")
    onnx.save(model, path)
    optimized = optimize_model(path, model_type=model_type, num_heads=0, hidden_size=0,
                               use_gpu=False)
    return optimized.model


def contrib_ops(model):
    """{contrib op type: nodes} over the graph and its subgraphs."""
    ops = collections.Counter(n.op_type for g in graphs_of(model.graph) for n in g.node
                              if n.domain == CONTRIB)
    return dict(sorted(ops.items()))


def unchanged(source_model, fused):
    """Why the optimizer did nothing worth keeping, or None: no contrib op and the same number of
    main-graph nodes."""
    if contrib_ops(fused) or len(fused.graph.node) != len(source_model.graph.node):
        return None
    return "unchanged: no contrib op, %d nodes as the source" % len(fused.graph.node)


# ---------------------------------------------------------------- one source

def do_source(source, a, work, version, labels, not_processed):
    """Optimizes and labels one source; returns the stored bytes (0 when nothing is stored)."""
    name = out_name(source)
    model_type = model_type_of(source["file"])
    opt_level = default_opt_level(model_type)
    path = os.path.join(source["dir"], source["file"])
    model, filled = post.fill_external(onnx.load(path, load_external_data=False), source["file"])
    start = time.time()
    run = functools.partial(run_optimizer, model_type, work)
    fused, why = post.process(PROCESSOR, model, work, run=run, timeout=a.timeout)
    if fused is not None:
        why = unchanged(model, fused)
    if why is not None:
        not_processed[name] = {"source": "%s/%s" % (source["corpus"], source["file"]),
                               "corpus": source["corpus"], "processor": PROCESSOR,
                               "model_type": model_type, "opt_level": opt_level, "why": why}
        print("  %-60s not processed: %s" % (name, post.one_line(why, 120)), flush=True)
        return 0
    names = [o.name for o in model.graph.output]
    # Every run: a fused file is its source's computation, and a label that stops short of the
    # source's breaking run would call the same model healthy (hf_swin.ts breaks at its sixth).
    runs, _, src = post.source_runs(source, model, names, max_runs=None)
    got = post.run_all(fused, [post.make_inputs(model, r["inputs"], (source["file"], k))
                               for k, r in enumerate(runs)])
    rows = [post.label_run(r, names, s, g, fused) for r, s, g in zip(runs, src, got)]
    external = post.store(fused, a.out, name, bool(source["label"].get("graph_only")))
    label = post.make_label(source, PROCESSOR, version, fused, rows, external)
    label["held_out"] = held_out_of(source)
    label.update({"corpus": source["corpus"], "model_type": model_type, "opt_level": opt_level,
                  "patterns": source["patterns"], "contrib_ops": contrib_ops(fused) or None,
                  "source_nodes": len(model.graph.node)})
    labels[name] = {k: v for k, v in label.items() if v is not None}
    size = os.path.getsize(os.path.join(a.out, name))
    print("  %-60s %s, %s, %d -> %d nodes, %d bytes%s (%.1f s)"
          % (name, "breaks" if label["breaks"] else "healthy", model_type,
             len(model.graph.node), len(fused.graph.node), size,
             ", filled %d" % filled if filled else "", time.time() - start), flush=True)
    return size


# ---------------------------------------------------------------- the document

def tally(labels, not_processed, key):
    """Per value of `key` (a label field): models, breaking and healthy with the held-out ones
    apart, and what else the corpus says of them."""
    out = {}
    for value in sorted({v[key] for v in labels.values()} | {v[key] for v in not_processed.values()}):
        mine = [v for v in labels.values() if v[key] == value]
        row = {"models": len(mine), "breaks": sum(v["breaks"] for v in mine)}
        row["healthy"] = row["models"] - row["breaks"]
        for part, held in (("seen", False), ("held_out", True)):
            part_labels = [v for v in mine if v["held_out"] == held]
            row[part] = {"breaks": sum(v["breaks"] for v in part_labels),
                         "healthy": sum(not v["breaks"] for v in part_labels)}
        row["differs_from_source"] = sum(any(r["verdict"] == post.DIFFERS for r in v["runs"])
                                         for v in mine)
        row["uncertain"] = sum(bool(v.get("uncertain")) for v in mine)
        row["specialized"] = sum(bool(v.get("specialized")) for v in mine)
        row["not_processed"] = sum(1 for v in not_processed.values() if v[key] == value)
        out[value] = row
    return out


def counts(labels, not_processed, left_out):
    tagged = ({k: dict(v, all="all") for k, v in labels.items()},
              {k: dict(v, all="all") for k, v in not_processed.items()})
    out = tally(*tagged, "all").get("all", {"models": 0})
    out["left_out"] = len(left_out)
    out["by_corpus"] = tally(labels, not_processed, "corpus")
    out["by_model_type"] = tally(labels, not_processed, "model_type")
    ops = collections.Counter()
    for v in labels.values():
        ops.update(v.get("contrib_ops", {}))
    out["contrib_ops"] = {"nodes": dict(sorted(ops.items())),
                          "models": dict(sorted(collections.Counter(
                              op for v in labels.values() for op in v.get("contrib_ops", {})).items()))}
    out["modules"] = len({(v["corpus"], v["module"]) for v in labels.values()})
    return out


def versions_of():
    import torch
    return {"onnx": onnx.__version__, "onnxruntime": ort.__version__, "numpy": np.__version__,
            "torch": torch.__version__}


def document(labels, not_processed, selection):
    return {
        "about": "Ground truth for the models in this directory, written by tools/models/export_fused.py "
                 "(never edited by hand): sources of tests/corpus/torch2, exports, library, third and pipes "
                 "after ONNX Runtime's transformer optimizer (onnxruntime.transformers.optimizer."
                 "optimize_model, model_type by the source's family, num_heads=0, hidden_size=0, the model "
                 "type's default opt_level, use_gpu=False; 'model_type', 'opt_level' and 'contrib_ops' in "
                 "each label). Each run of the source's label (every one) ran on ONNX Runtime (CPU, 1 "
                 "thread, no graph optimizations) for the fused model and its source with the same weights "
                 "(the source's, or random ones seeded by its name where the source is graph-only) and "
                 "inputs, and is labelled as tools/models/export_post.py labels tests/corpus/post: where "
                 "the fused file declares an input axis static with another size than a run gives it: "
                 "'declared static (not counted)'; where both agree (both fail, or the same shapes and "
                 "values within the corpus tolerance), the source's verdict against eager PyTorch; where "
                 "not, 'differs from source', breaking where eager ran, unless the source was wrong there "
                 "and the fused model gives eager's shapes ('uncertain'). 'breaks': some run that counts "
                 "is not ok. 'held_out': torch2 and exports sources sha256(module) %% 3 == 0; pipes "
                 "sources all; library and third sources their label's.",
        "versions": versions_of(),
        "selection": selection,
        "counts": counts(labels, not_processed, selection["left_out"]),
        "not_processed": dict(sorted(not_processed.items())),
        "models": dict(sorted(labels.items())),
    }


# ---------------------------------------------------------------- main

def parse_args():
    p = post.corpus_parser(__doc__, "fused")
    p.add_argument("--model-bytes", type=int, default=MODEL_BYTES,
                   help="the stored .onnx files together at most this; sources smallest first")
    p.add_argument("--timeout", type=int, default=TIMEOUT, help="seconds per optimizer run")
    p.add_argument("--only", nargs="+", help="these source files only (corpus/file; written to a "
                                              "temporary directory unless --out is given)")
    return p.parse_args()


def main():
    post.fixed_hash_seed()
    a = parse_args()
    # Imported once here rather than in every forked child (optimize_model imports torch).
    import onnxruntime.transformers.optimizer  # noqa: F401
    import torch  # noqa: F401
    out_given = "--out" in sys.argv
    a.out = os.path.join(a.root, a.out) if not os.path.isabs(a.out) else a.out
    sources = load_sources(a.root)
    plan = [s for s in sources if s["patterns"]]
    if a.only:
        plan = [s for s in plan if "%s/%s" % (s["corpus"], s["file"]) in a.only]
        if not out_given:
            a.out = tempfile.mkdtemp()
    os.makedirs(a.out, exist_ok=True)
    for f in os.listdir(a.out):
        if f.endswith(".onnx"):
            os.remove(os.path.join(a.out, f))
    version = "onnxruntime %s (transformers optimizer)" % ort.__version__
    labels, not_processed, left_out, used, start = {}, {}, [], 0, time.time()
    with tempfile.TemporaryDirectory() as work:
        for k, source in enumerate(plan):
            if left_out:  # the budget is spent: the rest (all larger) are left out too
                left_out.append("%s/%s" % (source["corpus"], source["file"]))
                continue
            print("[%d/%d] %s/%s" % (k + 1, len(plan), source["corpus"], source["file"]), flush=True)
            size = do_source(source, a, work, version, labels, not_processed)
            if used + size > a.model_bytes:  # over the budget: take this one back, stop here
                name = out_name(source)
                os.remove(os.path.join(a.out, name))
                del labels[name]
                left_out.append("%s/%s" % (source["corpus"], source["file"]))
                print("  over --model-bytes: left out, with every larger source", flush=True)
                continue
            used += size
    selection = {
        "rule": "sources whose graph (subgraphs included) holds LayerNormalization or ReduceMean with "
                "Pow and Sqrt, Erf or Gelu or Tanh with Pow, or a Softmax fed by a MatMul through at "
                "most four elementwise ops; smallest source file first (then corpus, name) while the "
                "stored outputs add up to at most %d bytes" % a.model_bytes,
        "sources": len(sources), "with_patterns": len(plan), "left_out": left_out,
        "model_type": "by the module's words: " + "; ".join(
            "%s: %s" % (t, ", ".join(w)) for t, w in MODEL_TYPES) + "; else bert"}
    doc = document(labels, not_processed, selection)
    c = doc["counts"]
    print(json.dumps({k: c[k] for k in ("models", "breaks", "healthy", "seen", "held_out",
                                        "not_processed", "left_out")}))
    print("%.0f s" % (time.time() - start))
    write_json(os.path.join(a.out, "ground_truth.json"), doc)
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out))
    print("%s: %d bytes" % (os.path.relpath(a.out, a.root) if not a.only else a.out, total))
    if total > post.DIR_BUDGET:
        print("PROBLEM: over the budget of %d bytes" % post.DIR_BUDGET)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
