"""check(): LintError with the text report at or above fail_on, the findings otherwise."""

import unittest

import onnx_shapelint
from shapelint_testing import CLEAN, HALF_WIDTH, POOL, FakeProto, cli


class CheckTest(unittest.TestCase):

    def test_error_raises_lint_error_with_the_text_report(self):
        with self.assertRaises(onnx_shapelint.LintError) as raised:
            onnx_shapelint.check(POOL)
        error = raised.exception
        self.assertIsInstance(error, Exception)
        code, out = cli("--color", "never", POOL)
        self.assertEqual(code, 1)
        self.assertEqual(str(error), out.rstrip("\n"))
        self.assertIn("error[SL001] baked-pool-kernel", str(error))
        self.assertEqual(error.findings, onnx_shapelint.lint(POOL))

    def test_the_report_names_what_was_given(self):
        with self.assertRaisesRegex(onnx_shapelint.LintError, r"^<bytes>: main/AveragePool: "):
            onnx_shapelint.check(POOL.read_bytes())
        with self.assertRaisesRegex(onnx_shapelint.LintError, r"^<FakeProto>: main/AveragePool: "):
            onnx_shapelint.check(FakeProto(POOL.read_bytes()))

    def test_clean_model_passes(self):
        self.assertEqual(onnx_shapelint.check(CLEAN), [])
        self.assertEqual(onnx_shapelint.check(CLEAN, fail_on="note"), [])
        # Options are those of lint().
        self.assertEqual(onnx_shapelint.check(POOL, select="SL002"), [])

    def test_fail_on_sets_the_threshold(self):
        # An SL007 warning: returned at fail_on="error", raised at "warning" and "note".
        [finding] = onnx_shapelint.check(HALF_WIDTH, export_dims="x=2x4x8x10")
        self.assertEqual(finding["severity"], "warning")
        for fail_on in ("warning", "note"):
            with self.subTest(fail_on=fail_on):
                with self.assertRaisesRegex(onnx_shapelint.LintError, r"warning\[SL007\]") as e:
                    onnx_shapelint.check(HALF_WIDTH, fail_on, export_dims="x=2x4x8x10")
                self.assertEqual(e.exception.findings, [finding])
        with self.assertRaisesRegex(ValueError, "invalid fail_on 'fatal'"):
            onnx_shapelint.check(POOL, fail_on="fatal")

    def test_load_errors_are_not_lint_errors(self):
        with self.assertRaises(ValueError) as raised:
            onnx_shapelint.check(POOL.read_bytes()[:100])
        self.assertNotIsInstance(raised.exception, onnx_shapelint.LintError)


if __name__ == "__main__":
    unittest.main()
