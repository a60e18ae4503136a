"""How compare_tools.py reads each tool's output: a verdict per run (the break reported, a
warning, silent, or the tool failed for another reason) from the text of its messages.

Every message is kept (its first MESSAGE_CHARS characters) next to the verdict in
results.json, so that each verdict can be checked by hand and --reclassify can apply changed
rules without running anything again.
"""

import re

MESSAGE_CHARS = 200

# Messages about shapes.  A message that matches SHAPE_WORDS and none of UNRELATED_WORDS is
# about a shape contradiction; one that matches UNRELATED_WORDS is about something else
# (an op, opset or type the tool does not handle, a file it cannot read).
SHAPE_WORDS = re.compile(
    r"shape|dimension|\bdims?\b|broadcast|rank|reshape|mismatch|incompatible|"
    r"out of (range|bounds)|size|kernel|pads?\b|axis|axes|index|indices", re.IGNORECASE)
UNRELATED_WORDS = re.compile(
    r"no op(erator)? registered|not (yet )?(supported|implemented)|unsupported (op|type|data)|"
    r"opset|no such file|external data|could not (be )?(found|open)|unknown model file|"
    r"failed to load|bfloat16|float8|custom op|unrecognized|no module named|"
    r"typeerror|attributeerror|keyerror|recursion|unknown function|"
    r"incomplete symbolic shape inference", re.IGNORECASE)
# ONNX Runtime's complaint when polygraphy feeds 1 to a channel axis that the model declares
# dynamic but a Conv weight fixes: eager PyTorch fails there too, so it is not the break.
POLYGRAPHY_ONES_CHANNEL = re.compile(r"Input channels C is not equal to kernel channels \* group\. "
                                     r"C: 1 kernel channels: (?!1\b)")


def classify_record(record):
    """verdict, message (first MESSAGE_CHARS characters) and detail of one run."""
    if record.get("detail", {}).get("not_run"):
        return {k: record[k] for k in ("verdict", "message", "detail")}
    verdict, message, detail = classify(record["tool"], record, record["report"])
    return {"verdict": verdict, "message": message[:MESSAGE_CHARS], "detail": detail}


ORT_SOURCE_PREFIX = re.compile(r"^/\S+\.(h|cc):\d+ [^(]*\([^)]*\) ")


def one_line(text):
    """The text on one line, without the source location ONNX Runtime puts first."""
    return ORT_SOURCE_PREFIX.sub("", " ".join(str(text).split()))


def about_shapes(message):
    return bool(SHAPE_WORDS.search(message)) and not UNRELATED_WORDS.search(message)


def process_failure(record):
    """The verdict for a run that left no report: it died or hung."""
    if record["timed_out"]:
        return "fails", "timeout", {}
    tail = one_line(record["stderr_tail"][-600:]) or "no output"
    return "fails", f"no report (exit status {record['rc']}): {tail}", {}


def classify(tool, record, report):
    if report is None:
        return process_failure(record)
    if tool in ("onnx", "osi", "osi-strict"):
        return classify_exception_tool(report)
    if tool.startswith("ort-sym"):
        return classify_ort_sym(report)
    if tool.startswith("polygraphy"):
        return classify_polygraphy(report)
    return classify_shapelint(report)


def innermost(report):
    """The "type: message" of the exception at the root of the one raised."""
    exc = report["exception"]
    while exc.get("cause"):
        exc = exc["cause"]
    return one_line(f"{exc['type']}: {exc['message']}")


def reconcile(runs):
    """polygraphy's default run sets every dynamic dim to 1, also where the model cannot take
    1 (a channel axis that a weight fixes, an image side below the kernel).  Its error
    counts as the break only where it persists at sizes the model takes: polygraphy-shapes
    fails at the same node.  Otherwise it is about the size 1, not the baked size."""
    plain, shaped = runs.get("polygraphy"), runs.get("polygraphy-shapes")
    if not (plain and shaped) or plain["verdict"] != "reports":
        return runs
    failing = set(plain["detail"].get("failing", []))
    if shaped["verdict"] == "reports" and failing <= set(shaped["detail"].get("failing", [])):
        return runs
    plain["verdict"] = "fails"
    plain["message"] = ("unrelated (at the all-ones input; at the labelled sizes it "
                        + ("passes" if shaped["verdict"] == "silent" else "fails elsewhere")
                        + "): " + plain["message"])[:MESSAGE_CHARS]
    return runs


def exception_text(report):
    """The exception, and the one that caused it (osi wraps the error of a failed op)."""
    exc = report["exception"]
    text = f"{exc['type']}: {exc['message']}"
    if exc.get("cause"):
        text += f" <- {exc['cause']['type']}: {exc['cause']['message']}"
    return one_line(text)


def classify_exception_tool(report):
    """onnx and onnx-shape-inference: an exception is the report; logs are warnings."""
    detail = {"rewrites": report.get("rewrites", []), "log": report["log"][:5]}
    if report["exception"]:
        text = exception_text(report)
        if report.get("stage"):
            detail["stage"] = report["stage"]
        return ("reports" if about_shapes(innermost(report)) else "fails"), text, detail
    shape_logs = [one_line(m) for m in report["log"] if about_shapes(m)]
    if shape_logs:
        return "warns", shape_logs[0], detail
    return "silent", "", detail


def classify_ort_sym(report):
    """ORT symbolic shape inference: exceptions, logged warnings, literal rewrites."""
    shape_logs = [one_line(m) for m in report["log"] if about_shapes(m)]
    detail = {"rewrites": report.get("rewrites", []),
              "log": [one_line(m)[:MESSAGE_CHARS] for m in report["log"][:5]],
              "stopped_at": report.get("stopped_at", [])}
    if report["exception"]:
        text = exception_text(report)
        if about_shapes(innermost(report)):
            return "reports", text, detail
        if report.get("stopped_at"):
            # "Incomplete symbolic shape inference": it stopped at a node it could not infer.
            text += f" ({one_line(report['stopped_at'][0])})"
        return "fails", text, detail
    if report.get("returned_none"):
        return "fails", "returned None (opset below 7?)", detail
    if shape_logs:
        return "warns", shape_logs[0], detail
    return "silent", "", detail


def classify_polygraphy(report):
    """polygraphy check lint's JSON report: lint_entries with a level and a source."""
    entries = report.get("lint_entries", [])
    detail = {"entries": [{k: one_line(v)[:MESSAGE_CHARS] if isinstance(v, str) else v
                           for k, v in e.items()} for e in entries[:5]],
              "failing": report.get("summary", {}).get("failing", [])[:10]}
    errors = [e for e in entries if e.get("level") in ("exception", "error")]
    for entry in errors:
        text = one_line(entry.get("message", ""))
        if about_shapes(text) and not POLYGRAPHY_ONES_CHANNEL.search(text):
            return "reports", text, detail
    if errors:
        return "fails", one_line(errors[0].get("message", "")), detail
    shape_warnings = [one_line(e.get("message", "")) for e in entries
                      if about_shapes(one_line(e.get("message", "")))]
    if shape_warnings:
        return "warns", shape_warnings[0], detail
    return "silent", "", detail


def classify_shapelint(report):
    """onnx-shapelint's JSON report: error findings report, warnings warn, notes don't."""
    if report.get("error"):
        return "fails", f"load error: {report['error']}", {}
    findings = report["findings"]
    detail = {"rules": sorted({f"{f['rule']} {f['severity']}" for f in findings})}
    for severity, verdict in (("error", "reports"), ("warning", "warns")):
        hits = [f for f in findings if f["severity"] == severity]
        if hits:
            return verdict, f"{hits[0]['rule']}: {one_line(hits[0]['message'])}", detail
    return "silent", "", detail
