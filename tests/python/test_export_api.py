"""onnx_shapelint.torch.export() on the torch 2.x corpus at scale, as
tools/models/check_export_api.py recorded it (tests/corpus/torch2/export_api.json), against the
corpus labels, which export_torch2.py wrote from its own runs of ONNX Runtime against eager
PyTorch (ground_truth.json); and on the held-out corpora (export_api.json beside each one's
labels). Nothing runs here: the records are checked for what docs/python.md and
docs/ground-truth.md claim of them.

The labels are those of the committed files. torch does not always export a module the same
way twice (an axis it specialized in one run stays dynamic in another, a size it folded into a
literal in one run it computes in another), so an export whose structure differs from the
committed file's ("same_graph": false: declared inputs, ops, attributes, small integer
tensors) is another model, and only its findings' agreement with the command line is
judged."""

import json
import unittest

from shapelint_testing import CORPUS

TORCH2 = CORPUS / "torch2"

# Breaking networks export() gives no error: none. torchvision's Swin-T (both exporters) was the
# last: from 225 to 227 it agrees with eager (its 4x4 patch embedding floors them to the 56x56
# grid of 224), at 229 and 232 it does not (max |difference| 0.05), nor at the labels' 232, 256
# and 192x288, and the dynamic check's probes were 223 to 226. They now step to where the
# graph's sizes change (228, the grid of 57), where the two disagree: ST003.
KNOWN_MISSED = []

NETWORK_PREFIXES = ("tv_", "timm_", "hf_")


def load(name):
    with open(TORCH2 / name, encoding="utf-8") as f:
        return json.load(f)["models"]


class ExportApiTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.api = load("export_api.json")
        cls.labels = load("ground_truth.json")
        cls.judged = {n: r for n, r in cls.api.items() if r["same_graph"]}

    def test_the_record_covers_the_small_modules(self):
        small = [n for n in self.judged if not n.startswith(NETWORK_PREFIXES)]
        self.assertGreaterEqual(len(small), 190)
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
        for name, record in self.judged.items():
            label = self.labels[name]
            for v in record["verdicts"]:
                if v["verdict"] == "confirmed" and not label["breaks"] and \
                        not label.get("specialized"):
                    wrong.append((name, v["rule"], v["detail"]))
        self.assertEqual(wrong, [])

    def test_the_dynamic_check_reports_only_models_that_break(self):
        reported = [n for n, r in self.judged.items()
                    if any(f.startswith("ST003:") for f in r["findings"])]
        self.assertEqual([n for n in reported if not self.labels[n]["breaks"]], [])

    def test_every_breaking_export_has_an_error_and_no_healthy_one_has(self):
        # Labelled breaking: ONNX Runtime disagreed with eager somewhere the file declares
        # dynamic. Healthy: they agreed at every labelled size, and no requested axis came out
        # static (those are ST001's, and are left out here).
        missed, false = [], []
        for name, record in self.judged.items():
            label = self.labels[name]
            errors = [f for f in record["findings"] if f.endswith(":error")]
            if label["breaks"] and not errors:
                missed.append(name)
            elif not label["breaks"] and not label.get("specialized") and errors:
                false.append((name, errors))
        self.assertEqual((sorted(missed), false), (KNOWN_MISSED, []))

    def test_requested_axes_that_came_out_static_are_the_labels(self):
        # export_torch2.py lists the requested axes a file declares static ("specialized");
        # ST001 (or, where the module refuses the size, its note) names each such input.
        for name, record in self.judged.items():
            specialized = self.labels[name].get("specialized") or []
            st001 = [f for f in record["findings"] if f.startswith("ST001:")]
            self.assertEqual(len(st001), len(specialized), (name, specialized,
                                                             record["findings"]))


# The corpora of modules never used to tune the linter, each recorded by
# `check_export_api.py --family NAME` into tests/corpus/NAME/export_api.json.
HELD_OUT = ("unseen", "fresh", "blind", "sealed", "veiled", "cloaked", "shrouded", "obscured",
            "masked", "hidden", "covert")

# Healthy by their labels, but the dynamic check found sizes where ONNX Runtime and eager
# PyTorch disagree, each checked by hand on both sides: the labels ran no such size.
LABELS_MISSED = {
    # F.pad by diffs of x.size() // 2: where the skip is smaller than the upsampled map the
    # diff is negative, and ONNX's truncating Div crops one row less on top than Python's
    # floor division (x1 [4, 4, 8, 7], x2 [4, 2, 11, 15]: max |difference| 0.89).
    "blind/unet_pad_up_to_skip.dynamo.onnx", "blind/unet_pad_up_to_skip.ts.onnx",
}


# The shape-visible dynamo breaks export() gives no error: none. min_side_pad_branch was the
# last: it reflect-pads maps whose shorter side is below 16, taken at 8 x 10, so the graph
# differs only where both sides are 16 or more, which every probe near the export size kept
# below, until the dynamic check ran every size doubled too (16 x 20).
DYNAMO_MISSED = [
    # The covert modules' Video-ChatGPT pads its temporal tokens with zeros(100 - t, c) only in a
    # branch `if padding_size > 0`, exported at 6 frames; the graph keeps the pad and breaks past
    # 100 frames. torch.export recorded the range its branch guarded (SL014) and the dynamic
    # check saw a difference it could not settle (ST002), warnings both. Blind, first measured.
    "covert/videochatgpt_pad_branch.dynamo.onnx",
    # The hidden modules' recurrent PPO zips its sequences into chunks of a Python loop's
    # length; torch.export recorded the specialization (SL011), a warning, and no run near the
    # export sizes breaks where the runs of the labels do. Blind, as first measured.
    "hidden/recurrent_ppo_sequence_zip_loop.dynamo.onnx",
]


# The healthy exports export() leaves a warning on, each checked by hand against the severity
# policy (docs/severity.md): warnings no run near the export size settles.
HEALTHY_WARNED = {
    # TorchScript declares every output axis dynamic_axes does not name as the example's number,
    # where the graph follows the inputs: the declaration holds the example size (SL003).
    "unseen/chunk_mean_unflatten.ts.onnx", "unseen/einsum_heads_unflatten.ts.onnx",
    "fresh/assert_multiple_unflatten.ts.onnx", "blind/unflatten_chunks.ts.onnx",
    # torch.export's record of a size nothing in the graph uses (SL011), or of a range a branch
    # guarded that the graph does not enforce (SL014): true of the export whatever runs show.
    "fresh/detr_sine_new_ones.dynamo.onnx", "blind/fixed_levels_pool.dynamo.onnx",
    "sealed/whisper_pad_or_trim.dynamo.onnx",
    # Errors whose counterexample PyTorch refuses too: the source shares the limit.
    "sealed/alibi_bias_arange.ts.onnx", "sealed/shape_tuple_concat_view.ts.onnx",
    "sealed/ssd_priors_buffer.ts.onnx",
    # SwAV's Sinkhorn divides by int() sizes whose factors cancel: torch.export's record of a
    # specialized size nothing in the graph uses (SL011).
    "masked/swav_sinkhorn_python_k_and_b.dynamo.onnx",
    # The hidden modules. First measured with four more: errors on literals the module writes
    # that a weight after them needs anyway (the Decision Transformer's padding of its 4 state
    # features, QMIX's view of its 3 agents and 6 state features), which PyTorch refused too.
    # Their repairs fail at those weights (lib/lint/repair_check.h): notes now, no warning.
    # torch.export's record of a size (len(priorities)) nothing in the graph uses (SL011). First
    # measured with an SL007 hypothesis on a CT volume resampled to the module's own 4 x 8 x 8
    # grid too: the runs refute it since the Conv3d(1, ...)'s weight holds the channels at 1
    # (SL004's witness), where the sizes doubled had doubled them and PyTorch refused.
    "hidden/per_importance_weights_buffer_len.dynamo.onnx",
    # The covert modules, blind, as first measured. pytorch-fm's FFM adds its numpy field
    # offsets to the field axis (both exporters) and VideoMAE a fixed table of 8 tokens after its
    # own check that images are 8 x 8: SL005's errors, whose counterexamples PyTorch refuses too
    # (the source shares the limit). NAFNet's TLC pooling takes min() of its configured kernel
    # and the size: the dynamic check's difference at a size it could not settle (ST002).
    "covert/ffm_fixed_field_offsets.dynamo.onnx", "covert/ffm_fixed_field_offsets.ts.onnx",
    "covert/videomae_tubelet_size_check.dynamo.onnx", "covert/nafnet_tlc_min_kernel.dynamo.onnx",
}


# The shape-visible breaks export() reports with neither an error nor a warning (the issue asks
# for one of the two on every such break): one, a threshold far from the example. It resizes
# maps taller than 32 rows, exported at 8: no probe near the export size goes there, nor do the
# sizes doubled (16). Ten more were here until the dynamic check ran every size doubled (a
# branch below 12 rows, a pad where both sides are below 16, a stride of round(T / 16) from
# T = 24, a fourth chunk from T = 13), and the limit runs moved each size of a relation among
# inputs alone (query heads twice the key heads, a pattern against the length it tiles, a skip
# against the map cropped or resized to it).
VISIBLE_SILENT = {
    "unseen/downscale_large_branch.ts.onnx",
    # Video-ChatGPT pads its temporal tokens to 100 frames in a branch on the frame count:
    # TorchScript's graph keeps the pad the example (6 frames) took, which breaks past 100, far
    # from every size tried near the export. Blind (covert), as first measured.
    "covert/videochatgpt_pad_branch.ts.onnx",
}


def visible(label):
    return any(r.get("verdict") in ("ORT fails", "wrong shape") for r in label["runs"])


class HeldOutExportApiTest(unittest.TestCase):
    """export() on the held-out corpora: what runs of eager PyTorch settle on modules nothing in
    the linter was tuned on (docs/ground-truth.md, "export() on the held-out corpora")."""

    @classmethod
    def setUpClass(cls):
        cls.records, cls.labels = {}, {}
        for family in HELD_OUT:
            with open(CORPUS / family / "export_api.json", encoding="utf-8") as f:
                api = json.load(f)["models"]
            with open(CORPUS / family / "ground_truth.json", encoding="utf-8") as f:
                labels = json.load(f)["models"]
            for name, record in api.items():
                cls.records[family + "/" + name] = record
                cls.labels[family + "/" + name] = labels[name]
        cls.judged = {n: r for n, r in cls.records.items() if r["same_graph"]}

    def test_every_family_is_recorded(self):
        for family in HELD_OUT:
            judged = [n for n in self.judged if n.startswith(family + "/")]
            self.assertGreaterEqual(len(judged), 40, family)

    def test_findings_are_the_command_lines(self):
        # The command line on the file export() wrote, told the example sizes, gives export()'s
        # findings: the linter's, and an error where a run made one (recorded in the file).
        differ = [n for n, r in self.records.items() if not r["same_findings"]]
        self.assertEqual(differ, [])

    def test_no_healthy_export_has_an_error(self):
        false = [(n, r["findings"]) for n, r in self.judged.items()
                 if not self.labels[n]["breaks"] and n not in LABELS_MISSED
                 and any(f.endswith(":error") for f in r["findings"])]
        self.assertEqual(false, [])

    def test_the_labels_missed_are_errors(self):
        for name in LABELS_MISSED:
            self.assertIn("ST003:error", self.judged[name]["findings"], name)

    def test_healthy_warnings_are_those_runs_do_not_settle(self):
        # A literal equal to an example size is refuted where both sides agree at the doubled
        # sizes, and a count PyTorch refuses below too is the module's own: no healthy export
        # keeps such a hypothesis.
        warned = {n for n, r in self.judged.items() if not self.labels[n]["breaks"]
                  and any(f.endswith(":warning") for f in r["findings"])
                  and not any(f.endswith(":error") for f in r["findings"])}
        self.assertEqual(warned, HEALTHY_WARNED)

    def test_nine_in_ten_dynamo_breaks_get_an_error(self):
        # The mark, on the shape-visible breaks of the dynamo exports: 81 of 83 (76 of 77
        # before covert, which adds 5 of 6).
        breaks = [n for n, r in self.judged.items() if n.endswith(".dynamo.onnx")
                  and self.labels[n]["breaks"] and visible(self.labels[n])]
        missed = [n for n in breaks if not any(f.endswith(":error")
                                               for f in self.judged[n]["findings"])]
        self.assertEqual(len(breaks), 83)
        self.assertEqual(sorted(missed), DYNAMO_MISSED)

    def test_shape_visible_breaks_with_neither_error_nor_warning(self):
        silent = {n for n, r in self.judged.items()
                  if self.labels[n]["breaks"] and visible(self.labels[n])
                  and not any(f.endswith((":error", ":warning")) for f in r["findings"])}
        self.assertEqual(silent, VISIBLE_SILENT)


class SizeStepsNetworksTest(unittest.TestCase):
    """tools/models/check_size_steps.py's record (tests/corpus/torch2/size_steps_networks.json):
    export() on networks that no corpus holds, each exported twice per exporter, the dynamic
    check with and without its steps to where the graph's own sizes change. A disagreement is a
    run of both runtimes, so no label is needed."""

    @classmethod
    def setUpClass(cls):
        with open(TORCH2 / "size_steps_networks.json") as f:
            cls.models = json.load(f)["models"]

    def test_the_steps_find_only_what_they_add_and_lose_nothing(self):
        # torchvision's Swin V2-T: at 260 x 224 ONNX Runtime's logits differ from eager's by up
        # to 0.16 (run by hand through TorchScript; 228 x 224 and 256 x 256 agree to 1e-6).
        gained = sorted(n for n, e in self.models.items()
                        if e["with"]["disagree"] and not e["without"]["disagree"])
        lost = sorted(n for n, e in self.models.items()
                      if e["without"]["disagree"] and not e["with"]["disagree"])
        self.assertEqual(gained, ["tv_swin_v2_t.dynamo.onnx", "tv_swin_v2_t.ts.onnx"])
        self.assertEqual(lost, [])
        for name in gained:
            self.assertIn("ST003:error", self.models[name]["with"]["findings"])
            self.assertNotIn("ST003:error", self.models[name]["without"]["findings"])

    def test_no_more_probes_than_the_dynamic_check_runs(self):
        for name, entry in self.models.items():
            for key in ("with", "without"):
                self.assertLessEqual(len(entry[key]["probes"]), 16, (name, key))


if __name__ == "__main__":
    unittest.main()
