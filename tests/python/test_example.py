"""docs/examples/export_and_check.py, run as the documentation says: it needs python3-torch."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

from shapelint_testing import SOURCE_DIR

EXAMPLE = SOURCE_DIR / "docs" / "examples" / "export_and_check.py"

# tests/CMakeLists.txt reports the test as skipped when this is printed.
NEEDS_TORCH = "needs python3-torch"


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
        self.assertRegex(out, r"head\.onnx: main/AveragePool: error\[SL001\] baked-pool-kernel: ")
        self.assertRegex(out, r"= witness: works only for height in \[\d+, \d+\] and width in ")
        self.assertIn("1 error, 0 warnings in 1 model", out)
        # ...and the fixed one, clean.
        self.assertRegex(out, r"mean_head\.onnx: 0 findings\n$")


if __name__ == "__main__":
    unittest.main()
