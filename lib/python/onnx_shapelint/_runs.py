"""Running a model at given input shapes: inputs like the example's, ONNX Runtime, comparison.

numpy is needed here (ONNX Runtime and torch need it anyway). ONNX Runtime runs in a process of
its own (_ort_worker.py), started when a run is asked for.
"""

import atexit
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import threading

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


_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ort_worker.py")


class OrtCrash(Exception):
    """The runtime's process ended without answering (a signal, an abort)."""


class _Worker:
    """One runtime process (_ort_worker.py) and the pipe to it, shared by the sessions of a
    caller: started on the first request, and again on the first request after a crash, which
    counts a new `generation` (the sessions of the old one are gone with it)."""

    def __init__(self, command):
        self.command = command
        self.generation = 0
        self._process = None
        self._lock = threading.Lock()

    def request(self, message):
        """The worker's answer to `message`; raises OrtCrash when the process dies first."""
        with self._lock:
            if self._process is None:
                self._process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                                 stdout=subprocess.PIPE)
            try:
                pickle.dump(message, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                self._process.stdin.flush()
                return pickle.load(self._process.stdout)
            except (EOFError, pickle.UnpicklingError, OSError):
                process, self._process = self._process, None
                self.generation += 1
                raise OrtCrash(_ended(process)) from None

    def close(self):
        with self._lock:
            process, self._process = self._process, None
            if process is not None:
                self.generation += 1  # its sessions end with it
        if process is not None:
            _ended(process)


def _ended(process):
    """How `process` ended, once its pipes are closed (which ends a worker that still runs)."""
    for stream in (process.stdin, process.stdout):
        try:
            stream.close()
        except OSError:  # the pipe of a process that died
            pass
    try:
        code = process.wait(timeout=_CLOSE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        code = process.wait()
    if code < 0:
        try:
            return "killed by " + signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit status %d" % code


# How long a worker may take to end once its input is closed, before it is killed.
_CLOSE_SECONDS = 10

_workers = {}
_workers_lock = threading.Lock()


def _worker(command):
    with _workers_lock:
        if command not in _workers:
            _workers[command] = _Worker(list(command))
        return _workers[command]


@atexit.register
def close_workers():
    """Ends the runtime processes (at exit; the next run starts them again)."""
    with _workers_lock:
        workers = list(_workers.values())
    for worker in workers:
        worker.close()


class OrtProcess:
    """An ONNX Runtime CPU session on a model, served by a process of its own (_ort_worker.py)
    shared by all sessions, so that a crash of the runtime is a failing run rather than the end
    of the caller's process. Starting the process costs about 0.1 s, once.

    path         the model (its external data is read by ORT, relative to it)
    model_bytes  None, or a serialized model to run instead of the file: it is written beside
                 `path` (its external data is referenced relative to it) and removed as soon as
                 the session is built, here and each time it is built again
    command      the interpreter and script that serve sessions (tests replace them)

    Raises RuntimeError with ORT's message when the model cannot be loaded. After a crash, the
    next run builds the session again in a new process. close() drops the session."""

    def __init__(self, path, model_bytes=None, command=None):
        self._path, self._model_bytes = path, model_bytes
        self._worker = _worker(tuple(command or (sys.executable, _WORKER)))
        self._id = None
        try:
            self._load()
        except OrtCrash as crash:
            raise RuntimeError("ONNX Runtime crashed loading the model (%s)" % crash) from None

    def run(self, feeds):
        """The Outcome of running the model on `feeds` ({input name: array})."""
        try:
            if self._id is None or self._generation != self._worker.generation:
                self._load()
            kind, value = self._worker.request(("run", self._id, feeds))
        except OrtCrash as crash:
            self._id = None
            return Outcome(error="ONNX Runtime crashed (%s)" % crash)
        except RuntimeError as error:  # built again, the session no longer loads
            return Outcome(error=first_line(error, 400))
        if kind == "outputs":
            return Outcome(value)
        if kind == "internal":
            return Outcome(error=first_line(value, 400), internal=True)
        return failure(value)

    def close(self):
        if self._id is not None and self._generation == self._worker.generation:
            try:
                self._worker.request(("drop", self._id))
            except OrtCrash:  # the process is gone, and the session with it
                pass
        self._id = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # at the interpreter's exit the pipe may be gone already
            pass

    def _load(self):
        copy = None
        target = self._path
        if self._model_bytes is not None:
            fd, copy = tempfile.mkstemp(suffix=".onnx", prefix=".onnx-shapelint-",
                                        dir=os.path.dirname(os.path.abspath(self._path)))
            with os.fdopen(fd, "wb") as f:
                f.write(self._model_bytes)
            target = copy
        try:
            kind, value = self._worker.request(("load", target))
        finally:
            if copy is not None:
                os.unlink(copy)
        if kind != "ready":
            raise RuntimeError(value)
        self._id, self._generation = value, self._worker.generation


def relaxed_session(path, axes):
    """A session on a copy of the model whose input axes `axes` ({input: [axis, ...]}) are
    declared dynamic: the graph at sizes the file's declaration refuses, as the linter analyses
    it when told an axis is meant to vary. None when onnx is not importable."""
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
    return OrtProcess(path, model.SerializeToString())


class Outcome:
    """One side of a run: the outputs, or the error and (for ORT) the node it names. `internal`
    marks an error raised outside the runtime (see _ort_worker._failure_kind): the run says
    nothing of the model."""

    def __init__(self, outputs=None, error=None, node=None, internal=False):
        self.outputs, self.error, self.node = outputs, error, node
        self.internal = internal

    @property
    def shapes(self):
        return [tuple(o.shape) for o in self.outputs] if self.outputs is not None else None


def at_node(ort, node):
    """Whether the ONNX Runtime failure `ort` (an Outcome) is at the model's node `node`, or at
    a node its graph optimizations fused from it: a MatMul of a transposed operand fails as
    "NODE/MatmulTransposeFusion/"."""
    return bool(ort.node) and (ort.node == node or ort.node.startswith(node + "/"))


def first_line(error, limit=300):
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def failure(message):
    """The Outcome of a run ORT refused, with the node its message names."""
    message = " ".join(str(message).split())
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


def undefined_in(want, got):
    """Whether an output of `want` holds NaN where `got`, of the same shape, holds a number."""
    for g, w in zip(got, want):
        if g.shape == w.shape and w.dtype.kind in "fc" and \
                (np.isnan(w) & ~np.isnan(np.asarray(g, dtype=w.dtype))).any():
            return True
    return False


def shape_text(shapes):
    """(2, 3, 2, 4) for one output, [(2, 3), (2,)] for several."""
    if shapes is None:
        return "nothing"
    if len(shapes) == 1:
        return str(tuple(shapes[0])).replace(",)", ")")
    return "[%s]" % ", ".join(str(tuple(s)).replace(",)", ")") for s in shapes)
