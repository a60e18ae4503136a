"""docs/examples/export_and_check.py and export_script.py, run as the documentation says: they
need python3-torch."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

from shapelint_testing import NEEDS_TORCH, SOURCE_DIR

EXAMPLE = SOURCE_DIR / "docs" / "examples" / "export_and_check.py"
EXPORT_SCRIPT = SOURCE_DIR / "docs" / "examples" / "export_script.py"


@unittest.skipUnless(importlib.util.find_spec("torch"), NEEDS_TORCH)
class ExampleTest(unittest.TestCase):

    def test_export_and_check(self):
        with tempfile.TemporaryDirectory() as cwd:
            run = subprocess.run([sys.executable, str(EXAMPLE)],
                                 cwd=cwd,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 check=False,
                                 timeout=300)
            # The exported models went to a temporary directory of their own.
            self.assertEqual(os.listdir(cwd), [])
        out, err = run.stdout.decode(), run.stderr.decode()
        self.assertEqual(run.returncode, 0, out + err)
        # The report of the model with the baked kernel, on the axes it was told are dynamic...
        # (main/AveragePool from torch 1.13's exporter, main/node_avg_pool2d from torch 2's)
        self.assertRegex(out, r"head\.onnx: main/[\w/]+: error\[SL001\] baked-pool-kernel: ")
        self.assertRegex(out, r"= witness: works only for height in \[\d+, \d+\] and width in ")
        self.assertIn("1 error, 0 warnings in 1 model", out)
        # ...and the fixed one, clean.
        self.assertRegex(out, r"mean_head\.onnx: 0 findings\n$")


    def test_export_script(self):
        with tempfile.TemporaryDirectory() as cwd:
            run = subprocess.run([sys.executable, str(EXPORT_SCRIPT)], cwd=cwd,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False,
                                 timeout=300)
            self.assertEqual(os.listdir(cwd), [])
        out, err = run.stdout.decode(), run.stderr.decode()
        self.assertEqual(run.returncode, 0, out + err)
        self.assertRegex(out, r"classifier\.onnx: main/\S+: error\[SL002\] baked-reshape-target: "
                         r"Reshape target \[2, -1\]")
        # Batch 3: the module returns (3, 10); the graph's literal 2 gives the Gemm 384 inputs
        # (3 * 4 * 8 * 8 / 2) where its weight takes 256.
        self.assertIn("  = confirmed: ", out)
        self.assertIn("PyTorch returns (3, 10)" if "ONNX Runtime fails" in out else
                      "PyTorch runs at these sizes and returns (3, 10)", out)
        self.assertRegex(out, r"flat\.onnx: 0 errors, 0 warnings in 1 model>\n$")

if __name__ == "__main__":
    unittest.main()
