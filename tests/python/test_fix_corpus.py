"""`onnx-shapelint fix` on the real export corpora (tests/corpus/torch2, torch 2.x, and
tests/corpus/exports, torch 1.13), as tools/models/check_fixes.py recorded it in
tests/corpus/fix/corpus_fixes.json: every committed model fixed told its export sizes ("told"),
alone ("alone") and told with --unsafe-fixes ("unsafe"), and each fixed model run on ONNX
Runtime against eager PyTorch with the same weights at every size of its labels. Nothing runs here (no torch, no onnxruntime): the
record is checked for what docs/fix.md claims.

  * every model with a fix applied is proven at every recorded size where eager PyTorch runs
    (the same shapes, the values within the corpus tolerance), and at the export size gives
    the original's outputs where the original worked; where the fix left an error, a size may
    still break only as the original did there;
  * no healthy model (all runs ok) got a fix that changed any run's result: the same output
    shapes, or a failure where the original failed too (an unsafe fix that declares an axis
    static refuses other sizes of it, as it says; those runs are not counted);
  * every fix of a torch 2.x network (fixed, not run: their weights are not in the repository)
    changes declarations only, the graph being the original's, so that its labelled runs stand;
    the unsafe graph changes that are not run are the three listed below;
  * every fixed model passes ONNX's checker in full-check mode (strict shape inference
    included), run with the onnx of the generator's environment, which knows the opsets
    (18 and later) that the linter's own ONNX may not;
  * the counts per rule (printed) are those of the models.
"""

import json
import unittest

from shapelint_testing import CORPUS

RECORD = CORPUS / "fix" / "corpus_fixes.json"
LABELS = {"torch2": CORPUS / "torch2" / "ground_truth.json",
          "exports": CORPUS / "exports" / "ground_truth.json"}
MODES = ("told", "alone", "unsafe")
PROVEN = "proven"
LEFT_ERROR = "still breaks (error left)"
FIX_STATIC = "not counted (the fix declared it static)"
BREAKING = ("ORT fails", "wrong shape", "wrong values")
# Unsafe fixes that change a network's graph, not run: SSDlite resizes every image to 320, the
# size it was exported at (SL007), which is what makes that fix unsafe, and it would be wrong.
# (EfficientFormerV2's scale 1 / sqrt(32), its head size, got an SL008 fix as wrong until SL008
# warned only where the summed size moves near the export size: 32 wherever the graph runs.)
UNRUN_GRAPH_FIXES = ["torch2/tv_ssdlite320_mobilenet_v3_large.ts.onnx [unsafe]"]


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def mode_record(entry, mode):
    """The record with `mode`'s runs: its own, or the other mode's when the fixed files are
    the same bytes."""
    r = entry["modes"][mode]
    return entry["modes"][r["same_output_as"]] if "same_output_as" in r else r


def counted(runs):
    return [r for r in runs if not r["verdict"].startswith("not counted")]


def where(run):
    return " ".join("%s%s" % (n, s) for n, s in run["inputs"].items())


class FixCorpusTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.doc = load(RECORD)
        cls.models = cls.doc["models"]
        cls.labels = {}
        for corpus, path in LABELS.items():
            for name, label in load(path)["models"].items():
                cls.labels["%s/%s" % (corpus, name)] = label
        # (key, mode, record) of every fixed output that was run
        cls.fixed_runs = [(k, m, e["modes"][m]) for k, e in sorted(cls.models.items())
                          for m in MODES if e["modes"][m]["fixed"]
                          and "same_output_as" not in e["modes"][m] and "runs" in e["modes"][m]]

    def test_the_record_covers_every_model_of_both_corpora(self):
        self.assertEqual(sorted(self.models), sorted(self.labels))
        broken = ["%s [%s]: exit %s %s" % (k, m, e["modes"][m]["exit"],
                                            e["modes"][m].get("stderr", ""))
                  for k, e in sorted(self.models.items()) for m in MODES
                  if e["modes"][m]["exit"] not in (0, 1) or "problem" in e["modes"][m]
                  or "lint_error" in e["modes"][m]]
        self.assertEqual(broken, [])

    def test_every_label_size_was_run(self):
        wrong = []
        for key, mode, r in self.fixed_runs:
            sizes = [x["inputs"] for x in r["runs"]]
            if sizes != [x["inputs"] for x in self.labels[key]["runs"]]:
                wrong.append("%s [%s]" % (key, mode))
        self.assertEqual(wrong, [])
        self.assertGreater(len(self.fixed_runs), 0)

    def test_fixed_models_match_eager_pytorch(self):
        failures = []
        for key, mode, r in self.fixed_runs:
            error_left = any(x["severity"] == "error" for x in r["left"])
            first = r["runs"][0]
            if first.get("safe") is False:
                failures.append("%s [%s] at the export size %s: not the original's outputs"
                                % (key, mode, where(first)))
            for x in counted(r["runs"]):
                if x["verdict"] == PROVEN:
                    self.assertEqual(x["eager"], x["fixed"], key)
                    continue
                if x["verdict"] == LEFT_ERROR and error_left and \
                        x["original_verdict"] in BREAKING and x["same_as_original"]:
                    continue  # the error the fix left, as in the original
                failures.append("%s [%s] at %s: %s (eager %s, fixed %s)" % (
                    key, mode, where(x), x["verdict"], x.get("eager"),
                    x.get("fixed", x.get("fixed_error"))))
            if not error_left and not r["proven"]:
                failures.append("%s [%s]: not proven" % (key, mode))
            if not counted(r["runs"]):
                failures.append("%s [%s]: no size was counted" % (key, mode))
        self.assertEqual(failures, [])

    def test_networks_not_run_have_their_declarations_fixed_only(self):
        changed, unchecked = [], []
        for key, entry in sorted(self.models.items()):
            if "not_run" not in entry:
                continue
            for mode in MODES:
                r = entry["modes"][mode]
                if not r["fixed"] or "same_output_as" in r:
                    continue
                if "graph_unchanged" not in r:
                    unchecked.append("%s [%s]" % (key, mode))
                elif not r["graph_unchanged"]:
                    changed.append("%s [%s]" % (key, mode))
        self.assertEqual(unchecked, [])
        self.assertEqual(changed, UNRUN_GRAPH_FIXES)

    def test_every_fixed_model_passes_the_onnx_checker(self):
        refused = ["%s [%s]: %s" % (k, m, e["modes"][m].get("onnx_checker", "not checked"))
                   for k, e in sorted(self.models.items()) for m in MODES
                   if e["modes"][m]["fixed"] and e["modes"][m].get("onnx_checker") != "ok"]
        self.assertEqual(refused, [])
        self.assertGreater(sum(1 for e in self.models.values() for m in MODES
                               if "onnx_checker" in e["modes"][m]), 0)

    def test_breaking_models_with_a_fixed_error_were_run(self):
        unrun = [k for k, e in sorted(self.models.items()) if e["breaks"] for m in MODES
                 if any(x["status"] == "fixed" for x in e["modes"][m].get("errors", []))
                 and "runs" not in mode_record(e, m)]
        self.assertEqual(unrun, [])

    def test_healthy_models_keep_every_run(self):
        changed = []
        for key, mode, r in self.fixed_runs:
            if self.models[key]["breaks"]:
                continue
            for x in r["runs"]:
                if mode == "unsafe" and x["verdict"] == FIX_STATIC:
                    continue
                same = x.get("original") == x.get("fixed") if "original" in x else \
                    "fixed" not in x
                if not same:
                    changed.append("%s [%s] at %s: %s -> %s" % (
                        key, mode, where(x), x.get("original", x.get("original_error")),
                        x.get("fixed", x.get("fixed_error"))))
        self.assertEqual(changed, [])

    def test_counts_are_the_models(self):
        for mode in MODES:
            per = {}
            for e in self.models.values():
                r = e["modes"][mode]
                proven = mode_record(e, mode).get("proven", False)
                for err in r.get("errors", []) if e["breaks"] else []:
                    c = per.setdefault(err["rule"], [0, 0, 0, 0])
                    c[0] += 1
                    c[1] += err["status"] in ("fixed", "fix rejected")
                    c[2] += err["status"] == "fixed"
                    c[3] += err["status"] == "fixed" and proven
            recorded = self.doc["counts"]["all"][mode]
            for rule, (errors, fixable, fixed, proven) in per.items():
                c = recorded[rule]
                self.assertEqual([c["errors"], c["fixable"], c["fixed"], c["proven"]],
                                 [errors, fixable, fixed, proven], "%s %s" % (mode, rule))
                self.assertLessEqual(proven, fixed)
                self.assertLessEqual(fixed, fixable)
            for rule, c in recorded.items():  # the corpora's counts add up
                for what in ("errors", "fixable", "fixed", "proven"):
                    self.assertEqual(c[what], sum(self.doc["counts"][corpus][mode].get(
                        rule, {}).get(what, 0) for corpus in ("torch2", "exports")))
            for corpus in ("all", "torch2", "exports"):
                print("\nfix %s, %s: error findings on breaking models" % (mode, corpus))
                print("  rule   fixable  fixed  proven   (errors; every fix applied: fixed, "
                      "proven, not run)")
                for rule, c in self.doc["counts"][corpus][mode].items():
                    print("  %-6s %7d %6d %7d   (%d; %d, %d, %d)" % (
                        rule, c["fixable"], c["fixed"], c["proven"], c["errors"], c["fixed_any"],
                        c["proven_any"], c["not_run"]))

if __name__ == "__main__":
    unittest.main()
