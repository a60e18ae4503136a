"""onnx_shapelint.fix(): bytes, paths and onnx.ModelProto in, the repaired model out."""

import os
import tempfile
import unittest

try:
    import onnx
    import onnx.checker
    import onnx.helper
    import onnx.numpy_helper
except ImportError:
    onnx = None

import onnx_shapelint

NEEDS_ONNX = "needs python3-onnx"


def traced_int_reshape():
    """x.view(int(x.size(0)), -1) traced at batch 2: the target [2, -1]."""
    h = onnx.helper
    target = h.make_tensor("target", onnx.TensorProto.INT64, [2], [2, -1])
    graph = h.make_graph(
        [h.make_node("Constant", [], ["shape"], value=target),
         h.make_node("Reshape", ["x", "shape"], ["y"])], "traced",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3, 4, 4])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 48])])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


@unittest.skipUnless(onnx, NEEDS_ONNX)
class FixTest(unittest.TestCase):

    def test_model_proto_fixed_and_checked(self):
        model = traced_int_reshape()
        self.assertEqual([f["rule"] for f in onnx_shapelint.lint(model)], ["SL002"])
        result = onnx_shapelint.fix(model)
        self.assertTrue(result.changed)
        self.assertEqual([(f["rule"], f["op_type"]) for f in result.fixed], [("SL002", "Reshape")])
        self.assertEqual(result.unfixed, [])
        self.assertIsInstance(result.proto, onnx.ModelProto)
        onnx.checker.check_model(result.proto, full_check=True)
        self.assertEqual(onnx_shapelint.lint(result.proto), [])
        # The target keeps the batch with Reshape's 0: [0, -1], a constant still.
        constants = [n for n in result.proto.graph.node if n.op_type == "Constant"]
        values = [list(onnx.numpy_helper.to_array(a.t)) for n in constants for a in n.attribute]
        self.assertIn([0, -1], values)
        self.assertIn("~ Reshape", "\n".join(result.diff))
        self.assertIn("1 fixed, 0 left", str(result))

    def test_path_in_path_out_never_the_input(self):
        with tempfile.TemporaryDirectory() as work:
            source = os.path.join(work, "model.onnx")
            onnx.save(traced_int_reshape(), source)
            before = open(source, "rb").read()
            with self.assertRaisesRegex(ValueError, "overwrite the input"):
                onnx_shapelint.fix(source, source)
            self.assertEqual(open(source, "rb").read(), before)
            out = os.path.join(work, "fixed.onnx")
            result = onnx_shapelint.fix(source, out)
            self.assertEqual(open(out, "rb").read(), result.model)
            again = onnx_shapelint.fix(out)
            self.assertFalse(again.changed)
            self.assertEqual(again.model, result.model)
            self.assertEqual(sorted(os.listdir(work)), ["fixed.onnx", "model.onnx"])

    def test_external_weights_stay_found_from_the_output(self):
        # x.view(int(x.size(0)), -1) + w, w's 48 floats in weights.bin beside the model in
        # models/: written one directory up, the fixed model reads models/weights.bin; written
        # beside models/, it is refused with where it can go.
        h = onnx.helper
        model = traced_int_reshape()
        w = onnx.numpy_helper.from_array(__import__("numpy").ones((48,), "float32"), "w")
        model.graph.initializer.append(w)
        model.graph.node.append(h.make_node("Add", ["y", "w"], ["z"]))
        model.graph.output[0].name = "z"
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, "models"))
            os.makedirs(os.path.join(work, "out"))
            source = os.path.join(work, "models", "model.onnx")
            onnx.save(model, source, save_as_external_data=True, location="weights.bin",
                      size_threshold=0)
            out = os.path.join(work, "fixed.onnx")
            result = onnx_shapelint.fix(source, out)
            self.assertEqual([f["rule"] for f in result.fixed], ["SL002"])
            fixed = onnx.load(out)  # reads models/weights.bin through the new location
            self.assertEqual(onnx.numpy_helper.to_array(fixed.graph.initializer[-1]).sum(), 48)
            location = {e.key: e.value for e in onnx.load(out, load_external_data=False)
                        .graph.initializer[-1].external_data}["location"]
            self.assertEqual(location, "models/weights.bin")
            with self.assertRaisesRegex(ValueError, "write the fixed model into"):
                onnx_shapelint.fix(source, os.path.join(work, "out", "fixed.onnx"))
            self.assertEqual(os.listdir(os.path.join(work, "out")), [])

    def test_select_and_not_a_model(self):
        model = traced_int_reshape().SerializeToString()
        result = onnx_shapelint.fix(model, select=["SL004"])
        self.assertFalse(result.changed)
        self.assertEqual(result.model, model)
        with self.assertRaises(Exception):
            onnx_shapelint.fix(b"not a model")


if __name__ == "__main__":
    unittest.main()
