"""onnx_shapelint.confirm and `onnx-shapelint confirm`: counterexamples run on ONNX Runtime
(docs/python.md). ONNX Runtime is not needed: without it the verdict says that nothing ran, and
the tests check that; with it (SHAPELINT_EXTRA_PYTHON), what it returns."""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest
import unittest.mock

import numpy as np

from onnx_shapelint import _probes, _runs, confirm
from shapelint_testing import CLEAN, CORPUS, POOL

HAS_ORT = importlib.util.find_spec("onnxruntime") is not None


class Counterexample:
    """The SL001 counterexample of POOL: at 9x6 the pool gives (2, 3, 3, 3) where the model
    declares (2, 3, 2, 3) (kernel 3 stride 3 over 9 rows: 3 windows; kernel 2 stride 2 over 6
    columns: 3)."""
    INPUTS = {"x": [2, 3, 9, 6]}
    VALUE = {"inputs": INPUTS, "node_fails": False, "failure": "",
             "failing_node": {"label": "<AveragePool #0>"},
             "outputs": [{"value": "y", "actual": [2, 3, 3, 3], "expected": [2, 3, 2, 3]}]}


class FakeRunner:
    ort_version = "test"
    session_error = None


def outcome(*shapes, error=None, node=None, fill=0.0):
    if error:
        return _runs.Outcome(error=error, node=node)
    return _runs.Outcome([np.full(s, fill, dtype=np.float32) for s in shapes])


class VerdictTest(unittest.TestCase):
    """Each way the two sides can come out, checked against what the verdict must say."""

    def verdict(self, ort, eager):
        return confirm.verdict(ort, eager, Counterexample.VALUE, FakeRunner())

    def test_runtime_fails_where_pytorch_runs(self):
        v = self.verdict(outcome(error="bad Reshape", node="r"), outcome((3, 108)))
        self.assertEqual((v["verdict"], v["detail"]), (
            "confirmed", "ONNX Runtime fails at node 'r': bad Reshape; PyTorch returns (3, 108)"))

    def test_shapes_differ(self):
        v = self.verdict(outcome((2, 3, 3, 3)), outcome((2, 3, 2, 3)))
        self.assertEqual((v["verdict"], v["detail"]),
                         ("confirmed", "ONNX Runtime returns (2, 3, 3, 3), PyTorch (2, 3, 2, 3)"))

    def test_values_differ(self):
        v = self.verdict(outcome((2, 3), fill=1.0), outcome((2, 3), fill=1.5))
        self.assertEqual(v["verdict"], "confirmed")
        self.assertIn("values differ (max |difference| 0.5)", v["detail"])

    def test_sides_agree(self):
        v = self.verdict(outcome((2, 3), fill=1.0), outcome((2, 3), fill=1.0 + 1e-6))
        self.assertEqual((v["verdict"], v["detail"]),
                         ("not confirmed", "ONNX Runtime and PyTorch agree at these sizes"))

    def test_nan_in_pytorch_alone_is_no_result_of_the_module(self):
        # A mean over no frames: PyTorch NaN, ONNX Runtime 0. The module's arithmetic is
        # undefined there, so the run settles nothing; NaN in ONNX Runtime alone is a break.
        nan, zero = outcome((2, 8), fill=float("nan")), outcome((2, 8), fill=0.0)
        self.assertEqual(confirm.compare_run(zero, nan),
                         {"verdict": "eager fails", "detail": confirm.UNDEFINED})
        self.assertEqual(self.verdict(zero, nan)["verdict"], "not confirmed")
        self.assertEqual(confirm.compare_run(nan, zero)["verdict"], "disagree")
        self.assertEqual(confirm.compare_run(nan, nan)["verdict"], "agree")

    def test_pytorch_refuses_the_sizes(self):
        v = self.verdict(outcome(error="x"), outcome(error="RuntimeError: shape '[2, -1]'"))
        self.assertEqual(v["verdict"], "not confirmed")
        self.assertIn("PyTorch fails too at these sizes", v["detail"])

    def test_output_counts_differ(self):
        v = self.verdict(outcome((2,), (2,)), outcome((2,)))
        self.assertEqual(v["verdict"], "not run")

    def test_runtime_alone_against_the_declaration(self):
        v = self.verdict(outcome((2, 3, 3, 3)), None)
        self.assertEqual((v["verdict"], v["detail"]), (
            "confirmed", "ONNX Runtime returns (2, 3, 3, 3), the model declares (2, 3, 2, 3)"))
        v = self.verdict(outcome((2, 3, 2, 3)), None)
        self.assertEqual(v["verdict"], "not confirmed")

    def test_a_failure_at_the_export_sizes_too_confirms_nothing(self):
        # A model that fails at every size: the counterexample's failure is no bake.
        control = outcome(error="Add: incompatible dimensions")
        for eager in (None, outcome((3, 108))):
            v = confirm.verdict(outcome(error="Add: incompatible dimensions", node="add"), eager,
                                Counterexample.VALUE, FakeRunner(), control)
            self.assertEqual(v["verdict"], "not confirmed")
            self.assertEqual(v["detail"], "ONNX Runtime fails at the export sizes too (Add: "
                             "incompatible dimensions): a failure there is not a size baked in "
                             "(docs/severity.md)")
        # Where the export sizes run, the same failure confirms.
        v = confirm.verdict(outcome(error="bad", node="add"), None, Counterexample.VALUE,
                            FakeRunner(), outcome((2, 3, 2, 3)))
        self.assertEqual(v["verdict"], "confirmed")

    def test_an_error_outside_the_runtime_is_no_verdict(self):
        internal = _runs.Outcome(error="UnicodeDecodeError: 'utf-8' codec can't decode byte "
                                 "0xff in position 3", internal=True)
        v = self.verdict(internal, None)
        self.assertEqual((v["verdict"], v["detail"]), (
            "not run", "the run failed outside ONNX Runtime (UnicodeDecodeError: 'utf-8' codec "
            "can't decode byte 0xff in position 3): no verdict on the model"))
        # PyTorch's shapes are still held against the graph's, evaluated statically.
        v = self.verdict(internal, outcome((2, 3, 2, 3)))
        self.assertEqual(v["verdict"], "confirmed")
        self.assertIn("PyTorch runs at these sizes and returns (2, 3, 2, 3)", v["detail"])

    def test_the_worker_tells_the_runtimes_refusals_from_other_errors(self):
        from onnx_shapelint import _ort_worker

        refusal = type("InvalidArgument", (Exception,),
                       {"__module__": "onnxruntime.capi.onnxruntime_pybind11_state"})
        self.assertEqual(_ort_worker._failure_kind(refusal("bad dims")), "error")
        self.assertEqual(_ort_worker._failure_kind(UnicodeDecodeError("utf-8", b"\xff", 0, 1,
                                                                      "bad")), "internal")
        self.assertEqual(_ort_worker._failure_kind(TypeError("feed")), "internal")

    def test_pytorch_alone_against_the_static_evaluation(self):
        v = self.verdict(None, outcome((2, 3, 2, 3)))
        self.assertEqual(v["verdict"], "confirmed")
        self.assertIn("PyTorch runs at these sizes and returns (2, 3, 2, 3); the graph returns "
                      "(2, 3, 3, 3)", v["detail"])
        v = self.verdict(None, outcome((2, 3, 3, 3)))
        self.assertEqual(v["verdict"], "not confirmed")


def st001(eager):
    return {"rule": "ST001", "name": "requested-axis-static", "severity": "error",
            "message": "input 'x' axis 1 was asked to be dynamic, but the model declares it "
            "static: 4", "node": None, "symbols": ["x:1"], "notes": [], "fix": "",
            "confirmation": {"verdict": "not confirmed", "eager": eager, "detail": ""}}


class SettleTest(unittest.TestCase):
    """What a run changes in the findings of a report."""

    def test_a_request_the_module_refuses_becomes_a_note(self):
        refused, runs = st001("RuntimeError: expected 4 channels"), st001([[2, 5]])
        report = confirm.Report("m.onnx", [], [])
        report.add(refused)
        report.add(runs)
        confirm.settle_requests(report)
        self.assertEqual([f["severity"] for f in report.findings], ["note", "error"])
        self.assertIn("PyTorch refuses that size too (RuntimeError: expected 4 channels)",
                      refused["notes"][-1]["message"])
        self.assertTrue(str(report).startswith("m.onnx: note[ST001] requested-axis-static: "))

    def test_a_request_a_weight_fixes_becomes_a_note(self):
        fixed = st001([[2, 5]])
        report = confirm.Report("m.onnx", [{"rule": "SL004", "severity": "note",
                                            "symbols": ["x:1"]}], ["m.onnx: note[SL004] ...\n"])
        report.add(fixed)
        confirm.settle_requests(report)
        self.assertEqual(fixed["severity"], "note")
        self.assertIn("a weight fixes this size (SL004)", fixed["notes"][-1]["message"])

    def test_an_error_a_run_does_not_break_becomes_a_warning(self):
        counterexample = {"binding": {"h": 228}}
        error = {"rule": "SL002", "severity": "error", "symbols": ["h"],
                 "counterexample": counterexample}
        report = confirm.Report("m.onnx", [error], ["m.onnx: main/Reshape: error[SL002] x\n"])
        report.demote(error, {"verdict": "not confirmed", "detail": "PyTorch fails too"})
        self.assertTrue(report.ok)
        self.assertEqual(str(report), "m.onnx: main/Reshape: warning[SL002] x\n"
                         "  = not confirmed: PyTorch fails too\n\n"
                         "0 errors, 1 warning in 1 model")
        # A run at the next size breaks it: an error again, and the linter's own word is kept.
        report.promote(error, {"binding": {"h": 225}}, {"verdict": "confirmed", "detail": "d"})
        self.assertEqual(report.as_linted(), [{"rule": "SL002", "severity": "error",
                                               "symbols": ["h"],
                                               "counterexample": counterexample}])

    def test_a_warning_a_run_breaks_becomes_an_error(self):
        warning = {"rule": "SL007", "severity": "warning", "symbols": ["w"]}
        report = confirm.Report("m.onnx", [warning], ["m.onnx: main/Slice: warning[SL007] x\n"])
        report.promote(warning, {"binding": {"w": 11}}, {"verdict": "confirmed",
                                                         "detail": "at w=11: values differ"})
        self.assertFalse(report.ok)
        self.assertEqual(str(report), "m.onnx: main/Slice: error[SL007] x\n"
                         "  = confirmed: at w=11: values differ\n\n"
                         "1 error, 0 warnings in 1 model")


class LimitNoteRunner:
    """Both sides at one counterexample: ONNX Runtime's outcome and PyTorch's."""
    ort_version, kinds, runs_anything = "test", {"x": None}, True

    def __init__(self, ort, eager):
        self.ort, self.eager_outcome, self.eager, self.asked = ort, eager, object(), []

    def run(self, shapes, seed, as_declared=False):
        self.asked.append(shapes)
        return self.ort, self.eager_outcome


def limit_note(rule, symbols=("s27",)):
    return {"rule": rule, "severity": "note", "symbols": list(symbols),
            "counterexample": {"binding": {"s27": 9}, "inputs": {"x": [2, 9, 8]},
                               "failing_node": {"label": "node_view"}, "node_fails": True,
                               "failure": "", "outputs": []}}


class LimitNoteTest(unittest.TestCase):
    """A note that states the sizes the model works at is settled by running its
    counterexample: a break where PyTorch runs (a branch that pads to the multiple a view needs,
    not taken at the export size), the module's own limit where it refuses the size too."""

    # x: [s77, s27, s53], viewed as (s77, -1, 4, s53): the length must be a multiple of 4.
    VIEW = CORPUS / "blind" / "pad_when_needed_branch.dynamo.onnx"
    # Attention over q, k, v: [batch, heads, length, features] each, declared apart.
    SDPA = CORPUS / "torch2" / "sdpa.ts.onnx"

    def settle(self, note, ort, eager, model=VIEW):
        report = confirm.Report(str(model), [note],
                                ["m.onnx: node_view: note[%s] x\n" % note["rule"]])
        runner = LimitNoteRunner(ort, eager)
        confirm.confirm_findings(report, runner)
        confirm.settle_hypotheses(report)
        return note, runner

    def test_a_multiple_pytorch_pads_to_is_a_break(self):
        for rule in ("SL004", "SL009", "SL010"):
            note, _ = self.settle(limit_note(rule),
                                  outcome(error="bad Reshape", node="node_view"),
                                  outcome((2, 3, 8)))
            self.assertEqual(note["severity"], "error", rule)
            self.assertEqual(note["confirmation"]["detail"], "ONNX Runtime fails at node "
                             "'node_view': bad Reshape; PyTorch returns (2, 3, 8)")

    def test_a_limit_warned_of_that_breaks_where_pytorch_runs_is_an_error(self):
        # mmdet's pre-NMS TopK: k = 64 taken where the map had 80 cells, warned of as a limit;
        # at 49 cells ONNX Runtime fails while PyTorch keeps every candidate.
        warning = dict(limit_note("SL010"), severity="warning")
        settled, _ = self.settle(warning, outcome(error="k argument [64]", node="node_topk"),
                                 outcome((2, 49, 5)))
        self.assertEqual(settled["severity"], "error")
        self.assertEqual(settled["confirmation"]["linted"]["severity"], "warning")
        shared = dict(limit_note("SL010"), severity="warning")
        settled, _ = self.settle(shared, outcome(error="k argument [64]", node="node_topk"),
                                 outcome(error="RuntimeError: selected index k out of range"))
        self.assertEqual((settled["severity"], settled["confirmation"]["verdict"]),
                         ("warning", "not confirmed"))

    def test_a_count_pytorch_refuses_below_too_is_the_modules_own(self):
        # torch.topk(x, 3), exported with no line that writes the 3: a hypothesis (a min()
        # evaluated at the example?) that PyTorch's refusal below 3 settles as design.
        def count(**witness):
            return dict(limit_note("SL010"), severity="warning", evidence="hypothesis",
                        witness={"ranges": [dict(symbol="s27", value=8, **witness)]})
        refused = outcome(error="RuntimeError: selected index k out of range")
        settled, _ = self.settle(count(min=3, max=None), outcome(error="k", node="node_topk"),
                                 refused)
        self.assertEqual((settled["severity"], settled["confirmation"]["linted"]["severity"]),
                         ("note", "warning"))
        # A limit on sizes its counterexample leaves (the channels moved, the grid not) is
        # not settled by it.
        several = count(min=3, max=None)
        several["witness"]["ranges"].append({"symbol": "s0", "value": 4, "min": 4, "max": 4})
        settled, _ = self.settle(several, outcome(error="k", node="node_topk"), refused)
        self.assertEqual(settled["severity"], "warning")
        # Nor is a warning of other evidence: a declaration the exporter wrote.
        declared = dict(count(min=3, max=None), evidence="wrong_declaration")
        settled, _ = self.settle(declared, outcome(error="k", node="node_topk"), refused)
        self.assertEqual(settled["severity"], "warning")

    def test_a_limit_pytorch_shares_stays_a_note(self):
        note, runner = self.settle(limit_note("SL010"),
                                   outcome(error="bad Reshape", node="node_view"),
                                   outcome(error="RuntimeError: shape '[2, -1, 4, 8]'"))
        self.assertEqual((note["severity"], runner.asked), ("note", [{"x": [2, 9, 8]}]))

    def test_a_contract_among_inputs_is_not_run(self):
        # Inputs that break a contract among them may run in PyTorch without meaning anything:
        # SL006's (a mask shorter than past and new tokens), and SL010's keys as long as the
        # values (PyTorch's attention returns (2, 2, 5, 4) for keys of 6 and values of 5), whose
        # counterexample the analysis marks as breaking only the inputs' contract.
        contract = limit_note("SL010", ("k_dynamic_axes_3", "v_dynamic_axes_3"))
        contract["counterexample"]["input_contract"] = True
        for note, model in ((limit_note("SL006"), self.VIEW), (contract, self.SDPA)):
            settled, runner = self.settle(note, outcome(error="bad"), outcome((2, 2, 5, 4)),
                                          model)
            self.assertEqual((settled["severity"], runner.asked), ("note", []))

    def test_the_analysis_marks_what_breaks_only_the_inputs_contract(self):
        # Attention over q, k and v declared apart: keys one longer than the values break only
        # the contract among the inputs (k_3 == v_3), with no literal on the way.
        found = confirm._core.probe(str(self.SDPA), [
            "q_dynamic_axes_1=2,q_dynamic_axes_2=2,q_dynamic_axes_3=5,q_dynamic_axes_4=4,"
            "k_dynamic_axes_1=2,k_dynamic_axes_2=2,k_dynamic_axes_3=6,k_dynamic_axes_4=4,"
            "v_dynamic_axes_1=2,v_dynamic_axes_2=2,v_dynamic_axes_3=5,v_dynamic_axes_4=4"])
        self.assertTrue(found[0]["breaks"])
        self.assertTrue(found[0]["at"]["input_contract"])


class TableRunner:
    """Both sides at any sizes: PyTorch refuses other channels and resamples its table to any
    grid; ONNX Runtime fails at `node` at any size it is asked (none is the export's)."""
    ort_version, kinds, runs_anything = "test", {"x": None}, True
    relaxed_session = eager = object()

    def __init__(self, node="node_add"):
        self.node, self.asked = node, []

    def run(self, shapes, seed, as_declared=False):
        self.asked.append(shapes["x"])
        eager = (outcome(error="RuntimeError: channels") if shapes["x"][1] != 8 else
                 outcome((2, shapes["x"][2] * shapes["x"][3], 8)))
        return outcome(error="Attempting to broadcast", node=self.node), eager


class LimitSizesTest(unittest.TestCase):
    """A limit that fixes several sizes is run at each apart: a ViT's 4 x 4 position table,
    which the module resamples to any other grid in a branch the trace did not take, fixes the
    channels (PyTorch refuses others: its counterexample) and the grid (PyTorch takes others)."""

    TABLE = CORPUS / "sealed" / "vit_pos_interp_tracing_guard.dynamo.onnx"
    CENTRE = {"s77": 2, "s27": 8, "s0": 4}

    def settle(self, runner):
        report = confirm.Report.of_file(str(self.TABLE), export_dims="x=2x8x4x4")
        [note] = report.findings
        self.assertEqual((note["rule"], note["severity"], note["counterexample"]["binding"]),
                         ("SL004", "note", {"s0": 4, "s27": 9, "s77": 2}))
        confirm.confirm_findings(report, runner)
        confirm.confirm_limits(report, runner, self.CENTRE)
        return note

    def test_the_grid_the_module_resamples_to_is_a_break(self):
        runner = TableRunner()
        note = self.settle(runner)
        self.assertEqual(note["severity"], "error")
        self.assertEqual(note["counterexample"]["inputs"], {"x": [2, 8, 5, 5]})
        self.assertEqual(runner.asked, [[2, 9, 4, 4], [2, 8, 5, 5]])

    def test_a_window_that_repeats_is_left_by_one_step(self):
        # A limit to every other grid size (a view into 2 x 2 patches) is a window of one size
        # repeating: the grid one past the export's leaves it, and is run as a fixed size is.
        runner = TableRunner()
        report = confirm.Report.of_file(str(self.TABLE), export_dims="x=2x8x4x4")
        [note] = report.findings
        for r in note["witness"]["ranges"]:
            if r["symbol"] == "s0":
                r.update(every=2, congruent_from=2)
        confirm.confirm_findings(report, runner)
        confirm.confirm_limits(report, runner, self.CENTRE)
        self.assertEqual((note["severity"], runner.asked), ("error", [[2, 9, 4, 4], [2, 8, 5, 5]]))

    def test_a_failure_at_another_node_is_not_the_limits(self):
        runner = TableRunner(node="node_view")
        self.assertEqual(self.settle(runner)["severity"], "note")


class HeadsRunner:
    """Grouped-query attention whose export baked the repeat of the key heads (2, from 4 query
    heads and 2 key heads, fresh/gqa_repeat_int.ts.onnx). ONNX Runtime fails at the MatMul,
    under the name its graph optimizations give the fused node, wherever the query heads are not
    twice the key heads or the batches or widths differ; PyTorch repeats the key heads by
    q // k, so it runs where k divides q (`repeats`) and the batches and widths agree, or, as
    a module that refuses every other ratio (`repeats` false), only at twice."""
    ort_version, kinds, runs_anything = "test", {"q": None, "k": None}, True
    relaxed_session = eager = object()

    def __init__(self, repeats=True):
        self.repeats, self.asked = repeats, []

    def run(self, shapes, seed, as_declared=False):
        q, k = shapes["q"], shapes["k"]
        self.asked.append({n: d for n, d in (("q", q), ("k", k))})
        same = q[0] == k[0] and q[3] == k[3]
        runs = same and (q[1] % k[1] == 0 if self.repeats else q[1] == 2 * k[1])
        eager = outcome((q[0], q[1], q[2], k[2])) if runs else outcome(error="RuntimeError: heads")
        if same and q[1] == 2 * k[1]:
            return outcome((q[0], q[1], q[2], k[2])), eager
        return outcome(error="Compute right operand cannot broadcast on dim 1",
                       node="/inner/MatMul/MatmulTransposeFusion/"), eager


class RelationLimitTest(unittest.TestCase):
    """A relation among the sizes of two inputs (query heads twice the key heads, a literal 2 of
    the export between them) is run at each size moved alone, with the other input's sizes that
    are equal to it on its axis: the batch and the width of the queries move with the keys'."""

    GQA = CORPUS / "fresh" / "gqa_repeat_int.ts.onnx"
    CENTRE = {"q_dynamic_axes_1": 2, "q_dynamic_axes_2": 4, "q_dynamic_axes_3": 5,
              "q_dynamic_axes_4": 8, "k_dynamic_axes_1": 2, "k_dynamic_axes_2": 2,
              "k_dynamic_axes_3": 5, "k_dynamic_axes_4": 8}

    def settle(self, runner):
        report = confirm.Report.of_file(str(self.GQA), export_dims="q=2x4x5x8,k=2x2x5x8")
        [note] = report.findings
        self.assertEqual((note["rule"], note["severity"]), ("SL010", "note"))
        confirm.confirm_limits(report, runner, self.CENTRE)
        return note

    def test_key_heads_the_module_repeats_to_any_divisor_are_a_break(self):
        # Batches and widths moved together hold the relation, so they are not run; the key
        # heads at 3 and the query heads at 5 break PyTorch too; one key head, which PyTorch
        # repeats 4 times, breaks only ONNX Runtime.
        runner = HeadsRunner()
        note = self.settle(runner)
        self.assertEqual(note["severity"], "error")
        self.assertEqual(runner.asked, [{"q": [2, 4, 5, 8], "k": [2, 3, 5, 8]},
                                        {"q": [2, 5, 5, 8], "k": [2, 2, 5, 8]},
                                        {"q": [2, 4, 5, 8], "k": [2, 1, 5, 8]}])
        self.assertEqual(note["counterexample"]["inputs"], {"q": [2, 4, 5, 8], "k": [2, 1, 5, 8]})
        self.assertIn("k_dynamic_axes_2=1", note["confirmation"]["detail"])

    def test_a_relation_the_module_keeps_too_stays_a_note(self):
        runner = HeadsRunner(repeats=False)
        self.assertEqual(self.settle(runner)["severity"], "note")
        self.assertEqual(len(runner.asked), confirm.LIMIT_RUNS)

    def test_peers_line_up_by_axis(self):
        # A batch of 2 equal to 2 key heads does not move with them; widths of 8 from the back
        # do, as a mask's length does with the tokens' (the second input has one axis less).
        dims = {"q": ["b", "h", "t", "d"], "k": ["b2", "h2", "t2", "d2"], "m": ["bm", "tm"]}
        centre = {"b": 2, "h": 4, "t": 5, "d": 8, "b2": 2, "h2": 2, "t2": 5, "d2": 8, "bm": 2,
                  "tm": 8}
        peers = _probes.aligned_peers(centre, dims)
        self.assertEqual(peers["h2"], set())
        self.assertEqual(peers["b"], {"b2", "bm"})
        self.assertEqual(peers["d2"], {"d", "tm"})
        self.assertEqual(peers["tm"], {"d", "d2"})


class InputsTest(unittest.TestCase):

    def test_inputs_keep_to_the_examples_values(self):
        rng = np.random.default_rng(0)
        ids = _runs.InputKind.of_array(np.array([[3, 99, 17]], dtype=np.int64))
        made = ids.make((4, 50), rng)
        self.assertEqual((made.dtype, made.shape), (np.dtype(np.int64), (4, 50)))
        self.assertTrue(made.min() >= 3 and made.max() <= 99)
        mask = _runs.InputKind.of_array(np.ones((1, 3), dtype=np.int64)).make((2, 5), rng)
        self.assertTrue((mask == 1).all())
        image = _runs.InputKind.of_array(np.full((2, 2), 10.0, dtype=np.float32) +
                                         np.eye(2, dtype=np.float32))
        self.assertEqual(image.make((3,), rng).dtype, np.float32)
        self.assertAlmostEqual(image.mean, 10.5)


class ProbeSizesTest(unittest.TestCase):

    def test_probes_keep_inside_every_witness(self):
        # POOL works for height in [6, 8] and width in [6, 7] (its SL001 witness): +1 keeps
        # both inside; at +2 the width stays at 6 (at 8 its kernel of 2 and stride 2 would give
        # 4 columns). Batch and channels move with them. Every later probe keeps inside too.
        findings = [{"witness": {"ranges": [
            {"symbol": "x_dynamic_axes_3", "value": 6, "min": 6, "max": 8},
            {"symbol": "x_dynamic_axes_4", "value": 6, "min": 6, "max": 7}]}}]
        centre = {"x_dynamic_axes_1": 2, "x_dynamic_axes_2": 3, "x_dynamic_axes_3": 6,
                  "x_dynamic_axes_4": 6}
        found = confirm.probe_sizes(str(POOL), centre, {}, findings)
        self.assertEqual(found[:2], [({"x_dynamic_axes_1": 3, "x_dynamic_axes_2": 4,
                                       "x_dynamic_axes_3": 7, "x_dynamic_axes_4": 7},
                                      {"x": [3, 4, 7, 7]}),
                                     ({"x_dynamic_axes_1": 4, "x_dynamic_axes_2": 5,
                                       "x_dynamic_axes_3": 8, "x_dynamic_axes_4": 6},
                                      {"x": [4, 5, 8, 6]})])
        self.assertLessEqual(len(found), _probes.PROBE_COUNT)
        for binding, _ in found:
            self.assertTrue(6 <= binding["x_dynamic_axes_3"] <= 8, binding)
            self.assertTrue(6 <= binding["x_dynamic_axes_4"] <= 7, binding)

    def test_every_size_doubled_is_a_probe_sizes_a_witness_or_a_range_holds_stay(self):
        # A branch on a size against a constant far from the export sizes is crossed only by a
        # large move; doubling every size keeps the relations among them. The witness holds the
        # map's sides within [6, 8] and [6, 7] (12 is outside), torch.export's range the batch
        # within [1, 3] (4 is outside): only the channels double.
        findings = [{"witness": {"ranges": [
            {"symbol": "x_dynamic_axes_3", "value": 6, "min": 6, "max": 8},
            {"symbol": "x_dynamic_axes_4", "value": 6, "min": 6, "max": 7}]}}]
        centre = {"x_dynamic_axes_1": 2, "x_dynamic_axes_2": 3, "x_dynamic_axes_3": 6,
                  "x_dynamic_axes_4": 6}
        found = [b for b, _ in confirm.probe_sizes(str(POOL), centre, {}, findings)]
        self.assertIn({"x_dynamic_axes_1": 4, "x_dynamic_axes_2": 6, "x_dynamic_axes_3": 6,
                       "x_dynamic_axes_4": 6}, found)
        found = [b for b, _ in confirm.probe_sizes(str(POOL), centre,
                                                   {"x_dynamic_axes_1": (1, 3)}, findings)]
        self.assertIn({"x_dynamic_axes_1": 2, "x_dynamic_axes_2": 6, "x_dynamic_axes_3": 6,
                       "x_dynamic_axes_4": 6}, found)
        self.assertNotIn(4, [b["x_dynamic_axes_1"] for b in found])

    def test_a_window_that_repeats_bounds_no_probe(self):
        # longlora's heads view the features into halves: SL010 works for every even width,
        # written [8, 8] every 2. The probes move the width to other even sizes (the static
        # probe rejects the odd ones), where a witness of one size would hold it at 8.
        model = CORPUS / "cloaked" / "longlora_group_size_floordiv.ts.onnx"
        centre = {"x_dynamic_axes_1": 2, "x_dynamic_axes_2": 8, "x_dynamic_axes_3": 8}
        halves = [{"witness": {"ranges": [{"symbol": "x_dynamic_axes_3", "value": 8, "min": 8,
                                           "max": 8, "every": 2, "congruent_from": 2}]}}]
        widths = {b["x_dynamic_axes_3"] for b, _ in confirm.probe_sizes(str(model), centre, {},
                                                                        halves)}
        self.assertGreater(len(widths), 1)
        self.assertEqual({w % 2 for w in widths}, {0})
        one = [{"witness": {"ranges": [dict(halves[0]["witness"]["ranges"][0], every=None,
                                            congruent_from=None)]}}]
        self.assertEqual({b["x_dynamic_axes_3"] for b, _ in confirm.probe_sizes(
            str(model), centre, {}, one)}, {8})

    def test_recorded_ranges_bound_the_probes(self):
        # torch.export's record [6, 7] for the height: +1 gives 7x7; past it the height stays
        # at 6 and the width alone moves, to sizes where the pool's output leaves its declared
        # 3 columns (8 -> 4), which the static probe rejects.
        centre = {"x_dynamic_axes_1": 2, "x_dynamic_axes_2": 3, "x_dynamic_axes_3": 6,
                  "x_dynamic_axes_4": 6}
        found = confirm.probe_sizes(str(POOL), centre,
                                    {"x_dynamic_axes_3": (6, 7)})
        self.assertEqual(found[0][0]["x_dynamic_axes_3"], 7)
        self.assertEqual({b["x_dynamic_axes_3"] for b, _ in found}, {6, 7})

    def test_each_size_moves_alone_across_parity_and_order(self):
        # A 2x2 average pool runs at every size, exported at batch 2, 4 channels, 8 x 10. The
        # width is batch + height by chance: within one input that is no relation, so +1
        # makes every size odd. Each size moves alone, and the height past the width and the
        # width below the height: a branch on `w % 2`, `h > w` or `h >= 8` goes the other way.
        pool = CORPUS / "unseen" / "odd_width_pad_branch.dynamo.onnx"
        centre = {"s77": 2, "s27": 4, "s53": 8, "s0": 10}
        found = [b for b, _ in confirm.probe_sizes(str(pool), centre, {})]
        self.assertEqual(found[0], {"s77": 3, "s27": 5, "s53": 9, "s0": 11})
        # Then every size doubled, then every size one down.
        self.assertEqual(found[2], {"s77": 4, "s27": 8, "s53": 16, "s0": 20})
        self.assertEqual(found[3], {"s77": 1, "s27": 3, "s53": 7, "s0": 9})
        for alone in ({"s53": 9}, {"s0": 11}, {"s53": 11}, {"s0": 7}, {"s53": 7}):
            self.assertIn(dict(centre, **alone), found)
        self.assertEqual(len(found), _probes.PROBE_COUNT + 1)

    def test_each_size_steps_to_where_the_graph_sizes_change(self):
        # torchvision's Swin-T at 224 x 224: the patch embedding (a convolution of 4, stride
        # 4) gives a map of floor((H - 4) / 4) + 1 = 56 at 224 to 227, 57 at 228 (by hand), and
        # the module shifts its windows only where a stage's map is larger than the window of
        # 7. Moving a side by 1 or 2 stays on the map of 56; the step to 228 is the first that
        # changes it. Down, 223 gives 55 at once (a step of 1); what 223 leaves alone, the
        # merged maps of 28, 14, 7, first changes at 219 (54, merged to 27).
        model = str(CORPUS / "torch2" / "tv_swin_t.ts.onnx")
        centre = {"x_dynamic_axes_1": 2, "x_dynamic_axes_2": 3, "x_dynamic_axes_3": 224,
                  "x_dynamic_axes_4": 224}
        steps = _probes.size_steps(model, centre)
        self.assertEqual(steps["x_dynamic_axes_3"][0], [4])
        self.assertEqual(steps["x_dynamic_axes_3"][1][0], 5)
        self.assertEqual(steps["x_dynamic_axes_1"], ([], []))
        found = [b for b, _ in confirm.probe_sizes(model, centre, {})]
        for alone in ({"x_dynamic_axes_3": 228}, {"x_dynamic_axes_4": 228},
                      {"x_dynamic_axes_3": 219}):
            self.assertIn(dict(centre, **alone), found)
        # Each side alone, first a step of 1 and then the step to the next map, before the
        # sizes past the other sizes of the input and 1.
        self.assertLess(found.index(dict(centre, x_dynamic_axes_3=228)),
                        found.index(dict(centre, x_dynamic_axes_1=1)))

    def test_steps_the_other_rounds_make_are_left_to_them(self):
        # A step of the graph's sizes that is already one of ALONE_STEPS keeps that round's
        # place; steps past the first come in the last round.
        centre = {"h": 16, "w": 9}
        out = _probes.alone_bindings(centre, [["h", "w"]], {}, {"h": ([2, 8], [4]), "w": ([], [])})
        self.assertEqual(out[:3], [{"h": 17, "w": 9}, {"h": 16, "w": 10}, {"h": 12, "w": 9}])
        self.assertEqual(out[-3:], [{"h": 18, "w": 9}, {"h": 24, "w": 9}, {"h": 16, "w": 11}])
        self.assertEqual(sum(b == {"h": 18, "w": 9} for b in out), 1)


class DisagreeingRunner:
    """Both sides at every size: ONNX Runtime's values differ from PyTorch's."""
    relaxed_session, eager = object(), object()

    def run(self, shapes, seed, as_declared=False):
        return outcome((2, 4), fill=1.0), outcome((2, 4), fill=2.0)


class DynamicCheckTest(unittest.TestCase):

    def test_runs_that_differ_at_many_sizes_are_one_finding(self):
        model = CORPUS / "unseen" / "odd_width_pad_branch.dynamo.onnx"
        centre = {"s77": 2, "s27": 4, "s53": 8, "s0": 10}
        report = confirm.Report(str(model), [], [])
        probes = confirm.dynamic_check(report, str(model), DisagreeingRunner(), centre, {})
        self.assertEqual(len(probes), _probes.PROBE_COUNT + 1)  # and every size doubled
        [finding] = report.findings
        self.assertEqual((finding["rule"], finding["counterexample"]["binding"]),
                         ("ST003", {"s77": 3, "s27": 5, "s53": 9, "s0": 11}))
        self.assertTrue(finding["notes"][-1]["message"].startswith(
            "the runs differ at 16 more of the sizes tried: s0=12, s27=6, s53=10, s77=4; "))

    def test_a_warning_over_the_moved_sizes_explains_a_run(self):
        # A warning about the width: the runs that move it confirm it (an error now); a run
        # that moves the height alone is not its, and is the dynamic check's finding.
        model = CORPUS / "unseen" / "odd_width_pad_branch.dynamo.onnx"
        centre = {"s77": 2, "s27": 4, "s53": 8, "s0": 10}
        warning = {"rule": "SL007", "severity": "warning", "symbols": ["s0"]}
        report = confirm.Report(str(model), [warning], ["m: main/Pool: warning[SL007] x\n"])
        probes = confirm.dynamic_check(report, str(model), DisagreeingRunner(), centre, {})
        self.assertEqual(warning["severity"], "error")
        alone = next(p for p in probes if p["binding"] == dict(centre, s53=9))
        self.assertEqual(alone["explained_by"], [])
        self.assertEqual(sorted(f["rule"] for f in report.findings), ["SL007", "ST003"])


class MovedBindingTest(unittest.TestCase):
    """The sizes the dynamic check moves to keep the relations among the export sizes."""

    # A decoder with a cache at its example (hf_llama_kv.dynamo): batch s2 (s43 for the mask),
    # new tokens s70, past s15 (s95 for one of the values), mask s53 = past + new tokens.
    DECODER = {"s2": 2, "s43": 2, "s70": 3, "s15": 5, "s95": 5, "s53": 8}

    def test_a_mask_stays_as_long_as_past_and_new_tokens(self):
        for step in _probes.PROBE_STEPS:
            b = _probes.moved_binding(self.DECODER, step)
            self.assertEqual(b["s53"], b["s15"] + b["s70"], (step, b))
            self.assertEqual((b["s43"], b["s95"]), (b["s2"], b["s15"]))
            self.assertEqual((b["s2"], b["s70"]), (2 + step, 3 + step))

    def test_a_coincidental_sum_only_moves_a_size_further(self):
        # Batch 2 + new tokens 3 = past 5 by chance: the past moves by two steps, the mask by
        # three, and every input still moves.
        self.assertEqual(_probes.moved_binding(self.DECODER, 1),
                         {"s2": 3, "s43": 3, "s70": 4, "s15": 7, "s95": 7, "s53": 11})

    def test_the_pair_with_the_largest_smaller_summand(self):
        # 8 = 5 + 3 = 6 + 2: the batch of 2 is the likelier coincidence.
        b = _probes.moved_binding({"batch": 2, "seq": 3, "past": 5, "other": 6, "total": 8}, 1)
        self.assertEqual(b["total"], b["past"] + b["seq"])

    def test_a_sum_within_one_input_is_no_relation(self):
        # An image exported at batch 2, 8 x 10: the width is batch + height by chance. Told
        # that the three are axes of one input, the width moves by the step like the others.
        image = {"n": 2, "h": 8, "w": 10}
        self.assertEqual(_probes.moved_binding(image, 1), {"n": 3, "h": 9, "w": 12})
        self.assertEqual(_probes.moved_binding(image, 1, inputs=[["n", "h", "w"]]),
                         {"n": 3, "h": 9, "w": 11})
        # Across inputs it stays one: the mask as long as the past and the new tokens.
        self.assertEqual(_probes.moved_binding({"past": 5, "new": 3, "mask": 8}, 1,
                                               inputs=[["past"], ["new"], ["mask"]]),
                         {"past": 6, "new": 4, "mask": 10})

    def test_two_symbols_of_one_size_make_a_sum(self):
        self.assertEqual(_probes.moved_binding({"a": 3, "b": 3, "ab": 6}, 2),
                         {"a": 5, "b": 5, "ab": 10})

    def test_without_sums_every_symbol_moves_by_the_step(self):
        self.assertEqual(_probes.moved_binding({"n": 2, "c": 3, "h": 224, "w": 224}, 8),
                         {"n": 10, "c": 11, "h": 232, "w": 232})

    def test_a_symbol_that_cannot_move_stays(self):
        # A weight fixes the channels at 3 (a witness of one size): the sum 5 = 2 + 3 follows
        # the batch alone; a sum outside its own limits stays at its export size.
        limits = {"c": (3, 3), "s": (1, 6)}
        self.assertEqual(_probes.moved_binding({"n": 2, "c": 3, "s": 5}, 1, limits),
                         {"n": 3, "c": 3, "s": 6})
        self.assertEqual(_probes.moved_binding({"n": 2, "c": 3, "s": 5}, 2, limits),
                         {"n": 4, "c": 3, "s": 5})


class UNetRunner:
    """Both sides of a UNet decoder `interpolate(low, size=(int(h) * 2, ...)) + skip` exported
    with low 4 rows and skip 8: ONNX Runtime upsamples to the baked 8 rows, PyTorch to twice
    low's rows; each fails where its upsampled rows differ from skip's."""
    ort_version = "test"
    relaxed_session = eager = True

    def __init__(self):
        self.shapes_run = []

    def run(self, shapes, seed):
        self.shapes_run.append(shapes)
        (n, h), (_, rows) = shapes["low"], shapes["skip"]
        ort = outcome((n, 8)) if rows == 8 else outcome(error="Add: 8 by %d" % rows, node="add")
        eager = (outcome((n, rows)) if rows == 2 * h else
                 outcome(error="RuntimeError: %d by %d" % (2 * h, rows)))
        return ort, eager


class AgreeingRunner:
    """Both sides agree at every size, but PyTorch refuses skip's rows `refuse`."""
    ort_version = "test"
    relaxed_session = eager = True

    def __init__(self, refuse=None):
        self.refuse = refuse

    def run(self, shapes, seed):
        (n, h), (_, rows) = shapes["low"], shapes["skip"]
        if rows == self.refuse:
            return outcome((n, rows)), outcome(error="RuntimeError: %d rows" % rows)
        return outcome((n, rows)), outcome((n, rows))


def probe_shapes(path, specs):
    """_core.probe for the UNet's inputs: low [n, h], skip [n, H]."""
    def at(spec):
        b = dict(kv.split("=") for kv in spec.split(","))
        return {"at": {"inputs": {"low": [int(b["n"]), int(b["h"])],
                                  "skip": [int(b["n"]), int(b["H"])]}}}
    return [at(spec) for spec in specs]


class ConfirmWarningsTest(unittest.TestCase):
    """A warning, or an error PyTorch refused, run past the export sizes on both sides."""

    CENTRE = {"n": 2, "h": 4, "H": 8}

    def demoted(self, *notes):
        error = {"rule": "SL005", "severity": "error", "symbols": ["H"],
                 "counterexample": {"binding": {"H": 9}}}
        report = confirm.Report("m.onnx", [error, *notes],
                                ["m.onnx: main/Add: error[SL005] x\n"] +
                                ["m.onnx: main/Add: note[SL010] x\n"] * len(notes))
        report.demote(error, {"verdict": "not confirmed", "detail": "PyTorch fails too"})
        return report, error

    def test_the_doubled_export_sizes_keep_a_skip_twice_the_map(self):
        # Skip's rows alone at 9 and 10: PyTorch refuses them (its map upsamples to 8). Every
        # size doubled keeps skip twice low, where PyTorch runs and ONNX Runtime fails.
        report, error = self.demoted()
        runner = UNetRunner()
        with unittest.mock.patch.object(confirm._core, "probe", probe_shapes):
            confirm.confirm_warnings(report, runner, self.CENTRE)
        self.assertEqual([s["skip"][1] for s in runner.shapes_run], [9, 10, 16])
        self.assertEqual(error["severity"], "error")
        self.assertEqual(error["counterexample"]["inputs"], {"low": [4, 8], "skip": [4, 16]})
        self.assertEqual(error["confirmation"]["detail"],
                         "at H=16, h=8, n=4: ONNX Runtime fails at node 'add': Add: 8 by 16")

    def test_a_size_the_models_design_fixes_stays(self):
        # A note's witness holds h at 4 (a table of four rows): doubling the rest breaks
        # PyTorch too, and the warning stays one, with the first run's verdict.
        note = {"rule": "SL010", "severity": "note", "symbols": ["h"],
                "witness": {"ranges": [{"symbol": "h", "min": 4, "max": 4}]}}
        report, error = self.demoted(note)
        runner = UNetRunner()
        with unittest.mock.patch.object(confirm._core, "probe", probe_shapes):
            confirm.confirm_warnings(report, runner, self.CENTRE)
        self.assertEqual(runner.shapes_run[-1], {"low": [4, 4], "skip": [4, 16]})
        self.assertEqual(error["severity"], "warning")
        self.assertEqual(error["confirmation"]["detail"], "PyTorch fails too")

    def test_the_doubled_sizes_run_only_where_the_inputs_stay_affordable(self):
        # The UNet's inputs hold 24 elements at the export sizes and 96 doubled. Past an
        # absolute limit of 10, they run only within the allowed growth over the export's.
        for growth, runs in ((2, [9, 10]), (4, [9, 10, 16])):
            report, error = self.demoted()
            runner = UNetRunner()
            with unittest.mock.patch.object(confirm._core, "probe", probe_shapes), \
                    unittest.mock.patch.object(confirm, "WARNING_SCALE_ELEMENTS", 10), \
                    unittest.mock.patch.object(confirm, "WARNING_SCALE_GROWTH", growth):
                confirm.confirm_warnings(report, runner, self.CENTRE)
            self.assertEqual([s["skip"][1] for s in runner.shapes_run], runs)
            self.assertEqual(error["severity"], "warning" if growth == 2 else "error")

    def literal(self, rule="SL007", evidence="hypothesis"):
        return {"rule": rule, "severity": "warning", "evidence": evidence, "symbols": ["H"],
                "counterexample": None}

    def settled(self, finding, runner):
        report = confirm.Report("m.onnx", [finding], ["m.onnx: main/Slice: warning[%s] x\n"
                                                     % finding["rule"]])
        with unittest.mock.patch.object(confirm._core, "probe", probe_shapes):
            confirm.confirm_warnings(report, runner, self.CENTRE)
        confirm.settle_hypotheses(report)
        return finding

    def test_a_literal_both_sides_agree_at_every_try_is_the_modules_own(self):
        # A Slice end of 4 = H // 2 at H = 8 (a head of four features): ONNX Runtime and
        # PyTorch agree at H = 9, 10 and at every size doubled.
        for rule in ("SL001", "SL002", "SL005", "SL007", "SL008", "SL017"):
            literal = self.settled(self.literal(rule), AgreeingRunner())
            self.assertEqual(literal["severity"], "note", rule)
            self.assertEqual(literal["confirmation"]["detail"], "ONNX Runtime and PyTorch agree "
                             "at H=9; H=10; H=16, h=8, n=4: the literal is the module's own")

    def test_the_doubled_sizes_settle_a_literal(self):
        # PyTorch refuses H = 9 (a multiple the module needs): the doubled sizes still move the
        # literal's size and agree. Refused there, or too large to run, they refute nothing.
        literal = self.settled(self.literal(), AgreeingRunner(refuse=9))
        self.assertEqual(literal["severity"], "note")
        self.assertEqual(literal["confirmation"]["detail"], "ONNX Runtime and PyTorch agree "
                         "at H=10; H=16, h=8, n=4: the literal is the module's own")
        literal = self.settled(self.literal(), AgreeingRunner(refuse=16))
        self.assertEqual(literal["severity"], "warning")
        with unittest.mock.patch.object(confirm, "WARNING_SCALE_ELEMENTS", 10), \
                unittest.mock.patch.object(confirm, "WARNING_SCALE_GROWTH", 2):
            literal = self.settled(self.literal(), AgreeingRunner())
        self.assertEqual(literal["severity"], "warning")

    def test_a_count_pytorch_refuses_below_is_an_error_where_the_next_sizes_disagree(self):
        # A Gather's index table: PyTorch refuses the counterexample below it too, but at the
        # doubled sizes the two sides disagree. Refuting waits for every run.
        def count():
            return {"rule": "SL010", "severity": "warning", "evidence": "hypothesis",
                    "symbols": ["H"], "witness": {"ranges": [{"symbol": "H", "value": 8}]},
                    "counterexample": {"binding": {"H": 1}},
                    "confirmation": {"verdict": "not confirmed", "eager": "IndexError: index 1"}}
        self.assertEqual(self.settled(count(), UNetRunner())["severity"], "error")
        self.assertEqual(self.settled(count(), AgreeingRunner())["severity"], "note")

    def test_other_warnings_agreeing_everywhere_stay(self):
        # A limit below the export size (SL010), an exporter's record (SL011, SL014) and a
        # declaration (SL003) claim nothing runs near the export size would show.
        for rule, evidence in (("SL010", "hypothesis"), ("SL011", "hypothesis"),
                               ("SL014", "hypothesis"), ("SL003", "wrong_declaration")):
            finding = self.settled(self.literal(rule, evidence), AgreeingRunner())
            self.assertEqual(finding["severity"], "warning", rule)

    def test_scaled_binding(self):
        self.assertEqual(confirm.scaled_binding({"n": 2, "c": 3, "h": 7}, 2, {"c": 3}),
                         {"n": 4, "c": 3, "h": 14})
        fixed = confirm.fixed_sizes([
            {"severity": "note", "witness": {"ranges": [{"symbol": "c", "min": 3, "max": 3},
                                                        {"symbol": "t", "min": 1, "max": 64}]}},
            {"severity": "error", "witness": {"ranges": [{"symbol": "h", "min": 8, "max": 8}]}},
            # Every even size (a view into halves): a window that repeats, no one size.
            {"severity": "note", "witness": {"ranges": [{"symbol": "d", "min": 8, "max": 8,
                                                         "every": 2, "congruent_from": 2}]}}])
        self.assertEqual(fixed, {"c": 3})


# A stand-in for _ort_worker.py that speaks its protocol without ONNX Runtime: it loads files
# that hold b"model", doubles x, refuses a feed named "refuse" as ORT words a refusal, and dies
# of SIGFPE on a feed named "crash", as ORT's kernels can.
FAKE_WORKER = textwrap.dedent("""
    import os, pickle, resource, signal, sys
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # as the real worker points it at stderr
    def reply(message):
        pickle.dump(message, replies)
        replies.flush()
    sessions = []
    while True:
        try:
            request = pickle.load(sys.stdin.buffer)
        except EOFError:
            sys.exit(0)
        print("printed by the runtime")  # must not corrupt the replies
        if request[0] == "load":
            with open(request[1], "rb") as f:
                if f.read() != b"model":
                    reply(("error", "cannot load " + os.path.basename(request[1])))
                    continue
            sessions.append(request[1])
            reply(("ready", len(sessions)))
            continue
        if request[0] == "drop":
            reply(("dropped", None))
            continue
        if not 0 < request[1] <= len(sessions):
            reply(("error", "no session %d" % request[1]))
            continue
        feeds = request[2]
        if "crash" in feeds:
            os.kill(os.getpid(), signal.SIGFPE)
        if "refuse" in feeds:
            reply(("error", "[ONNXRuntimeError] : 2 : Non-zero status code returned while "
                            "running Reshape node. Name:'r' Status Message: bad target"))
            continue
        reply(("outputs", [feeds["x"] * 2]))
""")


class OrtProcessTest(unittest.TestCase):
    """The runtime's process: runs, refusals and crashes come back as outcomes, and the
    caller's process survives a crash."""

    X = np.arange(3, dtype=np.float32)

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.worker = os.path.join(self.dir.name, "worker.py")
        with open(self.worker, "w") as f:
            f.write(FAKE_WORKER)
        self.model = self.write("model.onnx", b"model")

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def session(self, path=None, **options):
        session = _runs.OrtProcess(path or self.model, command=[sys.executable, self.worker],
                                   **options)
        self.addCleanup(session._worker.close)
        return session

    def doubled(self, session):
        return session.run({"x": self.X}).outputs[0].tolist()

    def test_a_crash_is_a_failing_run_and_the_next_run_starts_again(self):
        session = self.session()
        self.assertEqual(self.doubled(session), [0.0, 2.0, 4.0])
        crashed = session.run({"x": self.X, "crash": self.X})
        self.assertEqual((crashed.outputs, crashed.error, crashed.node),
                         (None, "ONNX Runtime crashed (killed by SIGFPE)", None))
        self.assertEqual(self.doubled(session), [0.0, 2.0, 4.0])

    def test_sessions_share_a_process_and_survive_each_others_crash(self):
        first, second = self.session(), self.session(self.write("other.onnx", b"model"))
        self.assertIs(first._worker, second._worker)
        self.assertEqual(self.doubled(first), self.doubled(second))
        process = first._worker._process
        second.run({"x": self.X, "crash": self.X})
        self.assertEqual(self.doubled(first), [0.0, 2.0, 4.0])  # built again, in a new process
        self.assertIsNot(first._worker._process, process)

    def test_a_refusal_names_the_node(self):
        refused = self.session().run({"x": self.X, "refuse": self.X})
        self.assertEqual((refused.error, refused.node), ("bad target", "r"))

    def test_a_model_the_runtime_cannot_load_raises_its_message(self):
        with self.assertRaisesRegex(RuntimeError, "^cannot load garbage.onnx$"):
            self.session(self.write("garbage.onnx", b"garbage"))

    def test_a_copy_to_run_is_removed_once_loaded_also_after_a_restart(self):
        self.write("model.onnx", b"the file itself is not run")
        session = self.session(model_bytes=b"model")
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["model.onnx", "worker.py"])
        session.run({"x": self.X, "crash": self.X})
        self.assertEqual(self.doubled(session), [0.0, 2.0, 4.0])
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["model.onnx", "worker.py"])

    def test_closing_the_workers_ends_their_processes(self):
        session = self.session()
        process = session._worker._process
        _runs.close_workers()
        self.assertEqual(process.poll(), 0)
        self.assertEqual(self.doubled(session), [0.0, 2.0, 4.0])  # started again

    def test_the_real_worker_says_when_onnxruntime_is_missing(self):
        if HAS_ORT:
            self.skipTest("onnxruntime is installed here")
        with self.assertRaisesRegex(RuntimeError, "onnxruntime"):
            _runs.OrtProcess(self.model)

class HtmlTest(unittest.TestCase):

    def test_notebook_page_has_the_drawing_and_the_verdicts(self):
        page = confirm.confirm(str(POOL))._repr_html_()
        self.assertEqual(page.count("<svg"), 1)  # the path of the one finding
        # The runs are part of the main content, before the footer.
        runs = page[page.index('<section id="runs">'):page.index("</main>")]
        self.assertIn("<td>SL001</td><td>error</td>", runs)
        self.assertIn("not run: onnxruntime is not installed" if not HAS_ORT else
                      "confirmed: ONNX Runtime returns (2, 3, 3, 3)", runs)
        # Nothing loaded from elsewhere: every link is an anchor of the page.
        self.assertNotRegex(page, r"(src|href)=\"(?!#)|url\(|@import|<link|<script")

    def test_notebook_page_restyles_nothing_of_the_notebook(self):
        # Jupyter puts the HTML into its own page: one element, no document around it, and a
        # style sheet whose every rule applies only inside that element (no `*`, `body`, `h1`).
        page = confirm.confirm(str(POOL))._repr_html_()
        self.assertTrue(page.startswith('<div class="onnx-shapelint">\n<style>'), page[:80])
        self.assertTrue(page.endswith("</div>\n"), page[-80:])
        # (The drawing's SVG has <title>s of its own: a document's would name the report.)
        self.assertNotRegex(page, r"(?i)<(!doctype|html|head|body|meta)\b|<title>onnx-shapelint")
        self.assertLess(page.index("</main>"), page.index("<footer>"))
        self.assertLess(page.index('<section id="runs">'), page.index("</main>"))
        sheets = re.findall(r"<style>(.*?)</style>", page, re.S)
        self.assertEqual(len(sheets), 1)
        sheet = re.sub(r"/\*.*?\*/", "", sheets[0], flags=re.S)
        selectors = [s.strip() for rule in re.findall(r"([^{}]*)\{[^{}]*\}", sheet)
                     for s in rule.split(",")]
        self.assertGreater(len(selectors), 40)
        for selector in selectors:
            self.assertRegex(selector, r"^\.onnx-shapelint($|[ >])")


def run_confirm(*args):
    """`onnx-shapelint confirm ARGS` with the suite's binary; (exit code, stdout, stderr)."""
    binary = os.environ.get("SHAPELINT_CLI")
    if not binary:
        raise unittest.SkipTest("SHAPELINT_CLI is not set (ctest sets it)")
    # The binary hands over to python3 -m onnx_shapelint.confirm: this interpreter's.
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    run = subprocess.run([binary, "confirm", *map(str, args)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False, timeout=120,
                         env=dict(os.environ, PATH=path))
    return run.returncode, run.stdout.decode(), run.stderr.decode()


class CommandTest(unittest.TestCase):

    def test_confirm_runs_the_counterexample(self):
        code, out, err = run_confirm(POOL)
        self.assertEqual(code, 1, out + err)
        self.assertIn("error[SL001] baked-pool-kernel", out)
        if HAS_ORT:
            self.assertIn("  = confirmed: ONNX Runtime returns (2, 3, 3, 3), the model declares "
                          "(2, 3, 2, 3)\n", out)
        else:
            self.assertIn("  = not run: onnxruntime is not installed", out)
            self.assertIn("nothing was run", err)

    def test_clean_model(self):
        code, out, _ = run_confirm(CLEAN)
        self.assertEqual((code, out), (0, "0 errors, 0 warnings in 1 model\n"))

    def test_missing_file(self):
        code, _, err = run_confirm("no-such.onnx")
        self.assertEqual(code, 2)
        self.assertIn("no-such.onnx: error: ", err)


if __name__ == "__main__":
    unittest.main()
