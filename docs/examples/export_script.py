#!/usr/bin/env python3
"""The export-script workflow (docs/python.md): export and check in one call.

Classifier flattens its features with x.view(int(x.size(0)), -1), a common idiom: the exporter
records int(x.size(0)) as the example's batch, 2, so the exported model mixes the samples of
any other batch. onnx_shapelint.torch.export() exports it, lints the file with the example
sizes, and runs the counterexample (on ONNX Runtime when it is installed, and on the module):
the report names the Reshape and the line.

FlatClassifier uses x.flatten(1) and comes out clean.

Run it with the package on the path (PYTHONPATH=build/python python3 docs/examples/export_script.py)
or after pip install. It works with torch 1.13 (TorchScript) and torch 2.x (dynamo), and exits
with 0 when both models behave as described here, 1 otherwise.
"""

import os
import sys
import tempfile

import torch

import onnx_shapelint
import onnx_shapelint.torch


class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, kernel_size=3, padding=1)
        self.fc = torch.nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        features = self.conv(x)
        return self.fc(features.view(int(features.size(0)), -1))


class FlatClassifier(Classifier):
    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


def batch_dynamic():
    """The batch axis of x dynamic, as this torch's default exporter takes it."""
    if hasattr(torch, "export") and hasattr(torch.export, "Dim"):
        return {"dynamic_shapes": {"x": {0: torch.export.Dim.AUTO}}}
    return {"dynamic_axes": {"x": {0: "batch"}}}


def main():
    example = torch.randn(2, 3, 8, 8)
    with tempfile.TemporaryDirectory() as tmp:
        report = onnx_shapelint.torch.export(Classifier().eval(), (example,),
                                             f=os.path.join(tmp, "classifier.onnx"),
                                             **batch_dynamic())
        print(report)  # the text report, each error with its verdict
        try:
            report.raise_for_errors()
            sys.exit("classifier.onnx: expected an error")
        except onnx_shapelint.LintError as error:
            rules = [f["rule"] for f in error.findings if f["severity"] == "error"]
            if rules != ["SL002"]:
                sys.exit(f"classifier.onnx: expected SL002, got {rules}")
            if error.findings[0]["confirmation"]["verdict"] != "confirmed":
                sys.exit("classifier.onnx: the counterexample was not confirmed")

        report = onnx_shapelint.torch.export(FlatClassifier().eval(), (example,),
                                             f=os.path.join(tmp, "flat.onnx"),
                                             **batch_dynamic())
        print(f"\n{report!r}")
        report.raise_for_errors()


if __name__ == "__main__":
    main()
