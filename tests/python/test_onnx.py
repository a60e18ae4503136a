"""With python3-onnx: onnx.ModelProto as input, and onnx and onnx_shapelint in one process.

Both use ONNX's protobuf messages (Python's onnx through its own extension, this module through
libonnx_proto), so each import order is tried in a fresh interpreter.
"""

import textwrap
import unittest

try:
    import onnx
    import onnx.helper
except ImportError:
    onnx = None

from shapelint_testing import CLEAN, POOL, run_python

# tests/CMakeLists.txt reports the test as skipped when this is printed.
NEEDS_ONNX = "needs python3-onnx"


@unittest.skipUnless(onnx, NEEDS_ONNX)
class ModelProtoTest(unittest.TestCase):

    def test_model_proto_from_onnx_load(self):
        import onnx_shapelint  # pylint: disable=import-outside-toplevel
        model = onnx.load(str(POOL))
        self.assertIsInstance(model, onnx.ModelProto)
        findings = onnx_shapelint.lint(model)
        self.assertEqual(findings, onnx_shapelint.lint(POOL))
        self.assertEqual([f["rule"] for f in findings], ["SL001"])
        with self.assertRaisesRegex(onnx_shapelint.LintError, r"^<ModelProto>: main/AveragePool"):
            onnx_shapelint.check(model)
        self.assertEqual(onnx_shapelint.check(onnx.load(str(CLEAN))), [])

    def test_model_built_with_onnx_helper(self):
        import onnx_shapelint  # pylint: disable=import-outside-toplevel
        h = onnx.helper
        graph = h.make_graph(
            [h.make_node("Relu", ["x"], ["y"])], "relu",
            [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 3])],
            [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 3])])
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
        self.assertEqual(onnx_shapelint.check(model), [])
        # A model that is not valid is a ValueError, as from a file.
        del model.graph.node[:]
        model.graph.node.append(h.make_node("Relu", ["missing"], ["y"]))
        with self.assertRaisesRegex(ValueError, r"^<ModelProto>: "):
            onnx_shapelint.lint(model)

    def test_either_import_order(self):
        use_both = textwrap.dedent(f"""
            model = onnx.load({str(POOL)!r})
            onnx.checker.check_model(model)
            onnx.shape_inference.infer_shapes(model)
            assert [f["rule"] for f in onnx_shapelint.lint(model)] == ["SL001"]
            assert onnx_shapelint.lint({str(POOL)!r}) == onnx_shapelint.lint(model)
            onnx.checker.check_model(onnx.load({str(CLEAN)!r}))
            print("ok")
            """)
        for imports in ("import onnx, onnx.checker, onnx.shape_inference\nimport onnx_shapelint",
                        "import onnx_shapelint\nimport onnx, onnx.checker, onnx.shape_inference"):
            with self.subTest(imports=imports):
                run = run_python(imports + "\n" + use_both)
                output = run.stdout.decode(errors="replace")
                self.assertEqual((run.returncode, output), (0, "ok\n"), output)


if __name__ == "__main__":
    unittest.main()
