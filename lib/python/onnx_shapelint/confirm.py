"""Counterexamples confirmed by running them: ONNX Runtime, and eager PyTorch where the module is
at hand (onnx_shapelint.torch.export), at each error's counterexample and at a few sizes near
the export sizes where the static analysis finds nothing (docs/python.md, "Confirm").

    onnx-shapelint confirm MODEL [--dims SIZES]     (the command line, main() below)
    onnx_shapelint.confirm.confirm(model, dims=None) -> Report
"""

import argparse
import math
import os
import sys

from onnx_shapelint import _core, _runs
from onnx_shapelint._probes import input_symbols, probe_sizes, spec as _spec
from onnx_shapelint._report import Report

SEED = 20261201

CONFIRMED, NOT_CONFIRMED, NOT_RUN = "confirmed", "not confirmed", "not run"


class Runner:
    """Runs the model at input shapes: ONNX Runtime when importable, eager PyTorch when given.

    kinds    {input name: _runs.InputKind}, how to fill each input
    eager    None, or a callable {input name: array} -> list of output arrays
    relaxed  {input: [axis, ...]} the file declares static although they were asked to be
             dynamic: runs of the graph go to a copy that declares them dynamic (the linter
             analyses that graph), runs of the file as written (ST001) to the file
    """

    def __init__(self, path, kinds, eager=None, relaxed=None):
        self.kinds, self.eager = kinds, eager
        self.runs = 0  # sizes run, each on both sides
        self.ort_version = _runs.ort_version()
        self.session = self.relaxed_session = self.session_error = None
        if self.ort_version is None:
            return
        try:
            self.session = _runs.OrtProcess(path)
            self.relaxed_session = (_runs.relaxed_session(path, relaxed) if relaxed else
                                    self.session)
        except Exception as error:  # a model ORT cannot load is a verdict, not a crash
            self.session_error = _runs.first_line(error)

    def close(self):
        """Drops the runtime's sessions (the relaxed one may be the file's)."""
        for session in {self.session, self.relaxed_session} - {None}:
            session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def runs_anything(self):
        return self.session is not None or self.eager is not None

    def eager_fails(self, shapes, seed):
        """True when the eager module refuses inputs of `shapes`; False without a module."""
        outcome = self._run_eager(_runs.make_inputs(self.kinds, shapes, seed))
        return outcome is not None and outcome.error is not None

    def run(self, shapes, seed, as_declared=False):
        """(ORT's outcome, eager's outcome), each None when that side cannot run."""
        self.runs += 1
        feeds = _runs.make_inputs(self.kinds, shapes, seed)
        session = self.session if as_declared else self.relaxed_session
        ort = session.run(feeds) if session is not None else None
        return ort, self._run_eager(feeds)

    def _run_eager(self, feeds):
        """The eager module's Outcome on `feeds`, or None without a module."""
        if self.eager is None:
            return None
        try:
            return _runs.Outcome([_as_array(o) for o in self.eager(feeds)])
        except Exception as error:  # the module refusing these sizes is what we learn
            return _runs.Outcome(error="%s: %s" % (type(error).__name__, _runs.first_line(error)))


def _as_array(value):
    import numpy as np

    return np.asarray(value.detach().cpu().numpy() if hasattr(value, "detach") else value)


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


def control_run(runner, shapes):
    """ONNX Runtime's Outcome at the export sizes `shapes` ({input: dims}), on the graph as
    linted, or None where it cannot run or the sizes are not known."""
    if shapes is None or runner.relaxed_session is None or set(shapes) != set(runner.kinds):
        return None
    outcome = runner.relaxed_session.run(_runs.make_inputs(runner.kinds, shapes, SEED))
    return None if outcome.internal else outcome


# The notes that state where the model works, each with a counterexample where it does not:
# a weight fixes a size (SL004), a Squeeze needs 1 (SL009), the graph's design sets a range or
# a multiple (SL010). Eager PyTorch refusing that size too makes the limit the module's own;
# running it makes the note a break. Only a limit of the sizes of one input: a relation among
# inputs is their contract (SL006's, or SL010's `k` as long as `v`), which a module may run
# inputs breaking without meaning anything (PyTorch's attention takes keys longer than the
# values; a mask shorter than past and new tokens).
LIMIT_NOTES = ("SL004", "SL009", "SL010")


def _of_one_input(finding, inputs):
    """Whether every symbol of `finding` is a dim of one input ({input: [symbols]})."""
    symbols = set(finding.get("symbols") or [])
    return bool(symbols) and any(symbols <= set(dims) for dims in inputs.values())


def confirm_findings(report, runner, control=None):
    """Runs each error's counterexample and attaches the verdict as finding["confirmation"].
    With the module at hand, the verdict also settles the severity of the linter's findings:
    an error whose counterexample does not break (PyTorch refuses the sizes too, or both sides
    agree) becomes a warning, which confirm_warnings then runs at the next sizes; a note that
    states the sizes the model works at (LIMIT_NOTES) whose counterexample PyTorch runs while
    ONNX Runtime does not agree becomes an error (a branch of the module the trace did not take:
    padding to the multiple a view needs, resampling the table a weight fixes). `control`, the
    input shapes at the export sizes ({input: dims}), is run first: where ONNX Runtime fails
    there too, its failures confirm nothing."""
    done, broken = {}, set()
    at_export = control_run(runner, control)
    inputs = input_symbols(report.path) if runner.eager is not None else {}
    # Errors first: a note whose counterexample an error already breaks at is that error's
    # consequence (a Reshape's baked batch reaching a Linear), not a second cause.
    ordered = sorted(report.findings, key=lambda f: f["severity"] != "error")
    for finding in ordered:
        counterexample = finding.get("counterexample")
        limit_note = (finding["rule"] in LIMIT_NOTES and runner.eager is not None
                      and _of_one_input(finding, inputs))
        if finding["severity"] != "error" and not limit_note or not counterexample:
            continue
        shapes = counterexample["inputs"]
        if set(shapes) != set(runner.kinds):
            finding["confirmation"] = {"verdict": NOT_RUN, "detail": "the counterexample does "
                                       "not give every input's shape"}
            continue
        # ST001 is about the file as written; the others about the graph, as linted.
        as_declared = finding["rule"] == "ST001"
        key = (as_declared, repr(sorted(shapes.items())))
        if key not in done:
            done[key] = (runner.run(shapes, SEED, as_declared) if runner.runs_anything else
                         (None, None))
        result = verdict(*done[key], counterexample, runner, at_export)
        if finding["severity"] == "error" and result["verdict"] == CONFIRMED:
            broken.add(key[1])
        if finding["rule"].startswith("ST") or runner.eager is None:
            finding["confirmation"] = result
        elif finding["severity"] == "note":
            if result["verdict"] == CONFIRMED and key[1] not in broken:
                report.promote(finding, counterexample, result)
        elif result["verdict"] == NOT_CONFIRMED:
            report.demote(finding, result)
        else:
            finding["confirmation"] = result


# The sizes past the export size a warning runs at: a size halved with floor division gives
# the same literal one step on, so a second step is taken when the first agrees.
WARNING_STEPS = (1, 2)
# Then the export sizes all scaled by this factor, which keeps every ratio among them.
WARNING_SCALE = 2
# The doubled sizes are run only where the inputs hold at most this many elements, or at most
# WARNING_SCALE_GROWTH times the export's: doubling every axis of a large image batch would ask
# both runtimes for many times the memory the export took.
WARNING_SCALE_ELEMENTS = 1 << 24
WARNING_SCALE_GROWTH = 4


def confirm_warnings(report, runner, centre):
    """Runs each warning of the linter one size, then two, past the export size of its symbols,
    on both sides, then at every export size doubled. A warning is a literal equal to an
    example size where no shape contradicts it, or an error whose counterexample PyTorch
    refused; where the runs disagree, they are the counterexample the analysis could not build,
    and the warning becomes an error. Moving one size breaks what the module's inputs must
    keep among themselves (a skip connection twice the size of the map upsampled to meet it, a
    square grid), and PyTorch refuses those sizes; the doubled sizes keep every such ratio, sum
    and equality, and every divisibility the example had. A size that a weight or a table of
    the model fixes (a note's witness) stays."""
    if runner.relaxed_session is None or runner.eager is None:
        return
    scaled = scaled_binding(centre, WARNING_SCALE, fixed_sizes(report.findings))
    doubled = None  # whether the doubled sizes may run: probed once, when a warning needs them
    for finding in list(report.findings):
        symbols = [s for s in finding.get("symbols") or [] if s in centre]
        if finding["severity"] != "warning" or finding["rule"].startswith("ST") or not symbols:
            continue
        tries = [(dict(centre, **{s: centre[s] + step for s in symbols}), symbols)
                 for step in WARNING_STEPS]
        if any(scaled[s] != centre[s] for s in symbols):
            if doubled is None:
                doubled = affordable(report.path, centre, scaled)
            if doubled:
                tries.append((scaled, sorted(s for s in scaled if scaled[s] != centre[s])))
        for binding, moved in tries:
            try:
                shapes = _core.probe(report.path, [_spec(binding)])[0]["at"]["inputs"]
            except ValueError:  # a symbol the file does not declare (an axis linted as dynamic)
                break
            row = dict(binding=binding, inputs=shapes, **compare_run(*runner.run(shapes,
                                                                                 SEED + 2)))
            sizes = ", ".join("%s=%d" % (s, binding[s]) for s in moved)
            if row["verdict"] == "disagree":
                promote(report, finding, row, sizes)
                break
            # A demoted error keeps the verdict that demoted it.
            finding.setdefault("confirmation", {"verdict": NOT_CONFIRMED, "onnxruntime":
                                                runner.ort_version, "inputs": shapes,
                                                "detail": "at %s: %s" % (sizes, row["detail"])})


def affordable(path, centre, scaled):
    """Whether the inputs at the sizes `scaled` are small enough to run next to the export sizes
    `centre` (both {symbol: size}); False where the file does not declare a symbol."""
    try:
        at_export, at_scaled = (r["at"]["inputs"]
                                for r in _core.probe(path, [_spec(centre), _spec(scaled)]))
    except ValueError:
        return False

    def elements(shapes):
        return sum(math.prod(dims) for dims in shapes.values())

    size = elements(at_scaled)
    return size <= WARNING_SCALE_ELEMENTS or size <= WARNING_SCALE_GROWTH * elements(at_export)


def fixed_sizes(findings):
    """{symbol: size} for the sizes the model's own design fixes: a note whose witness holds
    the symbol at one size (a weight's features, a table's length)."""
    fixed = {}
    for f in findings:
        if f["severity"] != "note":
            continue
        for r in (f.get("witness") or {}).get("ranges") or []:
            if r.get("min") is not None and r.get("min") == r.get("max"):
                fixed.setdefault(r["symbol"], r["min"])
    return fixed


def scaled_binding(centre, factor, fixed=None):
    """`centre` ({symbol: export size}) with every size multiplied by `factor`, except those
    `fixed` ({symbol: size}) holds, which stay at their export size."""
    fixed = fixed or {}
    return {s: size if s in fixed else size * factor for s, size in centre.items()}


def promote(report, finding, row, sizes):
    """Makes `finding` an error with the run `row` (both sides disagree) as its counterexample."""
    report.promote(finding, {"binding": dict(sorted(row["binding"].items())),
                             "inputs": row["inputs"], "failing_node": None,
                             "failure": row["detail"],
                             "node_fails": row["detail"].startswith("ONNX Runtime fails"),
                             "outputs": []},
                   {"verdict": CONFIRMED, "inputs": row["inputs"],
                    "detail": "at %s: %s" % (sizes, row["detail"])})


def settle_requests(report):
    """An axis asked to be dynamic that came out static is the caller's mistake, not the
    exporter's, when the module itself refuses other sizes there (PyTorch fails at the
    counterexample too) or a weight fixes it (SL004): then ST001 is a note."""
    fixed = {s for f in report.findings if f["rule"] == "SL004" for s in f.get("symbols") or []}
    for finding in report.findings:
        if finding["rule"] != "ST001":
            continue
        eager = (finding.get("confirmation") or {}).get("eager")
        if isinstance(eager, str):
            reason = "PyTorch refuses that size too (%s)" % eager
        elif set(finding["symbols"]) & fixed:
            reason = "a weight fixes this size (SL004)"
        else:
            continue
        report.settle(finding, "note", reason + ": the module takes only the size the file "
                      "declares", "drop the axis from dynamic_shapes / dynamic_axes")


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


def dynamic_check(report, model, runner, centre, ranges):
    """Runs the probe sizes on both sides and reports each disagreement as an ST003 finding.
    Needs ONNX Runtime and the eager module: each side alone cannot tell wrong values."""
    if runner.relaxed_session is None or runner.eager is None:
        return []
    probes, unexplained = [], []
    for binding, shapes in probe_sizes(model, centre, ranges, report.findings):
        row = dict(binding=binding, inputs=shapes, **compare_run(*runner.run(shapes, SEED + 1)))
        probes.append(row)
        if row["verdict"] != "disagree":
            continue
        # A warning or error of the linter over the moved sizes (SL001's values that match only
        # where the windows tile, SL008's scale) already says why: the run confirms it.
        moved = {s for s, v in binding.items() if centre.get(s) != v}
        explaining = [f for f in report.findings
                      if f["severity"] in ("error", "warning") and not f["rule"].startswith("ST")
                      and _symbols_of(f, centre) & moved]
        row["explained_by"] = sorted({f["rule"] for f in explaining})
        if not explaining:
            unexplained.append(row)
        for f in explaining:
            if f["severity"] == "warning":  # the run is the counterexample it lacked
                promote(report, f, row, _spec(binding).replace(",", ", "))
    if unexplained:  # one finding: the first size, and where else the runs differ
        report.add(probe_finding(unexplained[0], unexplained[1:]))
    return probes


def _symbols_of(finding, centre):
    """The symbols a finding is about: as it names them, else those its counterexample moves
    away from the export sizes."""
    if finding.get("symbols"):
        return set(finding["symbols"])
    binding = (finding.get("counterexample") or {}).get("binding") or {}
    return {s for s, v in binding.items() if centre.get(s) != v}


def probe_finding(row, others=()):
    sizes = ", ".join("%s=%d" % kv for kv in sorted(row["binding"].items()))
    notes = [{"message": "the static analysis finds that the model works at these sizes; the "
              "difference is in values or in what the graph cannot show (a size folded into "
              "a divisor, a Python branch taken at the export size)", "node": None}]
    if others:
        notes.append({"message": "the runs differ at %d more of the sizes tried: %s" % (
            len(others), "; ".join(_spec(o["binding"]).replace(",", ", ") for o in others)),
            "node": None})
    return {
        "rule": "ST003", "name": "runs-differ", "severity": "error",
        "message": "at %s ONNX Runtime and eager PyTorch disagree: %s" % (sizes, row["detail"]),
        "node": None, "attribute": None, "symbols": sorted(row["binding"]),
        "witness": None,
        "counterexample": {"binding": dict(sorted(row["binding"].items())),
                           "inputs": row["inputs"], "failing_node": None,
                           "failure": row["detail"], "node_fails": False, "outputs": []},
        "notes": notes,
        "fix": "run the module at these sizes to find the value that stayed at the export size",
        "expressions": [], "source": None,
    }


def confirm(model, dims=None, *, eager=None, kinds=None, select=None, ignore=None):
    """Lints `model` (a path) with `dims` as export dims, runs each error's counterexample on
    ONNX Runtime, and returns the Report; `eager` and `kinds` as for Runner."""
    path = os.fspath(model)
    report = Report.of_file(path, export_dims=dims, select=select, ignore=ignore)
    inputs = _core.inputs(path)
    if kinds is None:
        kinds = {i["name"]: _runs.InputKind.of_onnx_type(i["elem_type"]) for i in inputs}
    centre = centre_of(inputs, dims, report)
    with Runner(path, kinds, eager) as runner:
        confirm_findings(report, runner, export_shapes(inputs, centre))
        report.probes = dynamic_check(report, path, runner, centre, ranges_of(inputs))
        report.runs = runner.runs
    return report


def export_shapes(inputs, centre):
    """{input: dims} at the export sizes `centre` ({symbol: size}), or None when a dim of an
    input is neither a number nor a symbol `centre` sizes."""
    shapes = {}
    for i in inputs:
        if i["dims"] is None:
            return None
        dims = [d if isinstance(d, int) else centre.get(d) for d in i["dims"]]
        if any(d is None for d in dims):
            return None
        shapes[i["name"]] = dims
    return shapes


def ranges_of(inputs):
    return {s: tuple(r) for i in inputs for s, r in i["ranges"].items()}


def centre_of(inputs, dims, report):
    """{symbol: size} at export: from `dims` ("x=2x3x8x8" or "h=8"), else the findings'
    witnesses."""
    centre = {}
    for f in report.findings:
        for r in (f.get("witness") or {}).get("ranges") or []:
            centre.setdefault(r["symbol"], r["value"])
    for item in ",".join(dims if isinstance(dims, (list, tuple)) else [dims or ""]).split(","):
        name, _, value = item.strip().partition("=")
        shape = next((i["dims"] for i in inputs if i["name"] == name), None)
        if shape is not None:
            for d, v in zip(shape, value.split("x")):
                if isinstance(d, str) and v.isdigit():
                    centre[d] = int(v)
        elif value.isdigit():
            centre[name] = int(value)
    return centre


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="onnx-shapelint confirm",
        description="Lint MODEL, then run each error's counterexample and a few sizes near the "
        "export sizes on ONNX Runtime, and report the verdicts.")
    parser.add_argument("model", metavar="MODEL")
    parser.add_argument("--dims", metavar="SIZES",
                        help="the export sizes, as --export-dims takes them (x=1x3x224x224)")
    parser.add_argument("--select")
    parser.add_argument("--ignore")
    a = parser.parse_args(argv)
    try:
        report = confirm(a.model, a.dims, select=a.select, ignore=a.ignore)
    except (OSError, ValueError) as error:
        print("%s: error: %s" % (a.model, error), file=sys.stderr)
        return 2
    print(report)
    if _runs.ort_version() is None:
        print("note: onnxruntime is not installed: nothing was run (pip install onnxruntime)",
              file=sys.stderr)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
