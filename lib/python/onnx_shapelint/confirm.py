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
from onnx_shapelint._probes import (aligned_peers, input_dims, input_symbols, probe_sizes,
                                    spec as _spec)
from onnx_shapelint._report import Report
from onnx_shapelint._verdict import (CONFIRMED, NOT_CONFIRMED, NOT_RUN, UNDEFINED,  # noqa: F401
                                     compare_run, verdict)

SEED = 20261201


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


def control_run(runner, shapes):
    """ONNX Runtime's Outcome at the export sizes `shapes` ({input: dims}), on the graph as
    linted, or None where it cannot run or the sizes are not known."""
    if shapes is None or runner.relaxed_session is None or set(shapes) != set(runner.kinds):
        return None
    outcome = runner.relaxed_session.run(_runs.make_inputs(runner.kinds, shapes, SEED))
    return None if outcome.internal else outcome


# The notes that state where the model works, each with a counterexample where it does not:
# a weight fixes a size (SL004), a Squeeze needs 1 (SL009), the graph's design sets a range or
# a multiple or a relation among sizes (SL010). Eager PyTorch refusing that size too makes the
# limit the module's own; running it makes the note a break. SL006's input contract is no such
# limit: a module may run inputs breaking it without meaning anything (a mask shorter than past
# and new tokens).
LIMIT_NOTES = ("SL004", "SL009", "SL010")
# The evidence of a finding that only a run can settle (docs/severity.md).
HYPOTHESIS = "hypothesis"
# The rules whose hypothesis is that a literal holds a size of the example: a pool window
# (SL001), a Reshape target (SL002), a folded tensor (SL005), a Slice end or any other operand
# (SL007), a scale (SL008), an offset (SL017). A bake differs from the module once that size
# moves, which runs test. Other hypotheses are not settled by runs near the export size: a limit
# below it (LIMIT_NOTES, run at its counterexample), or the exporter's record of a branch or a
# specialization (SL011, SL014).
EXAMPLE_LITERALS = ("SL001", "SL002", "SL005", "SL007", "SL008", "SL017")


def confirm_findings(report, runner, control=None):
    """Runs each error's counterexample and attaches the verdict as finding["confirmation"].
    With the module at hand, the verdict also settles the severity of the linter's findings:
    an error whose counterexample does not break (PyTorch refuses the sizes too, or both sides
    agree) becomes a warning, which confirm_warnings then runs at the next sizes; a note or a
    warning that states the sizes the model works at (LIMIT_NOTES) whose counterexample PyTorch
    runs while ONNX Runtime does not agree becomes an error (a branch of the module the trace
    did not take: padding to the multiple a view needs, resampling the table a weight fixes).
    A warning's verdict stays with it for settle_hypotheses. `control`, the
    input shapes at the export sizes ({input: dims}), is run first: where ONNX Runtime fails
    there too, its failures confirm nothing."""
    done, broken = {}, set()
    at_export = control_run(runner, control)
    # Errors first: a note whose counterexample an error already breaks at is that error's
    # consequence (a Reshape's baked batch reaching a Linear), not a second cause.
    ordered = sorted(report.findings, key=lambda f: f["severity"] != "error")
    for finding in ordered:
        counterexample = finding.get("counterexample")
        # A limit whose counterexample breaks only the inputs' contract (keys as long as the
        # values) is not run: PyTorch may take such inputs without meaning anything.
        limit_note = (finding["rule"] in LIMIT_NOTES and runner.eager is not None
                      and not (counterexample or {}).get("input_contract"))
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
        elif finding["severity"] != "error":
            # A limit stated as a note or a warning, which ONNX Runtime breaks at where PyTorch
            # runs: the run is the evidence the severity policy asks of an error.
            if result["verdict"] == CONFIRMED and key[1] not in broken:
                report.promote(finding, counterexample, result)
            elif finding["severity"] == "warning":
                finding["confirmation"] = result
        elif result["verdict"] == NOT_CONFIRMED:
            report.demote(finding, result)
        else:
            finding["confirmation"] = result


# The steps each size of a limit takes, one size at a time, the others at the export sizes: a
# relation among sizes (a skip against the map it is cropped to, query heads against the key
# heads repeated to them) breaks one step either side, a size a floor divides a second step on.
LIMIT_STEPS = (1, -1, 2)
# At most this many runs per limit, of sizes at which the analysis finds the limit's own node
# failing: a relation among many sizes would otherwise ask for many runs of both runtimes.
LIMIT_RUNS = 6


def confirm_limits(report, runner, centre):
    """Runs each size a limit (LIMIT_NOTES) holds, one at a time, where the analysis finds the
    limit's own node failing. A limit may hold several sizes (a position table fixes the channels
    and the token grid; a relation ties a skip connection to the map cropped to meet it, or the
    query heads to the key heads a literal repeats) and its counterexample moves one, which
    PyTorch may refuse (the channels, another input's batch) where it takes another (the grid,
    resampling the table in a branch the trace did not take; the skip, cropped by the module at
    every size). Each size of the limit is moved by LIMIT_STEPS, the others at the export sizes
    `centre` ({symbol: size}); where ONNX Runtime fails at the limit's own node and PyTorch
    runs, the limit becomes an error. Sizes that break only the inputs' contract (the analysis's
    `input_contract`: keys as long as the values, the same batch) are not run: PyTorch's
    attention takes keys longer than the values, which means nothing."""
    if runner.relaxed_session is None or runner.eager is None:
        return
    together = aligned_peers(centre, input_dims(report.path))
    for finding in list(report.findings):
        node = (finding.get("node") or {}).get("name")
        if finding["severity"] == "error" or finding["rule"] not in LIMIT_NOTES or not node:
            continue
        # Each size with the other inputs' sizes equal to it on its axis, as counterexamples
        # move them: the batch of the queries moved without the keys' shows only what PyTorch
        # refuses too.
        symbols = [s for s in finding.get("symbols") or [] if s in centre]
        tried = (finding.get("counterexample") or {}).get("binding")  # ran (confirm_findings)
        bindings = []
        for step in LIMIT_STEPS:
            for s in symbols:
                if centre[s] + step < 1:
                    continue
                b = dict(centre, **{t: centre[t] + step for t in together.get(s, set()) | {s}})
                if b != tried and b not in bindings:
                    bindings.append(b)
        if not bindings:
            continue
        try:
            static = _core.probe(report.path, [_spec(b) for b in bindings])
        except ValueError:
            continue
        failing = [(b, r["at"]["inputs"]) for b, r in zip(bindings, static)
                   if r["breaks"] and (r["at"].get("failing_node") or {}).get("name") == node
                   and not r["at"].get("input_contract")]
        for binding, shapes in failing[:LIMIT_RUNS]:
            ort, eager = runner.run(shapes, SEED + 3)
            if eager.error or not ort.error or ort.internal or not _runs.at_node(ort, node):
                continue
            moved = sorted(s for s in binding if binding[s] != centre[s])
            promote(report, finding, dict(binding=binding, inputs=shapes,
                                          **compare_run(ort, eager)),
                    ", ".join("%s=%d" % (s, binding[s]) for s in moved))
            break


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
    and the warning becomes an error; where they agree at the doubled sizes, settle_hypotheses
    may refute it. Moving one size breaks what the module's inputs must keep among themselves
    (a skip connection twice the size of the map upsampled to meet it, a square grid), and
    PyTorch refuses those sizes; the doubled sizes keep every such ratio, sum and equality, and
    every divisibility the example had. A size that a weight or a table of the model fixes (a
    note's witness of one size) stays."""
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
        agreed = []
        for binding, moved in tries:
            shapes = _shapes_at(report.path, binding)
            if shapes is None:
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
            if row["verdict"] == "agree":
                agreed.append(sizes)
                if binding is scaled:  # for settle_hypotheses: the doubled sizes agree
                    finding["confirmation"]["agreed"] = agreed


def _moves_all(finding):
    """Whether the counterexample of `finding` moves every size its witness holds: a run there
    tests all the finding claims, not one of several sizes it fixes."""
    ranges = (finding.get("witness") or {}).get("ranges") or []
    binding = finding["counterexample"].get("binding") or {}
    return bool(ranges) and all(binding.get(r["symbol"], r["value"]) != r["value"]
                                for r in ranges)


def settle_hypotheses(report):
    """Makes each hypothesis the runs refuted a note (the module's own), once every run had its
    say (a probe that disagrees over its sizes makes it an error instead):
    - a literal equal to an example size (EXAMPLE_LITERALS) where both sides agree at the
      doubled sizes of confirm_warnings, and no try disagrees: a baked literal differs once its
      size moves, and doubling moves every floor, ceiling, root or offset of a size (a floor of
      n / k at least 1 at least doubles), while keeping every ratio and divisibility the module
      needs;
    - a limit on a count no recorded line writes (a TopK k that might be a min() the exporter
      evaluated at the example) whose counterexample, moving every size it names, PyTorch
      refuses too: below the count, the module fails as the graph does."""
    for finding in list(report.findings):
        c = finding.get("confirmation") or {}
        if finding["severity"] != "warning" or finding.get("evidence") != HYPOTHESIS:
            continue
        if finding["rule"] in EXAMPLE_LITERALS and c.get("agreed"):
            report.refute(finding, dict(c, detail="ONNX Runtime and PyTorch agree at %s: the "
                                        "literal is the module's own" % "; ".join(c["agreed"])))
        elif (finding["rule"] in LIMIT_NOTES and isinstance(c.get("eager"), str)
              and finding.get("counterexample") and _moves_all(finding)):
            report.refute(finding, c)


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


def _window_of_one(r):
    """Whether the witness range `r` is a window of one size (sizes a broadcast also takes
    aside), repeating or not."""
    return r.get("min") is not None and r["min"] == r.get("max")


def _one_size(r):
    """Whether the witness range `r` holds its symbol at one size: [8, 8] that repeats every 2
    is every even size, no fixed one."""
    return _window_of_one(r) and not r.get("every")


def _shapes_at(path, binding):
    """The input shapes of the model at `path` at the sizes `binding`, or None where the file
    does not declare one of its symbols (an axis linted as dynamic)."""
    try:
        return _core.probe(path, [_spec(binding)])[0]["at"]["inputs"]
    except ValueError:
        return None


def fixed_sizes(findings):
    """{symbol: size} for the sizes the model's own design fixes: a note whose witness holds
    the symbol at one size (a weight's features, a table's length)."""
    fixed = {}
    for f in findings:
        if f["severity"] != "note":
            continue
        for r in (f.get("witness") or {}).get("ranges") or []:
            if _one_size(r):
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
                             "input_contract": False, "outputs": []},
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
        confirm_limits(report, runner, centre)
        report.probes = dynamic_check(report, path, runner, centre, ranges_of(inputs))
        settle_hypotheses(report)
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
