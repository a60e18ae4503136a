#!/usr/bin/env python3
"""export()'s dynamic check on networks that no corpus holds, with and without its probes at the
sizes where the graph's own sizes change (_core.size_steps, docs/python.md).

A branch of a network on a feature map's size (shift the windows only where the map is larger
than the window, pad a window partition only where the map is no multiple of it) is crossed
only where that map changes, and a stride-4 stem keeps the map over four input sizes: probes one
or two steps from the example never reach it. The probes at those sizes came from torchvision's
Swin-T, a network of the torch 2.x corpus (tuned on). This script measures them on networks
that were not looked at before they were chosen here: each is exported by export() twice per
exporter, once with the size steps and once without, and the dynamic check's runs are recorded.
A disagreement is a run of ONNX Runtime against eager PyTorch at the same inputs, so it needs no
label; an export whose probes agree everywhere is no proof of health, only of what the probes
reached.

Run with the interpreter of the torch 2.x environment (requirements-torch2.txt) and the built
package on PYTHONPATH:
    PYTHONPATH=build/python VENV/bin/python tools/models/check_size_steps.py \
        --linter build/onnx-shapelint --out tests/corpus/torch2/size_steps_networks.json
"""

import argparse
import contextlib
import json
import os
import signal
import sys
import tempfile
import unittest.mock

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_export_api as cea  # noqa: E402
import export_torch2 as et  # noqa: E402
import torch2_zoo  # noqa: E402

from onnx_shapelint import _probes  # noqa: E402

# timm networks that the torch 2.x corpus does not hold, chosen by name before any was run:
# windowed attention (TinyViT, EfficientViT-M, GCViT, Swin V2-CR), spatial-reduction and
# pooling attention (PVT v2, MViT v2, Twins), nested blocks (NesT), hybrids (CoAtNet), and
# convolutional networks (InceptionNeXt, StarNet, HGNet v2) as lookalikes; torchvision's Swin V2-T.
# DaViT was chosen too: its torch.export ran past 15 minutes, so it is left out.
TIMM = ("tiny_vit_5m_224", "efficientvit_m0", "gcvit_xxtiny",
        "swinv2_cr_tiny_ns_224", "pvt_v2_b0", "mvitv2_tiny", "twins_svt_small", "nest_tiny",
        "coatnet_nano_rw_224", "inception_next_tiny", "starnet_s1", "hgnetv2_b0")
TORCHVISION = ("swin_v2_t",)


def networks():
    import timm
    import torchvision
    out = []
    for name in TIMM:
        out.append(torch2_zoo.image(
            "timm_" + name, "timm.create_model(%r, pretrained=False)" % name,
            lambda n=name: torch2_zoo.First(timm.create_model(n, pretrained=False), None),
            (2, 3, 224, 224), []))
    for name in TORCHVISION:
        out.append(torch2_zoo.image(
            "tv_" + name, "torchvision.models.%s()" % name,
            lambda n=name: getattr(torchvision.models, n)(weights=None), (2, 3, 224, 224), []))
    return out


# An export that takes longer than this is left out (torch.export of some networks runs on).
EXPORT_SECONDS = 600


def _timeout(signum, frame):
    raise TimeoutError("export ran past %d s" % EXPORT_SECONDS)


def write(path, results):
    doc = {"about": "export()'s dynamic check with and without the size steps, written by "
                    "tools/models/check_size_steps.py (never edited by hand)",
           "versions": {"torch": torch.__version__}, "models": dict(sorted(results.items()))}
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def summary(record):
    return {k: record[k] for k in ("findings", "changed", "probes", "runs")} | {
        "confirm_seconds": record["seconds"]["confirm"],
        "disagree": sum(": disagree" in p for p in record["probes"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--linter", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    torch.set_num_threads(1)
    signal.signal(signal.SIGALRM, _timeout)
    results = {}
    if os.path.exists(a.out):
        with open(a.out) as f:
            results = json.load(f)["models"]
    with tempfile.TemporaryDirectory() as work:
        for z in networks():
            if a.only and z["name"] not in a.only:
                continue
            try:
                args = torch2_zoo.export_module(z, et.Positional)
            except Exception as err:  # noqa: BLE001  (a network this timm cannot build)
                print("%s: not built: %s" % (z["name"], torch2_zoo.reason(err)), flush=True)
                continue
            z["out_names"] = ["y"]
            for exporter, suffix in (("dynamo", ".dynamo.onnx"), ("torchscript", ".ts.onnx")):
                entry = {}
                for steps, key in ((False, "without"), (True, "with")):
                    patch = (contextlib.nullcontext() if steps else
                             unittest.mock.patch.object(_probes, "size_steps",
                                                        lambda model, centre: {}))
                    signal.alarm(EXPORT_SECONDS)
                    try:
                        with patch:
                            record = cea.check_one(z["module"], args, z, exporter, "auto",
                                                   a.linter, work, baseline_run=False)
                    except TimeoutError:
                        record = None
                    finally:
                        signal.alarm(0)
                    if record is None:
                        break
                    entry[key] = summary(record)
                if len(entry) == 2:
                    results[z["name"] + suffix] = entry
                    write(a.out, results)
                    print("%-40s without %d/%d with %d/%d" % (
                        z["name"] + suffix, entry["without"]["disagree"],
                        len(entry["without"]["probes"]), entry["with"]["disagree"],
                        len(entry["with"]["probes"])), flush=True)
                else:
                    print("%-40s not exported" % (z["name"] + suffix), flush=True)
    write(a.out, results)
    print("wrote %s: %d exports" % (a.out, len(results)))


if __name__ == "__main__":
    main()
