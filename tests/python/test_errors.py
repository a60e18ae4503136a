"""Models that cannot be loaded raise exceptions that name them; nothing aborts the interpreter."""

import os
import pathlib
import re
import tempfile
import textwrap
import unittest

import onnx_shapelint
from shapelint_testing import CORPUS, POOL, SOURCE_DIR, FakeProto, run_python


class LoadErrorTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()  # pylint: disable=consider-using-with
        self.addCleanup(self.dir.cleanup)

    def test_missing_file_is_file_not_found(self):
        missing = os.path.join(self.dir.name, "missing.onnx")
        for given in (missing, pathlib.Path(missing)):
            with self.subTest(type(given).__name__):
                with self.assertRaises(FileNotFoundError) as raised:
                    onnx_shapelint.lint(given)
                self.assertIsInstance(raised.exception, OSError)
                self.assertEqual(raised.exception.filename, given)
                self.assertIn(missing, str(raised.exception))
        with self.assertRaises(FileNotFoundError):
            onnx_shapelint.check(missing)

    def test_directory_is_an_os_error(self):
        with self.assertRaises(IsADirectoryError) as raised:
            onnx_shapelint.lint(self.dir.name)
        self.assertIn(self.dir.name, str(raised.exception))

    def test_truncated_file_names_the_file(self):
        truncated = pathlib.Path(self.dir.name, "truncated.onnx")
        truncated.write_bytes(POOL.read_bytes()[:150])
        expected = f"^{re.escape(str(truncated))}: cannot be parsed as an ONNX model"
        with self.assertRaisesRegex(ValueError, expected):
            onnx_shapelint.lint(truncated)

    def test_truncated_bytes_name_the_bytes(self):
        with self.assertRaisesRegex(ValueError, r"^<bytes>: cannot be parsed as an ONNX model"):
            onnx_shapelint.lint(POOL.read_bytes()[:150])
        with self.assertRaisesRegex(ValueError, r"^<FakeProto>: cannot be parsed"):
            onnx_shapelint.lint(FakeProto(POOL.read_bytes()[:150]))
        with self.assertRaisesRegex(ValueError, r"^<bytes>: empty file"):
            onnx_shapelint.lint(b"")

    def test_files_that_are_not_onnx(self):
        readme = SOURCE_DIR / "README.md"  # starts with '#': read as ONNX text
        expected = f"^{re.escape(str(readme))}: invalid ONNX text format"
        with self.assertRaisesRegex(ValueError, expected):
            onnx_shapelint.lint(readme)
        with self.assertRaisesRegex(ValueError, r"^<bytes>: "):
            onnx_shapelint.lint(b"\x00\x01\x02 not a model")
        with self.assertRaisesRegex(ValueError, r"cycle\.onnxtxt: cycle: "):
            onnx_shapelint.lint(SOURCE_DIR / "tests" / "tools" / "inputs" / "cycle.onnxtxt")

    def test_arguments_of_the_wrong_type(self):
        for given in (None, 42, ["model.onnx"], FakeProto("not bytes")):
            with self.subTest(given=given), self.assertRaises(TypeError):
                onnx_shapelint.lint(given)
        with self.assertRaisesRegex(ValueError, "embedded null byte"):
            onnx_shapelint.lint(str(POOL) + "\0.txt")


class NoAbortTest(unittest.TestCase):

    def test_broken_models_raise_and_never_abort(self):
        # In a child interpreter: an abort or a crash there is a failed test, not a lost run.
        code = textwrap.dedent(f"""
            import collections, pathlib, random
            import onnx_shapelint

            outcomes = collections.Counter()
            def attempt(data, **options):
                try:
                    onnx_shapelint.lint(data, **options)
                    outcomes["linted"] += 1
                except ValueError:
                    outcomes["ValueError"] += 1

            pool = pathlib.Path({str(POOL)!r}).read_bytes()
            for n in range(len(pool)):
                attempt(pool[:n])
                attempt(pool[:n], export_dims="x=2x3x6x6", dynamic="x:1")
            vgg = pathlib.Path({str(CORPUS / "torch" / "vgg11.onnx")!r}).read_bytes()
            rng = random.Random(1)
            for _ in range(400):
                data = bytearray(vgg)
                for _ in range(rng.randint(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                attempt(bytes(data))
            for _ in range(200):
                attempt(bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))))
            print(dict(outcomes))
            """)
        run = run_python(code)
        output = run.stdout.decode(errors="replace")
        self.assertEqual(run.returncode, 0, output)
        self.assertIn("'ValueError'", output)


if __name__ == "__main__":
    unittest.main()
