"""The verdict of one run: ONNX Runtime's outcome against eager PyTorch's, or against the shapes
the graph computes where only one side ran (confirm.py runs them; docs/python.md, "Confirm")."""

from onnx_shapelint import _runs

CONFIRMED, NOT_CONFIRMED, NOT_RUN = "confirmed", "not confirmed", "not run"


def _ort_failure(ort):
    where = " at node '%s'" % ort.node if ort.node else ""
    return "ONNX Runtime fails%s: %s" % (where, ort.error)


def _static_outputs(counterexample):
    return [tuple(o["actual"]) for o in counterexample.get("outputs") or []]


def _declared_outputs(counterexample):
    outputs = counterexample.get("outputs") or []
    if any(o.get("expected") is None for o in outputs):
        return None
    return [tuple(o["expected"]) for o in outputs]


def verdict(ort, eager, counterexample, runner, control=None):
    """The confirmation of one counterexample: a dict with verdict, detail and what each side
    returned. `control` is ONNX Runtime's Outcome at the export sizes, where it ran: a run
    that fails there too, or fails outside the runtime, confirms nothing."""
    out = {"onnxruntime": runner.ort_version, "inputs": counterexample["inputs"]}
    if ort is not None:
        out["ort"] = ort.error if ort.error else [list(s) for s in ort.shapes]
    if eager is not None:
        out["eager"] = eager.error if eager.error else [list(s) for s in eager.shapes]
    text = _runs.shape_text
    if ort is not None and ort.internal:
        if eager is None or eager.error:
            out.update(verdict=NOT_RUN, detail="the run failed outside ONNX Runtime (%s): "
                       "no verdict on the model" % ort.error)
            return out
        ort = None  # PyTorch's shapes are still compared with the graph's, statically
    if control is not None and control.error and ort is not None:
        out.update(verdict=NOT_CONFIRMED,
                   detail="ONNX Runtime fails at the export sizes too (%s): a failure there "
                   "is not a size baked in (docs/severity.md)" % control.error)
        return out
    if eager is not None and eager.error:
        out.update(verdict=NOT_CONFIRMED,
                   detail="PyTorch fails too at these sizes (%s): the module does not take them"
                   % eager.error)
    elif ort is not None and ort.error:
        tail = "; PyTorch returns %s" % text(eager.shapes) if eager is not None else ""
        out.update(verdict=CONFIRMED, detail=_ort_failure(ort) + tail)
    elif ort is not None and eager is not None:
        run = compare_run(ort, eager)
        if run["verdict"] == "agree":
            out.update(verdict=NOT_CONFIRMED,
                       detail="ONNX Runtime and PyTorch agree at these sizes")
        elif run["verdict"] == "eager fails":
            out.update(verdict=NOT_CONFIRMED, detail=run["detail"])
        elif run["verdict"] == "not compared":
            out.update(verdict=NOT_RUN, detail="ONNX Runtime returns %d outputs, PyTorch %d: "
                       "not compared" % (len(ort.outputs), len(eager.outputs)))
        elif run["detail"].startswith("ONNX Runtime returns"):  # the shapes differ
            out.update(verdict=CONFIRMED, detail=run["detail"])
        else:
            out.update(verdict=CONFIRMED, detail="ONNX Runtime and PyTorch return %s; %s"
                       % (text(ort.shapes), run["detail"]))
    elif ort is not None:
        declared = _declared_outputs(counterexample)
        if declared is not None and ort.shapes != declared:
            out.update(verdict=CONFIRMED, detail="ONNX Runtime returns %s, the model declares %s"
                       % (text(ort.shapes), text(declared)))
        else:
            out.update(verdict=NOT_CONFIRMED,
                       detail="ONNX Runtime runs and returns %s, as declared (values not "
                       "checked without the PyTorch module)" % text(ort.shapes))
    elif eager is not None:
        out.update(_eager_only(eager, counterexample, runner))
    else:
        out.update(verdict=NOT_RUN, detail=_why_not_run(runner))
    return out


def _eager_only(eager, counterexample, runner):
    """Without ONNX Runtime: PyTorch's shapes against the graph's, evaluated statically."""
    why = ("onnxruntime is not installed" if runner.ort_version is None else
           "the file declares these sizes static and onnx is not installed to relax it")
    static = _static_outputs(counterexample)
    node = counterexample.get("failing_node")
    where = ("the graph fails at node '%s' (%s)" % (node["label"], counterexample["failure"])
             if node else counterexample["failure"])  # ST001: the declaration refuses them
    if not counterexample.get("node_fails"):
        where = "the graph returns %s" % _runs.shape_text(static)
    if counterexample.get("node_fails") or static != eager.shapes:
        return {"verdict": CONFIRMED,
                "detail": "PyTorch runs at these sizes and returns %s; %s (evaluated "
                "statically: %s)" % (_runs.shape_text(eager.shapes), where, why)}
    return {"verdict": NOT_CONFIRMED,
            "detail": "PyTorch returns the shapes the graph computes, %s (values not compared: "
            "%s)" % (_runs.shape_text(eager.shapes), why)}


def _why_not_run(runner):
    if runner.session_error:
        return "ONNX Runtime cannot load the model: " + runner.session_error
    return "onnxruntime is not installed (pip install onnxruntime)"


# PyTorch's NaN where ONNX Runtime has a number (a mean over no frames: NaN in PyTorch, 0 in
# ONNX Runtime) is no result of the module's to hold the graph to.
UNDEFINED = ("PyTorch returns NaN where ONNX Runtime returns a number: the module's arithmetic "
             "is undefined at these sizes (a mean over nothing)")


def compare_run(ort, eager):
    """{verdict, detail} of one run on both sides: agree, disagree, eager fails, not
    compared."""
    if eager.error:
        return {"verdict": "eager fails", "detail": eager.error}
    if ort.error:
        return {"verdict": "disagree", "detail": _ort_failure(ort)}
    if len(ort.outputs) != len(eager.outputs):
        return {"verdict": "not compared",
                "detail": "%d outputs against %d" % (len(ort.outputs), len(eager.outputs))}
    same, how = _runs.compare(eager.outputs, ort.outputs)
    if not same and _runs.undefined_in(eager.outputs, ort.outputs):
        return {"verdict": "eager fails", "detail": UNDEFINED}
    if how == "shapes differ":
        how = "ONNX Runtime returns %s, PyTorch %s" % (_runs.shape_text(ort.shapes),
                                                      _runs.shape_text(eager.shapes))
    return {"verdict": "agree" if same else "disagree", "detail": how}
