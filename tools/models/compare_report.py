"""The tables of compare_tools.py: what each tool did with each model, as Markdown.

Reads the records compare_tools.py builds (one per model: its corpus, file, label and the run
of each tool, classified) and the timings on the large model; writes nothing itself but the
page write_table is given.
"""

import json
import subprocess

TOOLS = ["onnx", "ort-sym", "ort-sym-merge", "polygraphy", "polygraphy-shapes", "osi",
         "osi-strict", "shapelint", "shapelint-dims"]
TOOL_LABELS = {
    "onnx": "onnx checker + strict shape inference (data_prop)",
    "ort-sym": "ORT symbolic_shape_infer",
    "ort-sym-merge": "ORT symbolic_shape_infer, auto_merge",
    "polygraphy": "polygraphy check lint",
    "polygraphy-shapes": "polygraphy check lint --input-shapes",
    "osi": "onnx-shape-inference (refine)",
    "osi-strict": "onnx-shape-inference (strict)",
    "shapelint": "onnx-shapelint",
    "shapelint-dims": "onnx-shapelint --export-dims",
}
CLASSES = ["reports", "warns", "silent", "fails"]


def versions(ctx):
    """Versions of the tools compared, read from the interpreter that runs them."""
    code = ("import json, importlib.metadata as m; print(json.dumps({p: m.version(p) for p in "
            "['onnx', 'onnxruntime', 'polygraphy', 'onnx-shape-inference', 'onnx-ir', "
            "'sympy', 'numpy']}))")
    out = subprocess.run([ctx.python, "-c", code], capture_output=True, text=True)
    found = json.loads(out.stdout) if out.returncode == 0 else {}
    linter = subprocess.run([ctx.linter, "--version"], capture_output=True, text=True)
    found["onnx-shapelint"] = linter.stdout.strip().removeprefix("onnx-shapelint").strip()
    return found


def tally(results, corpus=None):
    counts = {tool: dict.fromkeys(CLASSES, 0) for tool in TOOLS}
    for record in results:
        if record["breaks"] and (corpus is None or record["corpus"] == corpus):
            for tool, run in record["runs"].items():
                counts[tool][run["verdict"]] += 1
    return counts


def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def corpora_of(results):
    return list(dict.fromkeys(r["corpus"] for r in results))


def summary_table(results, tools):
    corpora = corpora_of(results)
    lines = ["| tool | " + " | ".join(f"{c} (R/W/S/F)" for c in corpora) + " | all (R/W/S/F) |",
             "| --- |" + " --- |" * (len(corpora) + 1)]
    per = {c: tally(results, c) for c in corpora}
    total = tally(results)
    for tool in tools:
        cells = ["/".join(str(per[c][tool][k]) for k in CLASSES) for c in corpora]
        cells.append("/".join(str(total[tool][k]) for k in CLASSES))
        lines.append(f"| {TOOL_LABELS[tool]} | " + " | ".join(cells) + " |")
    return lines


def model_table(results, tools):
    short = {"reports": "R", "warns": "W", "silent": "-", "fails": "F"}
    lines = ["| corpus | model | " + " | ".join(tools) + " |",
             "| --- | --- |" + " --- |" * len(tools)]
    for r in results:
        if r["breaks"]:
            cells = [short[r["runs"][t]["verdict"]] for t in tools]
            lines.append(f"| {r['corpus']} | `{r['model']}` | " + " | ".join(cells) + " |")
    return lines


def caught_by_others(results, tools):
    """Breaking models some other tool reports and onnx-shapelint (either mode) does not."""
    lines = []
    for r in results:
        if not r["breaks"]:
            continue
        ours = {r["runs"][t]["verdict"] for t in ("shapelint", "shapelint-dims") if t in r["runs"]}
        if "reports" in ours:
            continue
        others = [t for t in tools if not t.startswith("shapelint")
                  and r["runs"][t]["verdict"] == "reports"]
        if others:
            first = r["runs"][others[0]]["message"]
            lines.append(f"- {r['corpus']}/`{r['model']}`: {', '.join(others)} "
                         f"(e.g. {others[0]}: \"{md_escape(first[:160])}\")")
    return lines or ["- none"]


def timing_table(timing):
    base = next((t for t in timing["tools"] if t["tool"] == "shapelint"), None)
    lines = [f"`{timing['model']}` ({timing['nodes']} nodes, weights declared external"
             f"{', ' + timing['weights'] if timing['weights'] else ''}), one tool at a time. "
             "Wall time of the whole subprocess, median of the runs (for the Python tools "
             "interpreter start, imports and loading the model are included), and its peak "
             "RSS; 1-minute load average before and after: "
             f"{', '.join(f'{x:.2f}' for x in timing['load_average'])}.", "",
             "| tool | result | wall time (s) | runs | × onnx-shapelint | peak RSS (MiB) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for t in timing["tools"]:
        if t["message"].startswith("not run"):
            lines.append(f"| {TOOL_LABELS[t['tool']]} | {md_escape(t['message'])} | | | | |")
            continue
        ratio = ""
        if base and base["median_seconds"] and not t["timed_out"]:
            x = t["median_seconds"] / base["median_seconds"]
            ratio = f"{x:.0f}×" if x >= 10 else f"{x:.1f}×"
        rss = f"{t['peak_rss_kib'] / 1024:.0f}" if t["peak_rss_kib"] else ""
        result = "timeout" if t["timed_out"] else t["verdict"]
        if t["verdict"] == "fails" and not t["timed_out"]:
            result += f": {md_escape(t['message'][:80])}"
        lines.append(f"| {TOOL_LABELS[t['tool']]} | {result} | {t['median_seconds']:.2f} | "
                     f"{len(t['runs'])} | {ratio} | {rss} |")
    return lines


def methodology(document, results):
    counts = ", ".join(f"{c} {sum(1 for r in results if r['breaks'] and r['corpus'] == c)}"
                       for c in corpora_of(results))
    versions_text = ", ".join(f"{k} {v}" for k, v in document["versions"].items())
    return (
        f"Every tool ran on every breaking model ({counts}), each run in a subprocess of its "
        f"own with a {document['timeout_seconds']:.0f} s timeout, with {versions_text}. "
        "A run **reports** the break (R) when it raises an error about a shape contradiction "
        "or mismatched dims, **warns** (W) when it only prints a message about shapes, is "
        "**silent** (S) when it passes, and **fails** (F) when it crashes, times out, or stops "
        "for a reason other than a shape contradiction: an op, expression or onnx API it does "
        "not support, or ORT's `Incomplete symbolic shape inference`, which names no dims. "
        "The verdict is read from the message (`tools/models/compare_tools.py`; every message "
        "is in its `results.json`): an R says the tool complained about shapes in a model "
        "that breaks, not that it named the baked node. Graph-only models ran with zero "
        "weights of the declared sizes. polygraphy runs the model once on ONNX Runtime, at "
        "every dynamic dim 1 by default; its error counts as R only where polygraphy with "
        "`--input-shapes` (on each axis the smallest size of the labelled runs where eager "
        "PyTorch ran) fails at the same node, since at 1 many models cannot run at all "
        "(a channel axis that a weight fixes, an image side below a kernel). That second "
        "polygraphy run is a runtime test at a valid size, not a static check. "
        "onnx-shapelint counts as R on an error finding, W on a warning only (notes, "
        "SL004, are not counted).")


def write_table(path, document, tools):
    results, timing = document["models"], document["timing"]
    lines = [
        "### Other shape tools on the same models", "",
        methodology(document, results), "",
        "Breaking models per corpus, as reports/warns/silent/fails:", "",
        *summary_table(results, tools), "",
        "Breaking models that another tool reports and onnx-shapelint (either mode) does not:",
        "", *caught_by_others(results, tools), "",
    ]
    stops = ort_stops(results)
    if stops:
        lines += stops + [""]
    rewrites = rewrite_lines(results, tools)
    if rewrites:
        lines += ["Declared symbolic dims of graph inputs or outputs that a tool rewrote to a "
                  "literal without a message (breaking models):", "", *rewrites, ""]
    lines += ["Per model (R reports, W warns, - silent, F fails):", "",
              *model_table(results, tools), ""]
    if timing:
        lines += ["Timing:", "", *timing_table(timing), ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def ort_stops(results):
    """Where ORT's symbolic inference stopped (Incomplete...) at a node the labels blame."""
    hits = []
    for r in results:
        run = r["runs"].get("ort-sym")
        stopped = (run or {}).get("detail", {}).get("stopped_at") or []
        node = stopped[0].split(": ", 1)[-1] if stopped else None
        if r["breaks"] and node and node in r.get("blamed", []):
            ours = r["runs"].get("shapelint", {}).get("verdict")
            note = "" if ours == "reports" else f", onnx-shapelint: {ours}"
            hits.append(f"`{r['model']}` ({node}{note})")
    if not hits:
        return []
    return [f"ORT symbolic_shape_infer (auto_merge off) gives up with `Incomplete symbolic shape "
            f"inference` at a node that the labels blame in {len(hits)} breaking models (it "
            f"names the node only in its debug log; counted F above): " + ", ".join(hits) + "."]


def rewrite_lines(results, tools):
    lines = []
    for tool in tools:
        hit = [r for r in results if r["breaks"] and r["runs"][tool]["detail"].get("rewrites")]
        if hit:
            lines.append(f"- {TOOL_LABELS[tool]}: {len(hit)} models, e.g. "
                         f"`{hit[0]['model']}` ({hit[0]['runs'][tool]['detail']['rewrites'][0]})")
    return lines
