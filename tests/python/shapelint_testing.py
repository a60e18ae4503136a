"""What the Python tests share: the source tree's models and the command line to compare with.

ctest sets PYTHONPATH to the module's build directory and this one, and SHAPELINT_CLI to the
onnx-shapelint binary of the same build (tests/CMakeLists.txt).
"""

import os
import pathlib
import subprocess
import sys
import unittest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
CORPUS = SOURCE_DIR / "tests" / "corpus"

# adaptive_avg_pool2d(x, (2, 3)) exported at 6x6 with every axis dynamic: one SL001 error
# (README.md, tests/corpus/torch/labels.json).
POOL = CORPUS / "torch" / "adaptive_avg_pool2d.onnx"
# x.flatten(1): healthy, no finding (labels.json).
CLEAN = CORPUS / "torch" / "flatten.onnx"
# x[..., :5] on a width exported at 10: an SL007 warning only when told the export sizes.
HALF_WIDTH = SOURCE_DIR / "tests" / "rules" / "SL007" / "slice_half_width_no_export_dims.onnxtxt"

# adaptive_avg_pool2d(x, (2, 3)) exported at 6x6 with every axis static: nothing is promised, so
# nothing is wrong until axes are linted as dynamic (as in tests/tools/cli_many_models_test.cc).
STATIC_POOL = b"""
<ir_version: 8, opset_import: ["" : 13]>
pool (float[1,2,6,6] x) => (float[1,2,2,3] y) {
  y = AveragePool <kernel_shape = [3, 2], strides = [3, 2]> (x)
}
"""


def cli(*args):
    """Runs onnx-shapelint with `args` and no configuration file; returns (exit code, stdout)."""
    binary = os.environ.get("SHAPELINT_CLI")
    if not binary:
        raise unittest.SkipTest("SHAPELINT_CLI is not set (ctest sets it)")
    run = subprocess.run(
        [binary, "--isolated", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    return run.returncode, run.stdout.decode()


def run_python(code, timeout=120):
    """Runs `code` in a fresh interpreter with this one's environment; returns the run."""
    return subprocess.run(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
        timeout=timeout,
    )


class FakeProto:
    """Anything with SerializeToString() is taken as an onnx.ModelProto."""

    def __init__(self, data):
        self._data = data

    def SerializeToString(self):  # pylint: disable=invalid-name
        return self._data


# tests/CMakeLists.txt reports a test as skipped when one of these is printed.
NEEDS_TORCH = "needs python3-torch"
NEEDS_ONNX = "needs python3-onnx"
