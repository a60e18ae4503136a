"""onnx_shapelint.fix(): a model with its fixable findings repaired and proven (docs/fix.md)."""

import os

from onnx_shapelint import _core


class FixResult:
    """What fix() did: the fixed model's bytes, the findings fixed and those left (with why)."""

    def __init__(self, done):
        self.model = done["model"]
        self.changed = done["changed"]
        self.fixed = done["fixed"]
        self.unfixed = done["unfixed"]
        self.diff = done["diff"]
        self.notes = done["notes"]

    def __str__(self):
        lines = ["fixed %s %s '%s': %s" % (f["rule"], f["op_type"], f["node"], f["text"])
                 for f in self.fixed]
        lines += ["left %s %s %s '%s': %s" % (u["severity"], u["rule"], u["op_type"], u["node"],
                                              u["text"]) for u in self.unfixed]
        lines.append("%d fixed, %d left" % (len(self.fixed), len(self.unfixed)))
        return "\n".join(lines)


def fix(model, output=None, *, unsafe_fixes=False, **options):
    """Repairs `model` (a path, bytes, or an onnx.ModelProto) and returns a FixResult.

    With `output` (a path), the fixed model is also written there, atomically: to a temporary
    file beside it, then renamed. The input file is never written. Given a ModelProto, the
    result's `.proto` is the fixed model as one. `options` are lint()'s: select, ignore,
    export_dims, dynamic, static.
    """
    given = model
    if hasattr(model, "SerializeToString"):
        model = model.SerializeToString()
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    result = FixResult(_core.fix(model, unsafe_fixes=unsafe_fixes, **options))
    if hasattr(given, "SerializeToString"):
        proto = type(given)()
        proto.ParseFromString(result.model)
        result.proto = proto
    if output is not None:
        output = os.fspath(output)
        data = result.model
        if isinstance(model, str):  # its external data, found relative to it
            data = _core.move_external_data(data, model, output)
        _write(output, data, model if isinstance(model, str) else None)
    return result


def _write(path, data, source):
    if source is not None and os.path.exists(path) and os.path.samefile(path, source):
        raise ValueError("%s: refusing to overwrite the input" % path)
    write_atomically(path, data)


def write_atomically(path, data):
    """Writes `data` to a temporary file beside `path` and renames it over `path`: a reader
    sees the old file or the new one, never a part."""
    directory = os.path.dirname(os.path.abspath(path))
    scratch = os.path.join(directory, ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    try:
        with open(scratch, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(scratch, path)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
