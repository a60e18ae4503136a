#!/usr/bin/env python3
"""Lint a model right after torch.onnx.export, and fail when a size is baked into it.

Head pools a feature map to a 2x3 grid with F.adaptive_avg_pool2d. The exporter turns that into
an AveragePool whose kernel is computed from the example input (48x48), so at other heights and
widths the output is no longer 2x3. check() raises LintError for it.

MeanHead averages over the whole map with x.mean() instead: it works at every size, and check()
passes.

torch 1.13 refuses dynamic height and width for adaptive pooling ("input size not accessible"),
so Head is exported with a dynamic batch only; dynamic= tells the linter which axes are meant to
vary, and it lints them as dynamic.

Run it with the module on the path (docs/python.md):

    PYTHONPATH=build/python python3 docs/examples/export_and_check.py

It exits with 0 when both models behave as described here, 1 otherwise.
"""

import os
import sys
import tempfile

import torch
import torch.nn.functional as F

import onnx_shapelint


class Head(torch.nn.Module):
    """A convolution, then a 2x3 grid of averages."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(self.conv(x), (2, 3))


class MeanHead(Head):
    """The same convolution, then one average over the whole map."""

    def forward(self, x):
        return self.conv(x).mean(dim=(2, 3), keepdim=True)


def export(module, path, dynamic_axes):
    torch.onnx.export(module.eval(),
                      torch.randn(1, 3, 48, 48),
                      path,
                      input_names=["x"],
                      output_names=["y"],
                      dynamic_axes=dynamic_axes,
                      opset_version=14)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        head = os.path.join(tmp, "head.onnx")
        export(Head(), head, {"x": {0: "batch"}, "y": {0: "batch"}})
        try:
            onnx_shapelint.check(head, dynamic=["x:2=height", "x:3=width"])
        except onnx_shapelint.LintError as error:
            print(error)  # the text report
            rules = [finding["rule"] for finding in error.findings]
            if "SL001" not in rules:
                sys.exit(f"{head}: expected SL001, got {rules}")
        else:
            sys.exit(f"{head}: expected a LintError")

        mean_head = os.path.join(tmp, "mean_head.onnx")
        dynamic_axes = {"x": {0: "batch", 2: "height", 3: "width"}, "y": {0: "batch"}}
        export(MeanHead(), mean_head, dynamic_axes)
        findings = onnx_shapelint.check(mean_head)  # raises LintError if a size is baked in
        print(f"\n{mean_head}: {len(findings)} findings")


if __name__ == "__main__":
    main()
