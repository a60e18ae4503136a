"""Static linter for sizes of the example input baked into ONNX models (docs/python.md).

lint(model, **options) returns the findings; check(model, fail_on="error", **options) raises
LintError when one is at or above fail_on. onnx_shapelint.torch exports a PyTorch module and
checks the result in one call; onnx_shapelint.confirm runs counterexamples on ONNX Runtime; fix(model, output) repairs
what can be (docs/fix.md).
"""

from onnx_shapelint._core import LintError, __version__, check, lint, rules
from onnx_shapelint._fix import FixResult, fix
from onnx_shapelint._report import Report

__all__ = ["FixResult", "LintError", "Report", "__version__", "check", "fix", "lint", "rules"]
