"""ONNX Runtime in a process of its own, for _runs.OrtProcess.

A runtime kernel can crash on sizes a model was never run at (an integer division by zero in a
pooling kernel is a SIGFPE); in the caller's process that would end the export script or the
notebook kernel. Here it ends this process, and the caller reports the run as a failure.

Run as `python _ort_worker.py`. One process serves every session of its caller. Messages are
pickled over a pipe, one answer to each request:
  ("load", path)         -> ("ready", session id) or ("error", text)
  ("run", id, {input: array})
                         -> ("outputs", [array, ...]), ("error", text) when the runtime
                            refuses the run, or ("internal", text) when it failed outside it
  ("drop", id)           -> ("dropped", None)
until its input ends. It needs onnxruntime and numpy, not the onnx_shapelint package.
"""

import os
import pickle
import sys

import numpy as np


def _replies():
    """The stream replies go to. Anything the runtime or Python prints to the standard output
    would corrupt the messages, so file descriptor 1 is pointed at the standard error and the
    replies keep a private copy of the pipe."""
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return replies


def _reply(stream, message):
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()


def _session(path):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # failures are reported per run; ORT's log is noise here
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def _no_core_dumps():
    """A crash is reported to the caller as a failing run; a core file in the caller's working
    directory would be litter."""
    try:
        import resource
    except ImportError:  # not a Unix
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _answer(sessions, request, next_id):
    """The answer to one request; `next_id` is the id a loaded session gets."""
    kind = request[0]
    if kind == "drop":
        sessions.pop(request[1], None)
        return ("dropped", None)
    if kind == "load":
        try:
            sessions[next_id] = _session(request[1])
        except Exception as error:  # a model ORT cannot load: the caller's verdict, not a crash
            return ("error", str(error))
        return ("ready", next_id)
    try:
        outputs = [np.asarray(o) for o in sessions[request[1]].run(None, request[2])]
    except Exception as error:
        kind = _failure_kind(error)
        return (kind, "%s: %s" % (type(error).__name__, error) if kind == "internal" else
                str(error))
    return ("outputs", outputs)


def _failure_kind(error):
    """"error" for a run the runtime refused (it raises exceptions of its own types), and
    "internal" for one that failed outside it: Python failing to decode the runtime's message
    (a name in the model that is not UTF-8), a feed of the wrong type. Only the first is a
    verdict on the model."""
    module = type(error).__module__ or ""
    return "error" if module.split(".")[0] == "onnxruntime" else "internal"


def main():
    _no_core_dumps()
    replies = _replies()
    requests = sys.stdin.buffer
    sessions = {}
    loaded = 0
    while True:
        try:
            request = pickle.load(requests)
        except EOFError:  # the caller is done
            return 0
        loaded += request[0] == "load"
        _reply(replies, _answer(sessions, request, loaded))


if __name__ == "__main__":
    sys.exit(main())
