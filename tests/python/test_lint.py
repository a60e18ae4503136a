"""lint(): every kind of input, findings as the JSON report has them, rules() and __version__."""

import json
import re
import textwrap
import threading
import unittest

import onnx_shapelint
from shapelint_testing import (CLEAN, CORPUS, HALF_WIDTH, POOL, SOURCE_DIR, FakeProto, cli,
                               run_python)


def documented_fields(section):
    """The field names of a `### section` table in docs/json-format.md."""
    text = (SOURCE_DIR / "docs" / "json-format.md").read_text(encoding="utf-8")
    body = text.split(f"\n### {section}\n", 1)[1].split("\n#", 1)[0]
    return {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", body, re.M)}


class InputTest(unittest.TestCase):

    def test_every_kind_of_input_gives_the_same_findings(self):
        expected = onnx_shapelint.lint(str(POOL))
        self.assertEqual(len(expected), 1)
        data = POOL.read_bytes()
        for given in (POOL, data, bytearray(data), memoryview(data), FakeProto(data)):
            with self.subTest(type(given).__name__):
                self.assertEqual(onnx_shapelint.lint(given), expected)

    def test_onnx_text_from_a_path_and_from_bytes(self):
        from_path = onnx_shapelint.lint(HALF_WIDTH, export_dims="x=2x4x8x10")
        self.assertEqual([f["rule"] for f in from_path], ["SL007"])
        from_bytes = onnx_shapelint.lint(HALF_WIDTH.read_bytes(), export_dims="x=2x4x8x10")
        self.assertEqual(from_bytes, from_path)

    def test_healthy_model_is_clean(self):
        self.assertEqual(onnx_shapelint.lint(CLEAN), [])
        self.assertEqual(onnx_shapelint.lint(CLEAN.read_bytes()), [])


class FindingTest(unittest.TestCase):

    def test_adaptive_avg_pool2d_is_sl001_as_in_the_readme(self):
        [finding] = onnx_shapelint.lint(POOL)
        self.assertEqual(finding["rule"], "SL001")
        self.assertEqual(finding["name"], "baked-pool-kernel")
        self.assertEqual(finding["severity"], "error")
        self.assertEqual(finding["node"]["name"], "/AveragePool")
        self.assertEqual(finding["node"]["op_type"], "AveragePool")
        self.assertEqual(finding["node"]["graph"], "main")
        self.assertIn("kernel_shape=[3, 2]", finding["message"])
        # "works only for x_dynamic_axes_3 in [6, 8] and x_dynamic_axes_4 in [6, 7]"
        bounded = {
            r["symbol"]: (r["min"], r["max"])
            for r in finding["witness"]["ranges"]
            if r["max"] is not None
        }
        self.assertEqual(bounded, {"x_dynamic_axes_3": (6, 8), "x_dynamic_axes_4": (6, 7)})
        # "at x_dynamic_axes_1=2, x_dynamic_axes_2=3, x_dynamic_axes_3=9, x_dynamic_axes_4=6
        # (x: [2, 3, 9, 6]): output 'y' is [2, 3, 3, 3], declared [2, 3, 2, 3]": height moved alone
        # past its range, 9 // 3 = 3 rows
        cx = finding["counterexample"]
        self.assertEqual(
            cx["binding"], {
                "x_dynamic_axes_1": 2,
                "x_dynamic_axes_2": 3,
                "x_dynamic_axes_3": 9,
                "x_dynamic_axes_4": 6
            })
        self.assertEqual(cx["inputs"], {"x": [2, 3, 9, 6]})
        self.assertEqual(cx["outputs"], [{
            "value": "y",
            "actual": [2, 3, 3, 3],
            "expected": [2, 3, 2, 3]
        }])

    def test_findings_have_the_documented_fields(self):
        [finding] = onnx_shapelint.lint(POOL)
        self.assertEqual(set(finding), documented_fields("finding"))
        self.assertEqual(set(finding["node"]), documented_fields("node"))

    def test_findings_are_those_of_the_json_report(self):
        for model, options, args in (
            (POOL, {}, []),
            (CORPUS / "torch" / "kron_decomposed.onnx", {}, []),
            (CORPUS / "torch" / "vgg11.onnx", {}, []),
            (HALF_WIDTH, {"export_dims": "x=2x4x8x10"}, ["--export-dims", "x=2x4x8x10"]),
        ):
            with self.subTest(model.name):
                _, out = cli("--format", "json", *args, model)
                expected = json.loads(out)["models"][0]["findings"]
                self.assertTrue(expected)
                self.assertEqual(onnx_shapelint.lint(model, **options), expected)


class ThreadTest(unittest.TestCase):

    def test_threads_get_the_same_findings(self):
        model = CORPUS / "torch" / "vgg11.onnx"
        expected = onnx_shapelint.lint(model)
        results = [None] * 4

        def run(i):
            results[i] = onnx_shapelint.lint(model)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(results))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [expected] * len(results))

    def test_the_gil_is_released_while_loading(self):
        # A worker lints a FIFO; this thread writes the model into it once the worker waits for
        # it. Were the GIL held meanwhile, this thread could not write: the child interpreter
        # would hang until the timeout.
        code = textwrap.dedent(f"""
            import os, tempfile, threading, time
            import onnx_shapelint

            fifo = os.path.join(tempfile.mkdtemp(), "model.onnx")
            os.mkfifo(fifo)
            fd = os.open(fifo, os.O_RDWR)  # a writer, so that the worker's open does not wait
            result = []
            worker = threading.Thread(target=lambda: result.append(onnx_shapelint.lint(fifo)),
                                      daemon=True)
            worker.start()
            time.sleep(0.5)  # the worker now waits in read()
            with open({str(POOL)!r}, "rb") as model:
                os.write(fd, model.read())
            os.close(fd)
            worker.join()
            print([f["rule"] for f in result[0]])
            """)
        run = run_python(code, timeout=60)
        self.assertEqual(run.stdout.decode(), "['SL001']\n")


class RegistryTest(unittest.TestCase):

    def test_rules_are_those_of_list_rules(self):
        _, out = cli("--list-rules")
        listed = [re.split(r"\s{2,}", line.strip(), maxsplit=2) for line in out.splitlines()]
        rules = onnx_shapelint.rules()
        self.assertEqual([[r["code"], r["name"], r["summary"]] for r in rules], listed)
        self.assertEqual({r["level"] for r in rules} - {"error", "warning", "note"}, set())
        self.assertEqual(rules[0]["code"], "SL001")
        self.assertEqual(rules[0]["level"], "error")

    def test_version_is_the_tools(self):
        _, out = cli("--version")
        self.assertEqual(f"onnx-shapelint {onnx_shapelint.__version__}\n", out)


if __name__ == "__main__":
    unittest.main()
