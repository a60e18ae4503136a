"""onnx_shapelint.torch.export() on the torch 2.x corpus at scale, as
tools/models/check_export_api.py recorded it (tests/corpus/torch2/export_api.json), against the
corpus labels, which export_torch2.py wrote from its own runs of ONNX Runtime against eager
PyTorch (ground_truth.json). Nothing runs here: the record is checked for what docs/python.md
claims of it."""

import json
import unittest

from shapelint_testing import CORPUS

TORCH2 = CORPUS / "torch2"


def load(name):
    with open(TORCH2 / name, encoding="utf-8") as f:
        return json.load(f)["models"]


class ExportApiTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.api = load("export_api.json")
        cls.labels = load("ground_truth.json")

    def test_the_record_covers_the_small_modules(self):
        # 117 modules, each by both exporters where torch exports it.
        self.assertGreaterEqual(len(self.api), 200)
        self.assertEqual(sorted(set(self.api) - set(self.labels)), [])

    def test_findings_are_the_command_lines(self):
        differ = [n for n, r in self.api.items() if not r["same_findings"]]
        self.assertEqual(differ, [])

    def test_confirmed_counterexamples_agree_with_the_labels(self):
        # A counterexample ONNX Runtime and PyTorch disagree on is a break: the model must be
        # labelled breaking, or the exporter declared a requested axis static. The labels leave
        # those sizes out ("declared static (not counted)"); export() reports the declaration
        # (ST001) and runs the graph with the axis dynamic, as asked.
        wrong = []
        for name, record in self.api.items():
            label = self.labels[name]
            for v in record["verdicts"]:
                if v["verdict"] == "confirmed" and not label["breaks"] and \
                        not label.get("specialized"):
                    wrong.append((name, v["rule"], v["detail"]))
        self.assertEqual(wrong, [])

    def test_the_dynamic_check_reports_only_models_that_break(self):
        reported = [n for n, r in self.api.items() if any(f.startswith("ST003:") for f in
                                                          r["findings"])]
        self.assertEqual([n for n in reported if not self.labels[n]["breaks"]], [])

    def test_every_breaking_export_has_an_error_and_no_healthy_one_has(self):
        # Labelled breaking: ONNX Runtime disagreed with eager somewhere the file declares
        # dynamic. Healthy: they agreed at every labelled size, and no requested axis came out
        # static (those are ST001's, and are left out here).
        missed, false = [], []
        for name, record in self.api.items():
            label = self.labels[name]
            errors = [f for f in record["findings"] if f.endswith(":error")]
            if label["breaks"] and not errors:
                missed.append(name)
            elif not label["breaks"] and not label.get("specialized") and errors:
                false.append((name, errors))
        self.assertEqual((missed, false), ([], []))

    def test_requested_axes_that_came_out_static_are_the_labels(self):
        # export_torch2.py lists the requested axes a file declares static ("specialized");
        # ST001 (or, where the module refuses the size, its note) names each such input.
        for name, record in self.api.items():
            specialized = self.labels[name].get("specialized") or []
            st001 = [f for f in record["findings"] if f.startswith("ST001:")]
            self.assertEqual(len(st001), len(specialized), (name, specialized,
                                                             record["findings"]))


if __name__ == "__main__":
    unittest.main()
