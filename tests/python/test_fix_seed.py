"""The seed's cases, fixed: adaptive pooling exported at 6x6 and VGG11 with dynamic H/W, run on
ONNX Runtime against eager PyTorch (tests/corpus/fix/seed_fixes.json, written by
tools/models/fix_seed/check_seed_fixes.py from real runs). Standard library only."""

import json
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD = os.path.join(HERE, "..", "corpus", "fix", "seed_fixes.json")


class SeedFixTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(RECORD) as f:
            cls.models = {m["model"]: m for m in json.load(f)["models"]}

    def run_at(self, model, size):
        for r in self.models[model]["runs"]:
            if r["input"] == size:
                return r
        self.fail("%s has no run at %s" % (model, size))

    def test_every_fixed_model_matches_eager_at_every_size(self):
        for name, m in self.models.items():
            self.assertTrue(m["fix"]["fixed"], name)
            self.assertIn("1 finding fixed, 0 left", m["fix"]["output"], name)
            self.assertGreaterEqual(len(m["runs"]), 4, name)
            for r in m["runs"]:
                self.assertTrue(r["pass"], (name, r["input"]))
                self.assertEqual(r["fixed_ort"], r["eager"], (name, r["input"]))

    def test_the_pools_silently_grew_before_and_follow_pytorch_after(self):
        # adaptive_avg_pool2d(x, (2, 3)) exported at 6x6 is AveragePool(kernel [3, 2]): at 8x9
        # it returns 2x4 (floor((8-3)/3)+1 = 2, floor((9-2)/2)+1 = 4) where PyTorch gives 2x3.
        for name in ("adaptive_avg_pool2d", "adaptive_avg_pool2d.dynamo", "adaptive_max_pool2d",
                     "adaptive_max_pool2d.dynamo"):
            r = self.run_at(name, [1, 3, 8, 9])
            self.assertEqual(r["original_ort"], [1, 3, 2, 4], name)
            self.assertEqual(r["eager"], [1, 3, 2, 3], name)
            self.assertEqual(r["fixed_ort"], [1, 3, 2, 3], name)

    def test_vgg11_runs_at_256_and_448_once_fixed(self):
        for size in (224, 256, 448):
            r = self.run_at("vgg11", [1, 3, size, size])
            self.assertEqual(r["fixed_ort"], [1, 1000])
            if size == 224:
                self.assertEqual(r["original_ort"], [1, 1000])
            else:  # the classifier's Gemm meets 25088 features only at 224
                self.assertIn("Gemm", r["original_ort"])


if __name__ == "__main__":
    unittest.main()
