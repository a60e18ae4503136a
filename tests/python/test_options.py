"""The keyword options of lint(): select, ignore, export_dims, dynamic, static."""

import unittest

import onnx_shapelint
from shapelint_testing import HALF_WIDTH, POOL, STATIC_POOL


def rules(findings):
    return [f["rule"] for f in findings]


class SelectIgnoreTest(unittest.TestCase):

    def test_select_takes_codes_names_and_prefixes(self):
        for select in ("SL001", "sl001", "baked-pool-kernel", "SL00", "ALL", ["SL002", "SL001"],
                       "SL002, SL001", ("SL001",), (code for code in ["SL001"])):
            with self.subTest(select=select):
                self.assertEqual(rules(onnx_shapelint.lint(POOL, select=select)), ["SL001"])

    def test_select_without_the_rule_finds_nothing(self):
        self.assertEqual(onnx_shapelint.lint(POOL, select="SL002"), [])
        self.assertEqual(onnx_shapelint.lint(POOL, select=["SL002", "SL004"]), [])
        # An empty selection runs no rule, as in the configuration file.
        self.assertEqual(onnx_shapelint.lint(POOL, select=[]), [])

    def test_ignore_wins_over_select(self):
        # Without SL001, the declared output the pool contradicts is SL003's, axis by axis.
        self.assertEqual(rules(onnx_shapelint.lint(POOL, ignore="SL001")), ["SL003", "SL003"])
        self.assertEqual(
            onnx_shapelint.lint(POOL, ignore=["baked-pool-kernel", "declared-shape-mismatch"]), [])
        self.assertEqual(onnx_shapelint.lint(POOL, select="SL001", ignore="SL00"), [])
        self.assertEqual(rules(onnx_shapelint.lint(POOL, ignore="SL002")), ["SL001"])

    def test_unknown_rules_are_value_errors(self):
        with self.assertRaisesRegex(ValueError, r"unknown rule 'SL999' in select"):
            onnx_shapelint.lint(POOL, select="SL999")
        with self.assertRaisesRegex(ValueError, r"unknown rule 'nope' in ignore"):
            onnx_shapelint.lint(POOL, ignore=["SL001", "nope"])
        with self.assertRaises(TypeError):
            onnx_shapelint.lint(POOL, select=1)
        with self.assertRaises(TypeError):
            onnx_shapelint.lint(POOL, select=["SL001", 1])


class ExportDimsTest(unittest.TestCase):

    def test_export_dims_report_literals_equal_to_example_sizes(self):
        self.assertEqual(onnx_shapelint.lint(HALF_WIDTH), [])
        [finding] = onnx_shapelint.lint(HALF_WIDTH, export_dims="x=2x4x8x10")
        self.assertEqual((finding["rule"], finding["severity"]), ("SL007", "warning"))
        self.assertIn("Slice ends 5 = W // 2", finding["message"])
        # Named sizes, in one str or a list, say the same.
        for dims in ("W=10,H=8", ["W=10", "H=8"]):
            with self.subTest(dims=dims):
                self.assertEqual(onnx_shapelint.lint(HALF_WIDTH, export_dims=dims), [finding])

    def test_export_dims_that_do_not_fit_are_value_errors(self):
        with self.assertRaisesRegex(ValueError, r"slice_half_width_no_export_dims\.onnxtxt: "
                                    r"export dims: the model has no input dim named 'width'"):
            onnx_shapelint.lint(HALF_WIDTH, export_dims="width=10")
        with self.assertRaisesRegex(ValueError, "an input shape does not fit the model"):
            onnx_shapelint.lint(HALF_WIDTH, export_dims="x=2x4x8")
        with self.assertRaisesRegex(ValueError, "not a range"):
            onnx_shapelint.lint(HALF_WIDTH, export_dims="W=1..10")
        with self.assertRaisesRegex(ValueError, "in export_dims 'W'"):
            onnx_shapelint.lint(HALF_WIDTH, export_dims="W")


class DynamicStaticTest(unittest.TestCase):

    def test_dynamic_axes_in_any_spelling(self):
        self.assertEqual(onnx_shapelint.lint(STATIC_POOL), [])
        expected = onnx_shapelint.lint(STATIC_POOL, dynamic=["x:2=height", "x:-1"])
        self.assertEqual(rules(expected), ["SL001"])
        self.assertIn("height", expected[0]["symbols"])
        for dynamic in ("x:2=height,x:-1", [("x", 2, "height"), ("x", -1)],
                        [("x", 2, "height"), "x:-1"]):
            with self.subTest(dynamic=dynamic):
                self.assertEqual(onnx_shapelint.lint(STATIC_POOL, dynamic=dynamic), expected)

    def test_static_fixes_a_dynamic_size_back(self):
        self.assertEqual(
            onnx_shapelint.lint(STATIC_POOL, dynamic="x:2=height", static={"height": 6}), [])
        self.assertEqual(
            onnx_shapelint.lint(POOL, static={
                "x_dynamic_axes_3": 6,
                "x_dynamic_axes_4": 6
            }), [])

    def test_axes_and_names_the_model_does_not_have_are_value_errors(self):
        with self.assertRaisesRegex(ValueError, r"no input 'image' \(its inputs: x\)"):
            onnx_shapelint.lint(STATIC_POOL, dynamic="image:2")
        with self.assertRaisesRegex(ValueError, r"input 'x' has no axis 4 \(rank 4\)"):
            onnx_shapelint.lint(STATIC_POOL, dynamic=[("x", 4)])
        with self.assertRaisesRegex(ValueError, r"invalid axis 'x2' \(expected INPUT:AXIS"):
            onnx_shapelint.lint(STATIC_POOL, dynamic=["x2"])
        with self.assertRaisesRegex(ValueError, "no input dim of the model is named 'batch'"):
            onnx_shapelint.lint(STATIC_POOL, static={"batch": 1})
        with self.assertRaisesRegex(ValueError, "expected >= 0"):
            onnx_shapelint.lint(POOL, static={"x_dynamic_axes_3": -1})
        with self.assertRaisesRegex(ValueError, "out of range"):
            onnx_shapelint.lint(POOL, static={"x_dynamic_axes_3": 2**64})

    def test_options_of_the_wrong_type_are_type_errors(self):
        for options in ({"dynamic": [("x",)]}, {"dynamic": [("x", "2")]}, {"dynamic": 2},
                        {"static": ["batch=1"]}, {"static": {"batch": "1"}}):
            with self.subTest(options=options), self.assertRaises(TypeError):
                onnx_shapelint.lint(STATIC_POOL, **options)

    def test_options_are_keywords_only(self):
        with self.assertRaises(TypeError):
            onnx_shapelint.lint(POOL, "SL001")  # pylint: disable=too-many-function-args
        with self.assertRaises(TypeError):
            onnx_shapelint.lint(POOL, fail_on="error")  # pylint: disable=unexpected-keyword-arg


if __name__ == "__main__":
    unittest.main()
