"""Running a model at given input shapes: inputs like the example's, ONNX Runtime, comparison.

numpy is needed here (ONNX Runtime and torch need it anyway); onnxruntime is imported only
when a run is asked for.
"""

import os
import re
import tempfile

import numpy as np

# Values agree when np.allclose(ort, eager, rtol=RTOL, atol=ATOL + RTOL * max|eager|), exactly
# for integers and booleans: float32 kernels of ORT and PyTorch differ in summation order.
RTOL = 1e-3
ATOL = 1e-4

# ONNX's TensorProto.DataType numbers -> numpy dtypes, for inputs no example describes.
_ONNX_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
                9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}

_ORT_NODE = re.compile(r"Name:'([^']*)'")
_ORT_STATUS = "Status Message: "


class InputKind:
    """How to fill one input at another shape: its dtype, and the values the example holds.

    Integers keep to the example's range (token ids stay below the vocabulary size); an input
    whose example holds one value (an all-ones attention mask) is filled with that value (masks
    stay masks); floats are drawn with the example's mean and spread.
    """

    def __init__(self, dtype, low=0.0, high=1.0, constant=None, mean=0.0, std=1.0):
        self.dtype = np.dtype(dtype)
        self.low, self.high, self.constant = low, high, constant
        self.mean, self.std = mean, std

    @classmethod
    def of_array(cls, array):
        a = np.asarray(array)
        if a.size == 0:
            return cls(a.dtype)
        if a.dtype.kind in "biu":
            low, high = a.min().item(), a.max().item()
            return cls(a.dtype, low, high, constant=low if low == high else None)
        finite = a[np.isfinite(a)].astype(np.float64)
        if finite.size == 0:
            return cls(a.dtype)
        return cls(a.dtype, mean=float(finite.mean()), std=float(finite.std()) or 1.0)

    @classmethod
    def of_onnx_type(cls, elem_type):
        dtype = _ONNX_DTYPES.get(elem_type, np.float32)
        if np.dtype(dtype).kind == "b":
            return cls(dtype, constant=True)
        return cls(dtype, 0, 1) if np.dtype(dtype).kind in "iu" else cls(dtype)

    def make(self, shape, rng):
        shape = tuple(int(d) for d in shape)
        if self.constant is not None:
            return np.full(shape, self.constant, dtype=self.dtype)
        if self.dtype.kind == "b":
            return rng.random(shape) < 0.5
        if self.dtype.kind in "iu":
            return rng.integers(self.low, self.high + 1, size=shape).astype(self.dtype)
        return (rng.standard_normal(shape) * self.std + self.mean).astype(self.dtype)


def make_inputs(kinds, shapes, seed):
    """{name: array} for the inputs `kinds` describes ({name: InputKind}), at `shapes`."""
    rng = np.random.default_rng(seed)
    return {name: kinds[name].make(shapes[name], rng) for name in kinds}


def ort_version():
    """onnxruntime's version, or None when it cannot be imported."""
    try:
        import onnxruntime
    except ImportError:
        return None
    return onnxruntime.__version__


def ort_session(path):
    """An ONNX Runtime CPU session on the model at `path` (external data is read by ORT)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # failures are reported per run; ORT's log is noise here
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def relaxed_session(path, axes):
    """A session on a copy of the model whose input axes `axes` ({input: [axis, ...]}) are
    declared dynamic: the graph at sizes the file's declaration refuses, as the linter analyses
    it when told an axis is meant to vary. None when onnx is not importable. The copy is written
    beside the model (its external data is referenced relative to it) and removed once ORT has
    read it."""
    try:
        import onnx
    except ImportError:
        return None
    model = onnx.load(path, load_external_data=False)
    for value in model.graph.input:
        for axis in axes.get(value.name, ()):
            dim = value.type.tensor_type.shape.dim[axis]
            dim.Clear()
            dim.dim_param = "%s_relaxed_%d" % (value.name, axis)
    fd, copy = tempfile.mkstemp(suffix=".onnx", prefix=".onnx-shapelint-",
                                dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(model.SerializeToString())
        return ort_session(copy)
    finally:
        os.unlink(copy)


class Outcome:
    """One side of a run: the outputs, or the error and (for ORT) the node it names."""

    def __init__(self, outputs=None, error=None, node=None):
        self.outputs, self.error, self.node = outputs, error, node

    @property
    def shapes(self):
        return [tuple(o.shape) for o in self.outputs] if self.outputs is not None else None


def first_line(error, limit=300):
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def run_ort(session, feeds):
    try:
        return Outcome([np.asarray(o) for o in session.run(None, feeds)])
    except Exception as error:  # ORT raises its own types; any of them is a failing run
        message = " ".join(str(error).split())
        match = _ORT_NODE.search(message)
        # "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while
        # running Gemm node. Name:'fc' Status Message: GEMM: Dimension mismatch...": the node
        # is named apart, the status message is the reason.
        reason = message.split(_ORT_STATUS, 1)[-1]
        return Outcome(error=first_line(reason, 400), node=match.group(1) if match else None)


def compare(want, got):
    """(same, detail) of outputs `got` against `want`: shapes, then values."""
    if len(got) != len(want):
        return False, "%d outputs, not %d" % (len(got), len(want))
    for g, w in zip(got, want):
        if g.shape != w.shape:
            return False, "shapes differ"
    worst = 0.0
    for g, w in zip(got, want):
        if w.size == 0:
            continue
        if w.dtype.kind in "fc":
            finite = np.isfinite(w)
            scale = float(np.max(np.abs(w[finite]))) if finite.any() else 0.0
            if not np.allclose(g, w, rtol=RTOL, atol=ATOL + RTOL * scale, equal_nan=True):
                both = finite & np.isfinite(g)
                diff = np.abs(g[both].astype(np.float64) - w[both]) if both.any() else [np.inf]
                worst = max(worst, float(np.max(diff)))
        elif not np.array_equal(np.asarray(g).astype(w.dtype), w):
            worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    if worst > 0.0:
        return False, "values differ (max |difference| %.3g)" % worst
    return True, "outputs agree"


def shape_text(shapes):
    """(2, 3, 2, 4) for one output, [(2, 3), (2,)] for several."""
    if shapes is None:
        return "nothing"
    if len(shapes) == 1:
        return str(tuple(shapes[0])).replace(",)", ")")
    return "[%s]" % ", ".join(str(tuple(s)).replace(",)", ")") for s in shapes)
