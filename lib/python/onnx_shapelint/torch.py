"""Export a PyTorch module to ONNX and check the result in one call (docs/python.md).

    report = onnx_shapelint.torch.export(model, (x,), dynamic_shapes={"x": {0: Dim.AUTO}},
                                         f="model.onnx")
    report.raise_for_errors()

export() knows what lint() must be told: the example sizes (args and kwargs) and the axes the
caller asked to be dynamic. It reports the requested axes that came out static (ST001) or
narrowed (ST002), lints the written file with the example sizes as export dims, and with
confirm=True runs each error's counterexample and a few sizes near the example's on ONNX
Runtime and on the eager module (ST003 for disagreements the static analysis did not explain).
torch is imported when export() is called, not with this module.
"""

import inspect
import os
import shutil
import tempfile
import time

from onnx_shapelint import _core, _fix, _runs
from onnx_shapelint import confirm as _confirm
from onnx_shapelint._report import Report

# torch.export specializes sizes 0 and 1 of an example: an axis can stay dynamic only when the
# example's size there is at least this.
MIN_DYNAMIC_EXAMPLE_SIZE = 2


class Example:
    """One tensor of the example inputs: its name (the forward parameter, "name_i" inside a
    list or tuple), where it sits in (args, kwargs), and the tensor."""

    def __init__(self, name, param, where, tensor):
        self.name, self.param, self.where, self.tensor = name, param, where, tensor

    @property
    def shape(self):
        return tuple(int(d) for d in self.tensor.shape)


def _is_tensor(value):
    return hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "detach")


def _parameter_names(model, args, kwargs):
    """The forward parameter each positional argument binds to ("arg3" past the signature)."""
    try:
        params = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [positional[i] if i < len(positional) else "arg%d" % i for i in range(len(args))]


def examples_of(model, args, kwargs):
    """The example tensors in the order the exporters flatten them: args, then kwargs."""
    out = []
    items = [(name, ("args", i), value)
             for i, (name, value) in enumerate(zip(_parameter_names(model, args, kwargs), args))]
    items += [(name, ("kwargs", name), value) for name, value in kwargs.items()]
    for name, where, value in items:
        if _is_tensor(value):
            out.append(Example(name, name, (where,), value))
        elif isinstance(value, (list, tuple)):
            for k, element in enumerate(value):
                if _is_tensor(element):
                    out.append(Example("%s_%d" % (name, k), name, (where, k), element))
    return out


def _match(examples, inputs):
    """{graph input name: Example}: by name, then the rest in order among inputs of that rank."""
    by_name = {e.name: e for e in examples}
    matched = {i["name"]: by_name[i["name"]] for i in inputs if i["name"] in by_name}
    rest = [e for e in examples if e not in matched.values()]
    for i in inputs:
        if i["name"] in matched or not rest:
            continue
        if i["dims"] is None or len(i["dims"]) == len(rest[0].shape):
            matched[i["name"]] = rest.pop(0)
    return matched


class Requested:
    """An axis the caller asked to be dynamic: the example it is of, the axis, the name asked
    for (None for Dim.AUTO and the like) and the bounds asked for."""

    def __init__(self, example, axis, name=None, low=None, high=None):
        self.example, self.axis, self.name = example, axis, name
        self.low, self.high = low, high


def _dim_request(example, axis, spec):
    """A Requested for one entry of dynamic_shapes or dynamic_axes, or None for a static one."""
    if spec is None:
        return None
    if spec is True:
        return Requested(example, axis)
    text = str(spec)
    if text.endswith("STATIC"):
        return None
    name = getattr(spec, "__name__", None) if isinstance(spec, type) else None
    if isinstance(spec, str):
        name = spec
    low, high = getattr(spec, "min", None), getattr(spec, "max", None)
    high = high if isinstance(high, int) and high < 2**62 else None
    low = low if isinstance(low, int) else None
    return Requested(example, axis, name, low, high)


def _axes_of(example, spec):
    """Requested axes of one example from its dynamic_shapes / dynamic_axes entry."""
    rank = len(example.shape)
    if isinstance(spec, dict):
        items = spec.items()
    elif isinstance(spec, (list, tuple)) and all(isinstance(a, int) for a in spec):
        items = [(a, True) for a in spec]  # dynamic_axes' [0, 2]: axes torch names itself
    elif isinstance(spec, (list, tuple)):
        items = enumerate(spec)  # dynamic_shapes' (Dim, None, ...): one entry per axis
    else:
        return []
    out = []
    for axis, dim in items:
        if isinstance(axis, int) and -rank <= axis < rank:
            r = _dim_request(example, axis % rank, dim)
            if r is not None:
                out.append(r)
    return out


def _shape_spec(example, dynamic_shapes):
    """The entry of dynamic_shapes for one example: by parameter name in a dict, by position
    in a tuple or list; inside it, by position for a tensor of a list argument."""
    (box, key), inner = example.where[0], example.where[1:]
    if isinstance(dynamic_shapes, dict):
        spec = dynamic_shapes.get(example.param)
    elif isinstance(dynamic_shapes, (list, tuple)) and box == "args" and key < len(dynamic_shapes):
        spec = dynamic_shapes[key]
    else:
        return None
    if inner:
        return spec[inner[0]] if isinstance(spec, (list, tuple)) and inner[0] < len(spec) else None
    return spec


def requested_axes(examples, dynamic_shapes, dynamic_axes, input_names):
    """Every axis the caller asked to be dynamic, by dynamic_shapes or dynamic_axes."""
    out = []
    by_name = {e.name: e for e in examples}
    for k, name in enumerate(input_names or []):
        if k < len(examples):
            by_name.setdefault(name, examples[k])
    for key, spec in (dynamic_axes or {}).items():
        example = by_name.get(key) if isinstance(key, str) else None
        if example is not None:
            out += _axes_of(example, spec)
    for example in examples:
        spec = _shape_spec(example, dynamic_shapes)
        if spec is not None:
            out += _axes_of(example, spec)
    return out


def _use_dynamo(torch, options):
    """The dynamo exporter where torch has it, unless the caller chose."""
    if "dynamo" in options:
        return bool(options.pop("dynamo"))
    return _has_dynamo(torch)


def _has_dynamo(torch):
    return "dynamo" in inspect.signature(torch.onnx.export).parameters


def _export_into(torch, model, args, kwargs, path, dynamo, dynamic_shapes, dynamic_axes,
                 examples, options):
    if dynamo:
        torch.onnx.export(model, args, path, kwargs=kwargs or None, dynamic_shapes=dynamic_shapes,
                          dynamic_axes=dynamic_axes, dynamo=True, **options)
        return
    if dynamic_shapes is not None:
        raise TypeError("dynamic_shapes needs the dynamo exporter (torch 2.5 or later); "
                        "torch %s exports with TorchScript: pass dynamic_axes" % torch.__version__)
    options.setdefault("input_names", [e.name for e in examples])
    if _has_dynamo(torch):
        options["dynamo"] = False  # torch 2.9 and later default to the dynamo exporter
    torch.onnx.export(model, args + ((kwargs,) if kwargs else ()), path,
                      dynamic_axes=dynamic_axes, **options)


def _write(torch, target, export):
    """Runs export(path) into a fresh directory beside `target`, then moves what it wrote
    (the model and any external data, whose references are relative) into place, the model
    last: a failed export leaves nothing behind."""
    directory = os.path.dirname(os.path.abspath(target))
    scratch = tempfile.mkdtemp(prefix=".onnx-shapelint-", dir=directory)
    try:
        written = os.path.join(scratch, os.path.basename(target))
        export(written)
        names = sorted(os.listdir(scratch), key=lambda n: n == os.path.basename(target))
        for name in names:
            os.replace(os.path.join(scratch, name), os.path.join(directory, name))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _finding(rule, name, severity, message, notes, fix, symbols, counterexample=None):
    return {"rule": rule, "name": name, "severity": severity, "message": message, "node": None,
            "attribute": None, "symbols": symbols, "witness": None,
            "counterexample": counterexample,
            "notes": [{"message": n, "node": None} for n in notes], "fix": fix,
            "expressions": [], "source": None}


def _static_axis_finding(graph_name, r, size, shapes):
    asked = "'%s'" % r.name if r.name else "dynamic"
    moved = size + 1
    inputs = {n: list(s) for n, s in shapes.items()}
    inputs[graph_name][r.axis] = moved
    symbol = r.name or "%s:%d" % (graph_name, r.axis)
    notes = []
    if r.example.shape[r.axis] < MIN_DYNAMIC_EXAMPLE_SIZE:
        notes.append("torch.export specializes sizes 0 and 1 of the example: its size here is %d"
                     % r.example.shape[r.axis])
    else:
        notes.append("the trace fixed the size: Python arithmetic on it, int(...), or a check "
                     "that compares it with a number")
    notes.append("the other rules lint this axis as dynamic, as asked")
    fix = ("export with an example of size 2 or more on this axis"
           if r.example.shape[r.axis] < MIN_DYNAMIC_EXAMPLE_SIZE else
           "keep the size a tensor in forward; export with Dim.DYNAMIC to make torch name the "
           "line that fixes it")
    counterexample = {"binding": {symbol: moved}, "inputs": inputs, "failing_node": None,
                      "failure": "the model declares axis %d of '%s' as %d" % (r.axis,
                                                                               graph_name, size),
                      "node_fails": True, "outputs": []}
    return _finding("ST001", "requested-axis-static", "error",
                    "input '%s' axis %d was asked to be %s, but the model declares it static: %d"
                    % (graph_name, r.axis, asked, size), notes, fix, [symbol], counterexample)


# The sizes ST001 tries before concluding that the module takes only the declared one: the next
# size, then the next multiples of the strides a network usually downsamples by (a UNet that
# halves its map four times runs at multiples of 16 only), then twice the size. The first that
# eager PyTorch runs is the counterexample; where it refuses them all, the module's contract is
# the declared size (settle_requests).
_STATIC_AXIS_MULTIPLES = (2, 4, 8, 16, 32)


def static_axis_sizes(size, low=None, high=None):
    """The sizes to try on an axis that came out static at `size`, in order, within the bounds
    the caller asked for."""
    sizes = [size + 1] + [size - size % m + m for m in _STATIC_AXIS_MULTIPLES] + [size * 2]
    out = []
    for s in sizes:
        if s not in out and s != size and (low is None or s >= low) and (high is None or
                                                                         s <= high):
            out.append(s)
    return out


def _moved_inputs(shapes, axes, moved):
    inputs = {n: list(s) for n, s in shapes.items()}
    for name, axis in axes:
        inputs[name][axis] = moved
    return inputs


def _settle_static_sizes(runner, static, shapes):
    """Moves each ST001 counterexample to the first size of static_axis_sizes that eager
    PyTorch runs at, so that a module that takes only even sizes (stride 2) is not read as one
    that takes only the declared size. `static` holds (finding, [(input, axis)], size, request);
    the axes of one request name move together. Where eager refuses every size, the
    counterexample stays at the next size and the finding says which sizes were tried."""
    if runner.eager is None:
        return
    for finding, axes, size, r in static:
        tried = static_axis_sizes(size, r.low, r.high)
        for moved in tried:
            inputs = _moved_inputs(shapes, axes, moved)
            if not runner.eager_fails(inputs, _confirm.SEED):
                finding["counterexample"].update(binding={finding["symbols"][0]: moved},
                                                 inputs=inputs)
                break
        else:
            if len(tried) > 1:
                finding["notes"].append({"message": "PyTorch refuses every size tried on this "
                                         "axis: %s" % ", ".join(map(str, tried)), "node": None})


def _narrowed_finding(graph_name, r, symbol, recorded):
    low, high = recorded
    text = "[%s, %s]" % (low, "int_oo" if high is None else high)
    return _finding("ST002", "requested-axis-narrowed", "warning",
                    "input '%s' axis %d (%s) was asked to be dynamic, but torch.export recorded "
                    "%s in %s: the exported program is claimed only there"
                    % (graph_name, r.axis, r.name or symbol, symbol, text),
                    ["a guard in forward (a comparison, a slice of a fixed table) narrowed the "
                     "range; the counterexamples keep to it"],
                    "give the range you mean with Dim(name, min=..., max=...), or remove the "
                    "guard", [symbol])


def _narrowed(r, recorded):
    low, high = recorded
    if low is not None and high is not None and low == high:
        return False  # one size: SL011 reports it, with what the trace computed there
    low_asked = max(r.low or 0, MIN_DYNAMIC_EXAMPLE_SIZE)
    too_high = high is not None and (r.high is None or high < r.high)
    return too_high or (low is not None and low > low_asked)


def _outside(r, recorded):
    """The size just outside the recorded range, on the side that is narrower than asked."""
    low, high = recorded
    if high is not None and (r.high is None or high < r.high):
        return high + 1
    return low - 1


def _settle_narrowed(report, runner, narrowed, shapes):
    """Runs the size just outside a range torch.export narrowed. Where PyTorch refuses it too (a
    reflection pad wider than the input), the range is the module's contract, not a bake: ST002
    becomes a note. Where PyTorch runs and ONNX Runtime disagrees (a Python branch on the size,
    taken at the export size), the run is a counterexample: ST002 becomes an error."""
    for finding, graph_name, axis, size in narrowed:
        if size < 0:
            continue
        moved = {n: list(s) for n, s in shapes.items()}
        moved[graph_name][axis] = size
        ort, eager = runner.run(moved, _confirm.SEED + 3)
        symbol = finding["symbols"][0]
        if eager is not None and eager.error:
            report.settle(finding, "note", "PyTorch refuses %s = %d too (%s): the range is the "
                          "module's own" % (symbol, size, eager.error),
                          "nothing to fix in the export; the range is the module's contract")
        elif ort is not None and eager is not None:
            row = dict(binding={symbol: size}, inputs=moved, **_confirm.compare_run(ort, eager))
            if row["verdict"] == "disagree":
                _confirm.promote(report, finding, row, "%s=%d" % (symbol, size))


class _Eager:
    """The module run on feeds {graph input name: array}, the examples replaced by them. Each
    run starts from the module's state before the first: a module may change its own
    attributes for the input it sees (HF Swin sets its window to a small image's size), which
    would make every later run a run of another module."""

    def __init__(self, torch, model, args, kwargs, matched):
        self.torch, self.model, self.matched = torch, model, matched
        self.args, self.kwargs = args, kwargs
        self.state = _attributes(model)

    def __call__(self, feeds):
        args, kwargs = list(self.args), dict(self.kwargs)
        for name, example in self.matched.items():
            tensor = self.torch.from_numpy(feeds[name]).to(example.tensor.device)
            (where, index), rest = example.where[0], example.where[1:]
            box = args if where == "args" else kwargs
            if rest:
                inner = list(box[index])
                inner[rest[0]] = tensor
                box[index] = type(box[index])(inner)
            else:
                box[index] = tensor
        try:
            with self.torch.no_grad():
                out = self.model(*args, **kwargs)
        finally:
            _restore(self.state)
        return [t for t in _flatten(out) if t is not None]


# The containers of a torch.nn.Module's parameters, buffers and submodules, restored by content.
_CONTAINERS = ("_parameters", "_buffers", "_modules")


def _attributes(model):
    """Each submodule's attributes (not `model.modules()`'s tensors' values: in eval mode a
    forward replaces attributes, it does not write into buffers)."""
    modules = model.modules() if hasattr(model, "modules") else []
    return [(m, {k: dict(v) if k in _CONTAINERS else v for k, v in vars(m).items()})
            for m in modules]


def _restore(state):
    for module, attributes in state:
        current = vars(module)
        for key in [k for k in current if k not in attributes]:
            del current[key]
        for key, value in attributes.items():
            if key in _CONTAINERS:
                current[key].clear()
                current[key].update(value)
            else:
                current[key] = value


def _flatten(value):
    if _is_tensor(value):
        return [value]
    if isinstance(value, dict) or hasattr(value, "to_tuple"):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flatten(v)]
    return []


def _kinds(inputs, matched):
    kinds = {}
    for i in inputs:
        example = matched.get(i["name"])
        try:
            kinds[i["name"]] = _runs.InputKind.of_array(example.tensor.detach().cpu().numpy())
        except (AttributeError, TypeError, RuntimeError):  # no example, or bfloat16
            kinds[i["name"]] = _runs.InputKind.of_onnx_type(i["elem_type"])
    return kinds


# The model metadata entry the runs that settled a finding are recorded in (docs/severity.md,
# evidence "run"); the linter reads it wherever the file is linted.
RUNS_KEY = "onnx_shapelint.runs"


def run_records(report, versions):
    """The runs that settled a warning or note of the linter, as the records the linter reads:
    rule, node, attribute, binding, inputs, detail, and verdict: "disagree" where they made it an
    error, "agree" where they refuted its hypothesis (a note: the module's own)."""
    records = []
    for f in report.findings:
        c = f.get("confirmation") or {}
        linted = c.get("linted")
        if f["rule"].startswith("ST") or not linted or not f.get("node"):
            continue
        if f["severity"] == "error" and linted["severity"] != "error":
            example, verdict = f.get("counterexample") or {}, "disagree"
            if not example:
                continue
        elif f["severity"] == "note" and linted["severity"] == "warning":
            example, verdict = {"binding": (f.get("counterexample") or {}).get("binding"),
                                "inputs": c.get("inputs")}, "agree"
        else:
            continue
        records.append({"rule": f["rule"], "node": f["node"]["label"],
                        "attribute": f.get("attribute") or "",
                        "binding": dict(example.get("binding") or {}),
                        "inputs": {n: list(d) for n, d in (example.get("inputs") or {}).items()},
                        "detail": c.get("detail") or example.get("failure") or "",
                        "node_fails": bool(example.get("node_fails")), "verdict": verdict,
                        "versions": versions})
    return records


def _record_runs(report, target, torch_version):
    """Writes the runs that settled findings into the model's metadata (RUNS_KEY), atomically:
    `onnx-shapelint` and `fix` on the file then give the severities export() gave."""
    versions = "torch %s, onnxruntime %s" % (torch_version, _runs.ort_version() or "none")
    records = run_records(report, versions)
    if not records:
        return
    import json

    with open(target, "rb") as f:
        data = _core.with_model_metadata(f.read(), RUNS_KEY, json.dumps(records, sort_keys=True))
    _fix.write_atomically(target, data)
    report.recorded_runs = records


def export(model, args, kwargs=None, *, dynamic_shapes=None, dynamic_axes=None, f=None,
           confirm=True, select=None, ignore=None, record_runs=True, **export_options):
    """Exports `model` with torch.onnx.export and lints the file: a Report.

    args, kwargs, dynamic_shapes, dynamic_axes and export_options go to torch.onnx.export (the
    dynamo exporter where torch has it and export_options does not say dynamo=False). f is
    the file to write (a temporary directory's model.onnx when None). confirm runs each
    error's counterexample and a few nearby sizes on ONNX Runtime and the eager module.
    record_runs writes the runs that made a finding an error into the file's metadata
    (onnx_shapelint.runs), so that linting or fixing the file later gives the same severity.
    """
    import torch

    args = args if isinstance(args, tuple) else (args,)
    kwargs = dict(kwargs or {})
    options = dict(export_options)
    examples = examples_of(model, args, kwargs)
    dynamo = _use_dynamo(torch, options)
    target = os.fspath(f) if f is not None else os.path.join(
        tempfile.mkdtemp(prefix="onnx-shapelint-"), "model.onnx")
    started = time.perf_counter()
    _write(torch, target, lambda path: _export_into(
        torch, model, args, kwargs, path, dynamo, dynamic_shapes, dynamic_axes, examples,
        options))
    exported = time.perf_counter()

    inputs = _core.inputs(target)
    matched = _match(examples, inputs)
    example_name = {id(e): n for n, e in matched.items()}
    shapes = {n: e.shape for n, e in matched.items()}
    declared = {i["name"]: i for i in inputs}
    extra, dynamic, narrowed, static = [], [], [], []
    requested = requested_axes(examples, dynamic_shapes, dynamic_axes,
                               options.get("input_names"))
    for r in requested:
        graph_name = example_name.get(id(r.example))
        if graph_name is None or declared[graph_name]["dims"] is None:
            continue
        dim = declared[graph_name]["dims"][r.axis]
        if isinstance(dim, int):
            extra.append(_static_axis_finding(graph_name, r, dim, shapes))
            dynamic.append((graph_name, r.axis, r.name) if r.name else (graph_name, r.axis))
            static.append((extra[-1], [(graph_name, r.axis)], dim, r))
        elif isinstance(dim, str) and dim in declared[graph_name]["ranges"]:
            recorded = declared[graph_name]["ranges"][dim]
            if _narrowed(r, recorded):
                extra.append(_narrowed_finding(graph_name, r, dim, recorded))
                narrowed.append((extra[-1], graph_name, r.axis, _outside(r, recorded)))

    # Axes asked for under one name are one size: they move together.
    own = [(axes[0], r) for _, axes, _, r in static]
    for _, axes, _, r in static:
        axes[:] = [axis for axis, other in own
                   if other is r or (r.name and other.name == r.name)]
    export_dims = ["%s=%s" % (n, "x".join(str(d) for d in s)) for n, s in shapes.items()]
    report = Report.of_file(target, export_dims=export_dims or None, dynamic=dynamic or None,
                            select=select, ignore=ignore)
    for finding in extra:
        report.add(finding)
    report.exporter = "dynamo" if dynamo else "torchscript"
    report.probes = []
    linted = time.perf_counter()
    if confirm:
        relaxed = {}
        for axis in dynamic:
            relaxed.setdefault(axis[0], []).append(axis[1])
        with _confirm.Runner(target, _kinds(inputs, matched),
                             _Eager(torch, model, args, kwargs, matched), relaxed) as runner:
            _settle_static_sizes(runner, static, shapes)
            _confirm.confirm_findings(report, runner, control=shapes)
            centre = {}
            for name, shape in shapes.items():
                for d, size in zip(declared[name]["dims"] or [], shape):
                    if isinstance(d, str):
                        centre.setdefault(d, size)
            _confirm.confirm_limits(report, runner, centre)
            _confirm.confirm_warnings(report, runner, centre)
            report.probes = _confirm.dynamic_check(report, target, runner, centre,
                                                   _confirm.ranges_of(inputs))
            _confirm.settle_hypotheses(report)
            _settle_narrowed(report, runner, narrowed, shapes)
            report.runs = runner.runs
    _confirm.settle_requests(report)
    if record_runs:
        _record_runs(report, target, torch.__version__)
    # Seconds spent in each step: what checking costs next to the export itself.
    report.timings = {"export": exported - started, "lint": linted - exported,
                      "confirm": time.perf_counter() - linted}
    return report


def assert_dynamic(model, args, kwargs=None, **options):
    """export() for tests: raises AssertionError with the text report when the export has an
    error-level finding (or a confirmed counterexample); returns the Report otherwise."""
    report = export(model, args, kwargs, **options)
    if not report.ok:
        raise AssertionError("the export is not dynamic where it was asked to be:\n%s" % report)
    return report
