"""onnx_shapelint.torch: export and check in one call (docs/python.md), with the torch at hand:
Debian's 1.13 (TorchScript) in the suite, torch 2.x (dynamo) where SHAPELINT_EXTRA_PYTHON
names its interpreter. ONNX Runtime is used when it is importable; each test checks what the
verdicts say either way."""

import importlib.util
import os
import pathlib
import tempfile
import unittest
from unittest import mock

import onnx_shapelint
from shapelint_testing import NEEDS_TORCH

HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_ORT = importlib.util.find_spec("onnxruntime") is not None
HAS_ONNX = importlib.util.find_spec("onnx") is not None

if HAS_TORCH:
    import torch
    import onnx_shapelint.torch as shapelint_torch

    class ReshapeToInt(torch.nn.Module):
        """x.reshape(int(x.size(0)), -1): the batch of the example becomes a literal."""

        def forward(self, x):
            return x.reshape(int(x.size(0)), -1)

    class ReshapeToSize(torch.nn.Module):
        """The lookalike that stays dynamic: the size is kept a tensor."""

        def forward(self, x):
            return x.reshape(x.size(0), -1)

    class HalfWidth(torch.nn.Module):
        """x[..., :int(x.size(-1)) // 2]: a slice end of 5 at width 10, seen only when the
        linter knows the export sizes (SL007)."""

        def forward(self, x):
            return x[..., :int(x.size(-1)) // 2] * 2


def dynamo():
    return "dynamo" in __import__("inspect").signature(torch.onnx.export).parameters


def batch_axis(name="batch"):
    """Axis 0 of x dynamic, in the form this torch's default exporter takes."""
    if dynamo():
        return {"dynamic_shapes": {"x": {0: torch.export.Dim.AUTO}}}
    return {"dynamic_axes": {"x": {0: name}}}


@unittest.skipUnless(HAS_TORCH, NEEDS_TORCH)
class EagerStateTest(unittest.TestCase):
    """Each eager run starts from the module's state before the first: HF Swin sets its window
    to the size of a small image it sees, and every later run would be of another module."""

    def test_a_run_does_not_change_the_next(self):
        class ShrinkingWindow(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.window = 4
                self.register_buffer("scale", torch.ones(1))

            def forward(self, x):
                if x.size(-1) < self.window:
                    self.window = x.size(-1)  # as HF Swin's set_shift_and_window_size
                    self.scale = torch.full((1,), 2.0)
                    self.seen = True
                return x[..., :self.window] * self.scale

        module = ShrinkingWindow()
        eager = shapelint_torch._Eager(torch, module, (torch.zeros(1, 8),), {},
                                       {"x": mock.Mock(where=[("args", 0)],
                                                       tensor=torch.zeros(1, 8))})
        import numpy as np
        [small] = eager({"x": np.ones((1, 2), dtype=np.float32)})
        self.assertEqual(small.tolist(), [[2.0, 2.0]])
        [large] = eager({"x": np.ones((1, 8), dtype=np.float32)})
        self.assertEqual(large.tolist(), [[1.0] * 4])
        self.assertEqual((module.window, module.scale.item(), hasattr(module, "seen")),
                         (4, 1.0, False))


@unittest.skipUnless(HAS_TORCH, NEEDS_TORCH)
class ExportTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_baked_reshape_is_an_error_confirmed_by_running_it(self):
        report = shapelint_torch.export(ReshapeToInt(), (torch.randn(2, 3, 6, 6),),
                                        f=self.path("m.onnx"), **batch_axis())
        self.assertFalse(report.ok)
        # torch.export also records the batch specialized to 2: SL011, a warning (no node fails
        # in the graph), which the run at batch 3 on ONNX Runtime and PyTorch makes an error.
        self.assertEqual([f["rule"] for f in report.findings],
                         ["SL002", "SL011"] if dynamo() else ["SL002"])
        promoted = dynamo() and HAS_ORT
        self.assertEqual([f["rule"] for f in report.errors],
                         ["SL002", "SL011"] if promoted else ["SL002"])
        if promoted:
            self.assertEqual(report.findings[1]["confirmation"]["detail"],
                             "at s77=3: ONNX Runtime returns (2, 162), PyTorch (3, 108)"
                             .replace("s77", report.findings[1]["symbols"][0]))
        finding = report.findings[0]
        # Batch 2 moved to 3: PyTorch gives (3, 108); the graph's literal 2 gives (2, 162).
        self.assertEqual(finding["counterexample"]["inputs"], {"x": [3, 3, 6, 6]})
        confirmation = finding["confirmation"]
        self.assertEqual(confirmation["verdict"], "confirmed")
        self.assertEqual(confirmation["eager"], [[3, 108]])
        if HAS_ORT:
            self.assertEqual(confirmation["ort"], [[2, 162]])
            self.assertEqual(confirmation["detail"], "ONNX Runtime returns (2, 162), PyTorch (3, 108)")
        else:
            self.assertIn("PyTorch runs at these sizes and returns (3, 108); the graph returns "
                          "(2, 162)", confirmation["detail"])
        self.assertIn("  = confirmed: ", str(report))
        self.assertTrue(str(report).endswith(
            "2 errors, 0 warnings in 1 model" if promoted else
            "1 error, 1 warning in 1 model" if dynamo() else "1 error, 0 warnings in 1 model"))

    def test_lookalike_that_keeps_the_size_a_tensor_is_clean(self):
        report = shapelint_torch.export(ReshapeToSize(), (torch.randn(2, 3, 6, 6),),
                                        f=self.path("m.onnx"), **batch_axis())
        self.assertTrue(report.ok)
        self.assertEqual(report.findings, [])
        self.assertEqual(str(report), "0 errors, 0 warnings in 1 model")
        for probe in report.probes:  # run only with ONNX Runtime
            self.assertEqual(probe["verdict"], "agree", probe)
        self.assertIs(report.raise_for_errors(), report)

    def test_findings_are_those_of_the_linter_told_the_export_sizes(self):
        path = self.path("half.onnx")
        axes = ({"dynamic_shapes": {"x": {1: torch.export.Dim.AUTO}}} if dynamo() else
                {"dynamic_axes": {"x": {1: "width"}}})
        # Not recorded: a run that settles a finding would be in the file (test below).
        report = shapelint_torch.export(HalfWidth(), (torch.randn(2, 10),), f=path,
                                        record_runs=False, **axes)
        told = onnx_shapelint.lint(path, export_dims="x=2x10")
        plain = [f["rule"] for f in onnx_shapelint.lint(path)]
        self.assertEqual(report.as_linted(), told)
        self.assertIn("SL007", [f["rule"] for f in told])
        if not dynamo():  # torch.export records the specialized width itself
            self.assertNotIn("SL007", plain)

    @unittest.skipUnless(HAS_ORT, "needs onnxruntime")
    def test_a_run_that_settled_a_warning_is_recorded_for_lint_and_fix(self):
        # TorchScript keeps no record of the specialized width: SL007's 5 is a warning, which
        # the run at width 11 (ONNX Runtime 5 columns, PyTorch 5; at 12: 5 against 6) makes an
        # error. The file records that run, and the linter and fix read it: one severity.
        path = self.path("half.onnx")
        report = shapelint_torch.export(HalfWidth(), (torch.randn(2, 10),), f=path,
                                        dynamic_axes={"x": {1: "width"}}, dynamo=False)
        sl007 = [f for f in report.findings if f["rule"] == "SL007"]
        self.assertEqual([f["severity"] for f in sl007], ["error"])
        self.assertEqual(sl007[0]["confirmation"]["linted"]["severity"], "warning")
        linted = onnx_shapelint.lint(path, export_dims="x=2x10")
        self.assertEqual([(f["rule"], f["severity"], f["evidence"]) for f in linted],
                         [("SL007", "error", "run")])
        fixed = onnx_shapelint.fix(path, self.path("fixed.onnx"), export_dims="x=2x10")
        self.assertEqual([f["rule"] for f in fixed.fixed], ["SL007"])
        # Without the record the same file is a warning, fixed only as unsafe.
        plain = shapelint_torch.export(HalfWidth(), (torch.randn(2, 10),),
                                       f=self.path("plain.onnx"), record_runs=False,
                                       dynamic_axes={"x": {1: "width"}}, dynamo=False)
        self.assertEqual([f["severity"] for f in plain.findings if f["rule"] == "SL007"],
                         ["error"])
        self.assertEqual([f["severity"] for f in onnx_shapelint.lint(
            self.path("plain.onnx"), export_dims="x=2x10")], ["warning"])

    @unittest.skipUnless(HAS_ORT, "needs onnxruntime")
    def test_a_literal_the_runs_refute_is_recorded_as_the_modules_own(self):
        # The second of two heads of 4 features, x[..., 4:8] at width 8: its 4 equals 8 // 2,
        # SL007's hypothesis. The two sides agree at widths 9, 10 and 16 (the head stays 4
        # wide), which refutes it: a note, recorded so that the linter gives one too.
        class SecondHead(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.head = torch.nn.Linear(4, 3)

            def forward(self, x):
                return self.head(x[..., 4:8])

        path = self.path("head.onnx")
        report = shapelint_torch.export(SecondHead(), (torch.randn(2, 8),), f=path,
                                        dynamic_axes={"x": {1: "width"}}, dynamo=False)
        sl007 = [f for f in report.findings if f["rule"] == "SL007"]
        self.assertTrue(sl007)
        for f in sl007:
            self.assertEqual((f["severity"], f["confirmation"]["linted"]["severity"]),
                             ("note", "warning"))
            self.assertEqual(f["confirmation"]["detail"], "ONNX Runtime and PyTorch agree at "
                             "width=9; width=10; width=16: the literal is the module's own")
        linted = [f for f in onnx_shapelint.lint(path, export_dims="x=2x8")
                  if f["rule"] == "SL007"]
        self.assertEqual([(f["severity"], f["evidence"]) for f in linted],
                         [("note", "design")] * len(sl007))
        # Without the record the same file keeps the hypothesis.
        plain = self.path("plain.onnx")
        shapelint_torch.export(SecondHead(), (torch.randn(2, 8),), f=plain, record_runs=False,
                               dynamic_axes={"x": {1: "width"}}, dynamo=False)
        self.assertEqual({f["severity"] for f in onnx_shapelint.lint(plain, export_dims="x=2x8")
                          if f["rule"] == "SL007"}, {"warning"})

    @unittest.skipUnless(HAS_ORT, "needs onnxruntime")
    def test_a_unet_decoder_is_settled_at_the_doubled_export_sizes(self):
        # interpolate(low, size=(int(h) * 2, int(w) * 2)) + skip keeps 8 x 10 from the example.
        # Skip's rows moved alone, PyTorch refuses the sizes too (its map upsamples to 8): the
        # error is demoted. Every export size doubled keeps skip twice low, and there PyTorch
        # runs while ONNX Runtime fails: the error stands, with that run.
        class Decoder(torch.nn.Module):
            def forward(self, low, skip):
                size = (int(low.size(2)) * 2, int(low.size(3)) * 2)
                return torch.nn.functional.interpolate(low, size=size) + skip

        args = (torch.randn(2, 4, 4, 5), torch.randn(2, 4, 8, 10))
        report = shapelint_torch.export(
            Decoder(), args, f=self.path("unet.onnx"), record_runs=False, dynamo=False,
            input_names=["low", "skip"], dynamic_axes={"low": [0, 1, 2, 3],
                                                       "skip": [0, 1, 2, 3]})
        sl005 = [f for f in report.findings if f["rule"] == "SL005"]
        self.assertEqual([f["severity"] for f in sl005], ["error"])
        self.assertEqual(sl005[0]["counterexample"]["inputs"],
                         {"low": [4, 8, 8, 10], "skip": [4, 8, 16, 20]})
        self.assertEqual(sl005[0]["confirmation"]["linted"]["severity"], "error")

    def test_the_file_is_written_in_place_and_nothing_else_stays(self):
        path = self.path("model.onnx")
        report = shapelint_torch.export(ReshapeToSize(), (torch.randn(2, 3),), f=path,
                                        confirm=False, **batch_axis())
        self.assertEqual(report.path, path)
        # The dynamo exporter writes the weights beside the model, referenced by file name.
        self.assertEqual(sorted(os.listdir(self.dir.name)),
                         ["model.onnx", "model.onnx.data"] if dynamo() else ["model.onnx"])
        unnamed = shapelint_torch.export(ReshapeToSize(), (torch.randn(2, 3),), confirm=False,
                                         **batch_axis())
        self.assertTrue(pathlib.Path(unnamed.path).is_file())

    def test_a_failing_export_leaves_no_file(self):
        class Fails(torch.nn.Module):
            def forward(self, x):
                raise RuntimeError("not exportable")

        with self.assertRaises(Exception):
            shapelint_torch.export(Fails(), (torch.randn(2),), f=self.path("m.onnx"))
        self.assertEqual(os.listdir(self.dir.name), [])

    def test_assert_dynamic(self):
        with self.assertRaises(AssertionError) as raised:
            shapelint_torch.assert_dynamic(ReshapeToInt(), (torch.randn(2, 3),),
                                           f=self.path("bad.onnx"), **batch_axis())
        self.assertIn("error[SL002] baked-reshape-target", str(raised.exception))
        report = shapelint_torch.assert_dynamic(ReshapeToSize(), (torch.randn(2, 3),),
                                                f=self.path("good.onnx"), **batch_axis())
        self.assertTrue(report.ok)

    def test_raise_for_errors_raises_lint_error_with_the_findings(self):
        report = shapelint_torch.export(ReshapeToInt(), (torch.randn(2, 3),),
                                        f=self.path("m.onnx"), confirm=False, **batch_axis())
        with self.assertRaises(onnx_shapelint.LintError) as raised:
            report.raise_for_errors()
        self.assertEqual(raised.exception.findings, report.findings)
        self.assertEqual(str(raised.exception), str(report))

    @unittest.skipIf(HAS_TORCH and dynamo(), "this torch has the dynamo exporter")
    def test_dynamic_shapes_need_the_dynamo_exporter(self):
        with self.assertRaisesRegex(TypeError, "dynamic_shapes needs the dynamo exporter"):
            shapelint_torch.export(ReshapeToSize(), (torch.randn(2, 3),), f=self.path("m.onnx"),
                                   dynamic_shapes={"x": {0: "batch"}})


@unittest.skipUnless(HAS_TORCH and dynamo() and HAS_ORT,
                     "this test needs the dynamo exporter and onnxruntime")
class NarrowedRangeTest(unittest.TestCase):
    """Ranges torch.export narrowed, settled by running the size just outside them."""

    def export(self, forward, example):
        module = type("M", (torch.nn.Module,), {"forward": forward})()
        auto = torch.export.Dim.AUTO
        with tempfile.TemporaryDirectory() as directory:
            return shapelint_torch.export(
                module, (example,), f=os.path.join(directory, "m.onnx"),
                dynamic_shapes={"x": {k: auto for k in range(example.dim())}})

    def test_a_branch_on_the_size_is_an_error(self):
        # `if x.shape[-1] > 4` records the width in [5, int_oo]; at 4 the module returns x,
        # the graph (traced through the branch) 2 * x.
        report = self.export(lambda self, x: x * 2 if x.shape[-1] > 4 else x, torch.randn(2, 10))
        self.assertEqual([(f["rule"], f["severity"]) for f in report.findings],
                         [("ST002", "error")])
        confirmation = report.findings[0]["confirmation"]
        self.assertEqual(confirmation["verdict"], "confirmed")
        self.assertRegex(confirmation["detail"], r"^at \w+=4: values differ")

    def test_a_range_the_module_needs_is_a_note(self):
        # A reflection pad of 2 needs a width of 3 or more, in eager PyTorch too.
        report = self.export(
            lambda self, x: torch.nn.functional.pad(x, (2, 2, 1, 1), mode="reflect"),
            torch.randn(2, 4, 8, 10))
        self.assertEqual([(f["rule"], f["severity"]) for f in report.findings],
                         [("ST002", "note")])
        self.assertIn("Padding size should be less than", report.findings[0]["notes"][-1]["message"])
        self.assertTrue(report.ok)


def static_reshape_model(path):
    """What an exporter writes when it specializes the batch of an example of 1: x declared
    float[1, 3], and a Reshape target [1, -1]."""
    import onnx
    from onnx import TensorProto, helper

    target = helper.make_tensor("target", TensorProto.INT64, [2], [1, -1])
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], [target])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


@unittest.skipUnless(HAS_TORCH and HAS_ONNX, NEEDS_TORCH)
class RequestedAxesTest(unittest.TestCase):
    """An axis asked to be dynamic that the file declares static. torch 2.15 keeps an example
    size of 1 dynamic and TorchScript declares what it is asked, so the exporter is replaced by
    one that writes the static model above (the linter reads only the file)."""

    def test_axis_that_came_out_static_is_an_error_and_linted_as_dynamic(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "m.onnx")
            with mock.patch.object(torch.onnx, "export",
                                   lambda model, args, f, **kw: static_reshape_model(f)):
                report = shapelint_torch.export(ReshapeToInt(), (torch.randn(1, 3),), f=path,
                                                dynamic_axes={"x": {0: "batch"}}, dynamo=False)
        rules = [f["rule"] for f in report.findings]
        self.assertEqual(rules, ["ST001", "SL002"])
        st001 = report.findings[0]
        self.assertEqual(st001["severity"], "error")
        self.assertEqual(st001["message"], "input 'x' axis 0 was asked to be 'batch', but the "
                         "model declares it static: 1")
        self.assertEqual(st001["counterexample"]["inputs"], {"x": [2, 3]})
        self.assertIn("specializes sizes 0 and 1", st001["notes"][0]["message"])
        # The Reshape's literal 1 is found with the axis linted as the dynamic batch asked for.
        self.assertEqual(report.findings[1]["symbols"], ["batch"])
        self.assertIn("error[ST001] requested-axis-static: input 'x' axis 0", str(report))
        # At batch 2 the eager module returns (2, 3); the file refuses the input.
        self.assertEqual(st001["confirmation"]["eager"], [[2, 3]])

    def export_static(self, module, shape, axes):
        """export() of `module` at `shape` with `axes` ({axis: name}) asked dynamic, through an
        exporter replaced by one that writes a graph declaring every axis static."""
        import onnx
        from onnx import TensorProto, helper

        def write(model, args, f, **kw):
            graph = helper.make_graph(
                [helper.make_node("Identity", ["x"], ["y"])], "g",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
            model.ir_version = 8
            onnx.save(model, f)

        with tempfile.TemporaryDirectory() as directory:
            with mock.patch.object(torch.onnx, "export", write):
                return shapelint_torch.export(module, (torch.randn(*shape),),
                                              f=os.path.join(directory, "m.onnx"),
                                              dynamic_axes={"x": axes}, dynamo=False)

    def test_a_stride_2_module_is_tried_at_even_sizes_before_the_request_is_dropped(self):
        # Pooled by 2, upsampled by 2 and concatenated with its input (a UNet's skip): eager
        # PyTorch fails at 33 and runs at 34. The axis came out static: an error, with the
        # counterexample at 34, not a note that the module takes only 32.
        class Skip(torch.nn.Module):
            def forward(self, x):
                y = torch.nn.functional.interpolate(torch.nn.functional.max_pool2d(x, 2),
                                                    scale_factor=2.0)
                return torch.cat([x, y], 1)

        report = self.export_static(Skip(), (1, 3, 32, 32), {2: "height", 3: "width"})
        st001 = [f for f in report.findings if f["rule"] == "ST001"]
        self.assertEqual([f["severity"] for f in st001], ["error", "error"])
        self.assertEqual([f["counterexample"]["inputs"] for f in st001],
                         [{"x": [1, 3, 34, 32]}, {"x": [1, 3, 32, 34]}])
        self.assertEqual(st001[0]["confirmation"]["eager"], [[1, 6, 34, 32]])

    def test_one_name_moves_its_axes_together(self):
        class Square(torch.nn.Module):
            def forward(self, x):
                return x + x.transpose(2, 3)

        report = self.export_static(Square(), (1, 2, 8, 8), {2: "side", 3: "side"})
        st001 = [f for f in report.findings if f["rule"] == "ST001"]
        self.assertEqual([f["counterexample"]["inputs"] for f in st001], [{"x": [1, 2, 9, 9]}] * 2)
        self.assertEqual([f["severity"] for f in st001], ["error", "error"])

    def test_a_module_that_takes_one_size_only_is_a_note_naming_the_sizes_tried(self):
        class Flat(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(3 * 8 * 8, 4)

            def forward(self, x):
                return self.fc(x.flatten(1))

        report = self.export_static(Flat(), (1, 3, 8, 8), {2: "height"})
        st001 = [f for f in report.findings if f["rule"] == "ST001"]
        self.assertEqual(st001[0]["severity"], "note")
        self.assertEqual(st001[0]["counterexample"]["inputs"], {"x": [1, 3, 9, 8]})
        notes = [n["message"] for n in st001[0]["notes"]]
        self.assertIn("PyTorch refuses every size tried on this axis: 9, 10, 12, 16, 32", notes)

    def test_static_axis_sizes(self):
        self.assertEqual(shapelint_torch.static_axis_sizes(32), [33, 34, 36, 40, 48, 64])
        self.assertEqual(shapelint_torch.static_axis_sizes(7), [8, 16, 32, 14])
        self.assertEqual(shapelint_torch.static_axis_sizes(32, high=40), [33, 34, 36, 40])

    def test_requested_axes_read_from_dynamic_axes_and_dynamic_shapes(self):
        x, mask = torch.zeros(2, 5), torch.ones(2, 5, dtype=torch.int64)
        examples = shapelint_torch.examples_of(torch.nn.Identity(), (x,), {"mask": mask})
        self.assertEqual([(e.name, e.shape) for e in examples], [("input", (2, 5)),
                                                                 ("mask", (2, 5))])
        asked = shapelint_torch.requested_axes(examples, None,
                                               {"input": {0: "batch"}, "mask": [1]}, None)
        self.assertEqual([(r.example.name, r.axis, r.name) for r in asked],
                         [("input", 0, "batch"), ("mask", 1, None)])
        asked = shapelint_torch.requested_axes(examples, {"input": (None, "width")}, None, None)
        self.assertEqual([(r.example.name, r.axis, r.name) for r in asked],
                         [("input", 1, "width")])


if __name__ == "__main__":
    unittest.main()
