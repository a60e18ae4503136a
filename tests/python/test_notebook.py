"""The notebook page (docs/python.md, "The report"), in a real Jupyter kernel: a notebook is run
cell by cell by nbclient on an IPython kernel of this interpreter, as Jupyter runs it, and the
outputs the kernel sends back are what a notebook shows. No browser: how the page looks is
report.html_browser's; that its style stays inside it is test_confirm's."""

import importlib.util
import json
import os
import pathlib
import sys
import tempfile
import textwrap
import unittest

from shapelint_testing import POOL

HAS_KERNEL = all(importlib.util.find_spec(m) is not None
                 for m in ("nbclient", "nbformat", "ipykernel"))
HAS_TORCH = importlib.util.find_spec("torch") is not None
NEEDS_KERNEL = "needs python3-nbclient, python3-nbformat and python3-ipykernel"


def run_notebook(cells, directory):
    """Runs `cells` (source strings) in a fresh kernel of this interpreter; the executed
    notebook. The kernel inherits the environment (PYTHONPATH: this build's module)."""
    import nbclient
    import nbformat

    # A kernel spec of our own, so that the kernel is this interpreter whatever Jupyter has
    # installed; Jupyter's and IPython's state go to the temporary directory, not $HOME.
    spec = pathlib.Path(directory, "jupyter", "kernels", "shapelint-test")
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "onnx-shapelint test", "language": "python"}))
    os.environ.update(JUPYTER_PATH=str(spec.parents[1]),
                      JUPYTER_RUNTIME_DIR=str(pathlib.Path(directory, "runtime")),
                      IPYTHONDIR=str(pathlib.Path(directory, "ipython")))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(textwrap.dedent(c)) for c in cells]
    client = nbclient.NotebookClient(nb, kernel_name="shapelint-test", timeout=300,
                                     resources={"metadata": {"path": directory}})
    client.execute()  # raises CellExecutionError, with the traceback, when a cell fails
    return nb


def shown(cell):
    """The rich output of a cell's last expression, as the kernel sent it: {mime type: text}."""
    results = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
    if len(results) != 1:
        raise AssertionError("expected one displayed result, got %r" % cell.outputs)
    return results[0].data


@unittest.skipUnless(HAS_KERNEL, NEEDS_KERNEL)
class NotebookTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))

    def test_a_report_is_shown_as_the_html_page(self):
        nb = run_notebook([
            "import onnx_shapelint.confirm",
            "report = onnx_shapelint.confirm.confirm(%r)\nreport" % str(POOL),
            "print(report.ok, [f['rule'] for f in report.findings])",
        ], self.dir.name)
        data = shown(nb.cells[1])
        page = data["text/html"]
        # One element the notebook puts in its page, with the finding and its drawing.
        self.assertTrue(page.startswith('<div class="onnx-shapelint">\n<style>'), page[:80])
        self.assertIn("SL001", page)
        self.assertEqual(page.count("<svg"), 1)
        self.assertRegex(data["text/plain"], r"^<onnx_shapelint.Report .*adaptive_avg_pool2d")
        # The kernel keeps the report as an object: the next cell reads it.
        self.assertEqual(nb.cells[2].outputs[0].text, "False ['SL001']\n")

    @unittest.skipUnless(HAS_TORCH, "needs python3-torch")
    def test_export_in_a_notebook_page(self):
        # x.view(int(x.size(0)), -1) exported with the torch at hand: the page shows SL002 and
        # the section of the runs (the verdict of running batch 3 on the module).
        nb = run_notebook([
            """\
            import torch
            import onnx_shapelint.torch as shapelint_torch

            class View(torch.nn.Module):
                def forward(self, x):
                    return x.view(int(x.size(0)), -1)
            """,
            """\
            dynamo = shapelint_torch._use_dynamo(torch, {})
            axes = ({"dynamic_shapes": {"x": {0: torch.export.Dim.AUTO}}} if dynamo else
                    {"dynamic_axes": {"x": {0: "batch"}}})
            report = shapelint_torch.export(View(), (torch.randn(2, 3, 4, 4),), f=%r, **axes)
            report
            """ % os.path.join(self.dir.name, "view.onnx"),
        ], self.dir.name)
        page = shown(nb.cells[1])["text/html"]
        self.assertTrue(page.startswith('<div class="onnx-shapelint">'), page[:80])
        self.assertIn("SL002", page)
        runs = page[page.index('<section id="runs">'):page.index("</main>")]
        self.assertIn("<td>SL002</td><td>error</td>", runs)
        self.assertTrue(os.path.exists(os.path.join(self.dir.name, "view.onnx")))


if __name__ == "__main__":
    unittest.main()
