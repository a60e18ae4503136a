#!/usr/bin/env python3
"""Export the libraries' own export paths corpus (tests/corpus/library) and label it by running it.

tests/corpus/third holds what export pipelines (optimum, ultralytics) write. Some model libraries
have an export path of their own, or a forward argument whose only purpose is to make other
image sizes work; this corpus measures the linter on what those give:

  timm          timm.utils.onnx.onnx_export(model, path, batch_size=2, input_size=(3, S, S),
                dynamic_size=True), timm's own export function, on small timm models built with
                pretrained=False and exportable=True (as timm's onnx_export.py script builds them;
                depth and width cut down through the models' kwargs, num_classes=10), through
                its TorchScript default and with use_dynamo=True. onnx_export declares batch,
                height and width of the input dynamic (input0) and batch of the output (output0);
                its dynamo path asks torch.export for the same axes by name. Files:
                timm_<stem>.ts.onnx and timm_<stem>.dynamo.onnx.
  transformers  transformers image models from tiny configs (random weights, nothing downloaded)
                wrapped so that forward(pixel_values) calls the model with
                interpolate_pos_encoding=True and returns last_hidden_state, exported with
                torch.onnx.export(..., dynamo=True, dynamic_shapes=batch, height, width by name)
                and with the TorchScript exporter (dynamo=False, the same axes as dynamic_axes).
                transformers' position interpolation skips itself at the configured size
                `if not torch.jit.is_tracing() and ...`: guarded for the TorchScript tracer only
                (timm's resample_abs_pos_embed guards its shortcut with `not is_exporting()`:
                for torch.export only). Files: hf_<stem>.dynamo.onnx and hf_<stem>.ts.onnx.

Run with the interpreter of a virtual environment built from requirements-third.txt (the one
export_third.py uses: timm 1.0.31, transformers 4.57.6); nothing is downloaded but the packages.

Labels (ground_truth.json) mean what they mean in tests/corpus/third (export_third.label and
run_row, the verdicts of torch2_runs.py): each model runs on ONNX Runtime (CPU, 1 thread, full
weights) and on the eager module it was exported from, on the same inputs, at the export size
first and then at 6 other sizes: batch 3, a multiple of the patch and stride that is not the
export size, 8 and 16 more than it (not multiples of 32), a non-square size, and one that is no
multiple of the patch. An export that fails is listed under not_exported with torch's reason
(timm's onnx_export is called as users call it, once); a transformers export torch.export refuses
with the named axes is retried with Dim.AUTO, and the note says so (the file then declares the
specialized axes static, and runs at other sizes along them are not counted).

Each model whose source (the stem) has sha256(stem) % 3 == 0 is `held_out` (both exports of one
source on one side). Committed files are graph-only (export_third.store); the full models stay
in --scratch. Dynamo files keep what the linter reads of the node metadata
(export_torch2.slim_metadata), their paths made portable (torch2_runs.scrub_paths) and the
function addresses torch prints in them dropped (scrub_addresses). Re-run under
PYTHONHASHSEED=0 (export_third.fixed_hash_seed), the files and labels are byte-identical from
run to run.
"""

import argparse
import logging
import os
import re
import tempfile
import time
import warnings

import export_third as third  # noqa: E402  (sets the offline variables before the libraries load)

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402

HERE = third.HERE
ROOT = third.ROOT
import export_corpus as ec  # noqa: E402
import export_examples as ex  # noqa: E402
import torch2_runs as runs  # noqa: E402
from export_torch2 import slim_metadata  # noqa: E402

MAX_DIR = 4 * 1024 * 1024  # the directory's budget (intermediate_shapes.json has its own)
SEED = third.SEED

# ---------------------------------------------------------------- timm

VIT = dict(img_size=64, patch_size=8, embed_dim=64, depth=2, num_heads=2)
SWIN = dict(img_size=64, embed_dim=32, depths=(1, 1), num_heads=(2, 4), window_size=4)


def timm_models():
    """(stem, timm model name, create_model kwargs, export side S). Every model num_classes=10."""
    return [
        ("vit", "vit_tiny_patch16_224", VIT, 64),
        ("vit_dynamic", "vit_tiny_patch16_224", dict(VIT, dynamic_img_size=True), 64),
        ("deit_distilled_dynamic", "deit_tiny_distilled_patch16_224", dict(VIT, dynamic_img_size=True), 64),
        ("vit_hybrid_dynamic", "vit_tiny_r_s16_p8_224",
         dict(img_size=64, embed_dim=64, depth=2, num_heads=2, dynamic_img_size=True), 64),
        ("swin", "swin_tiny_patch4_window7_224", SWIN, 64),
        ("swin_dynamic", "swin_tiny_patch4_window7_224", dict(SWIN, dynamic_img_size=True), 64),
        ("convnext", "convnext_atto", dict(depths=(1, 1, 1, 1), dims=(16, 32, 64, 128)), 64),
        ("resnet", "resnet18", dict(layers=(1, 1, 1, 1)), 64),
        ("efficientnet", "tinynet_e", {}, 64),  # EfficientNet scaled down (its kwargs are fixed)
        ("mobilevit", "mobilevit_xxs", {}, 64),
    ]


def image_runs(side, patch):
    """The export size first (batch 2, side x side), then the other sizes (see the docstring)."""
    odd = side + patch // 2 if patch > 1 else side + 3
    return [(2, 3, side, side), (3, 3, side, side), (1, 3, side + 32, side + 32), (2, 3, side + 8, side + 8),
            (1, 3, side + 16, side + 16), (1, 3, side, side + 32), (1, 3, odd, side + 20)]


def timm_build(name, kwargs):
    import timm
    torch.manual_seed(SEED)
    return timm.create_model(name, pretrained=False, exportable=True, num_classes=10, **kwargs).eval()


def timm_export(name, kwargs, side, use_dynamo, path):
    """timm's onnx_export of a fresh model; returns the model (the eager reference) and notes."""
    from timm.utils.onnx import onnx_export
    model = timm_build(name, kwargs)
    torch.manual_seed(SEED)
    with third.quiet():
        onnx_export(model, path, batch_size=2, input_size=(3, side, side), dynamic_size=True,
                    use_dynamo=use_dynamo)
    return model


def timm_source(name, kwargs):
    return "timm.create_model(%r, pretrained=False, exportable=True, num_classes=10%s)" % (
        name, "".join(", %s=%r" % kv for kv in kwargs.items()))


# ---------------------------------------------------------------- transformers

SMALL = dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
             image_size=32, patch_size=8)

SWIN_HF = dict(image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4)


def hf_models():
    """(stem, model class, config class, config kwargs, export side, patch)."""
    return [
        ("vit", "ViTModel", "ViTConfig", SMALL, 32, 8),
        ("deit", "DeiTModel", "DeiTConfig", SMALL, 32, 8),
        ("dinov2", "Dinov2Model", "Dinov2Config", SMALL, 32, 8),
        ("clip_vision", "CLIPVisionModel", "CLIPVisionConfig", SMALL, 32, 8),
        ("beit", "BeitModel", "BeitConfig", dict(SMALL, use_absolute_position_embeddings=True), 32, 8),
        ("beit_relative", "BeitModel", "BeitConfig",
         dict(SMALL, use_absolute_position_embeddings=True, use_relative_position_bias=True), 32, 8),
        # Swin's default (no absolute embeddings: interpolate_pos_encoding changes nothing, its
        # windows are what other sizes exercise), and with absolute embeddings
        ("swin", "SwinModel", "SwinConfig", SWIN_HF, 32, 2),
        ("swin_absolute", "SwinModel", "SwinConfig", dict(SWIN_HF, use_absolute_embeddings=True), 32, 2),
    ]


class PosEncoded(torch.nn.Module):
    """forward(pixel_values) = model(pixel_values, interpolate_pos_encoding=True).last_hidden_state:
    what a user exports to take other image sizes."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values, interpolate_pos_encoding=True).last_hidden_state


def hf_build(cls, config_cls, config):
    return PosEncoded(third.build_hf(cls, config_cls, config)).eval()


AXES = {0: "batch", 2: "height", 3: "width"}


def hf_export(module, side, dynamo, path):
    """(notes): exports `module` at batch 2 x 3 x side x side. The dynamo request names the axes
    (strings, as timm's onnx_export does on torch >= 2.7); refused, it is retried with Dim.AUTO."""
    x = torch.from_numpy(np.random.default_rng(SEED).standard_normal((2, 3, side, side)).astype(np.float32))
    notes = []
    if not dynamo:
        with third.quiet():
            torch.onnx.export(module, (x,), path, dynamo=False, input_names=["pixel_values"],
                              output_names=["last_hidden_state"],
                              dynamic_axes={"pixel_values": AXES, "last_hidden_state": {0: "batch", 1: "tokens"}})
        return notes
    for style in ("named", "auto"):
        spec = AXES if style == "named" else {k: torch.export.Dim.AUTO for k in AXES}
        try:
            with third.quiet():
                prog = torch.onnx.export(module, (x,), dynamo=True, dynamic_shapes=({0: spec[0], 2: spec[2],
                                                                                   3: spec[3]},),
                                         input_names=["pixel_values"], output_names=["last_hidden_state"])
                prog.save(path)
            if style == "auto":
                notes.append("dynamic_shapes style: Dim.AUTO")
            return notes
        except Exception as err:  # torch.export raises many kinds
            notes.append("dynamo export with %s dims failed: %s"
                         % ("named" if style == "named" else "Dim.AUTO", reason(err)))
    raise RuntimeError(notes[-1])


def reason(err):
    """Why an export failed: the innermost cause, its first lines (torch.export states the
    conflict on the lines after a header line; the suggested fixes after a blank line are cut)."""
    while err.__cause__ is not None:
        err = err.__cause__
    text = str(err).strip().split("\n\n")[0]
    return ex.shorten(runs.portable_text("%s: %s" % (type(err).__name__, text)), 400)


# ---------------------------------------------------------------- runs

def image_rows(path, module, sizes):
    """Every run of one image model: inputs N(0, 1) seeded by the run's position."""
    model = onnx.load(path)
    sess = third.session(path)
    name = sess.get_inputs()[0].name
    rows = []
    for k, shape in enumerate(sizes):
        x = np.random.default_rng(1000 + k).standard_normal(shape).astype(np.float32)

        def eager(x=x):
            with torch.no_grad():
                return [t.detach().numpy() for t in ec.flat_outputs(module(torch.from_numpy(x)))]
        rows.append(third.run_row(model, sess, {name: x}, eager))
    return model, rows


ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def scrub_addresses(model):
    """Drops the memory addresses the dynamo exporter prints for functions in its class hierarchy
    metadata ('<function sym_max at 0x7f...>'): they change from run to run."""
    for n in model.graph.node:
        for p in n.metadata_props:
            p.value = ADDRESS.sub(">", p.value)


def finish(model, name, family, part, stem, source, pipeline, exporter, rows, notes, out, labels):
    """Makes the file portable, stores it graph-only and labels it."""
    runs.scrub_paths(model)
    if exporter == "dynamo":
        slim_metadata(model)
        scrub_addresses(model)
    external = third.store(model, name, out)
    lab = third.label(family, stem, source, pipeline, model, rows, notes, external)
    lab["exporter"] = exporter
    lab["part"] = part
    labels[name] = dict(sorted(lab.items()))
    print("  %-44s breaks=%-5s %s" % (name, lab["breaks"], third.summary(lab)), flush=True)


def timm_family(a, scratch, labels, not_exported):
    import timm
    for stem, arch, kwargs, side in timm_models():
        if a.only and stem not in a.only:
            continue
        source = timm_source(arch, kwargs)
        patch = kwargs.get("patch_size", 1)
        for use_dynamo, tag in ((False, "ts"), (True, "dynamo")):
            name = "timm_%s.%s.onnx" % (stem, tag)
            pipeline = ("timm.utils.onnx.onnx_export(model, OUT, batch_size=2, input_size=(3, %d, %d), "
                        "dynamic_size=True%s)" % (side, side, ", use_dynamo=True" if use_dynamo else ""))
            print("\n=== %s" % name, flush=True)
            path = os.path.join(scratch, name)
            started = time.time()
            try:
                model = timm_export(arch, kwargs, side, use_dynamo, path)
            except Exception as err:
                not_exported[name] = {"family": "timm", "stem": "timm_" + stem, "source": source,
                                      "pipeline": pipeline, "error": reason(err)}
                print("  NOT EXPORTED: %s" % not_exported[name]["error"])
                continue
            notes = ["export took %.1f s" % (time.time() - started)] if a.timings else []
            with third.quiet():
                onx, rows = image_rows(path, model, image_runs(side, patch))
            finish(onx, name, "timm", "timm " + ("dynamo" if use_dynamo else "torchscript"), "timm_" + stem,
                   source + " (timm %s, random weights)" % timm.__version__, pipeline,
                   "dynamo" if use_dynamo else "torchscript", rows, notes, a.out, labels)


def hf_family(a, scratch, labels, not_exported):
    for stem, cls, config_cls, config, side, patch in hf_models():
        if a.only and stem not in a.only:
            continue
        source = "PosEncoded(%s)" % third.hf_source(cls, config_cls, config)
        for dynamo, tag in ((True, "dynamo"), (False, "ts")):
            name = "hf_%s.%s.onnx" % (stem, tag)
            if dynamo:
                pipeline = ("torch.onnx.export(PosEncoded(model), (x,), dynamo=True, dynamic_shapes=({0: "
                            "'batch', 2: 'height', 3: 'width'},))")
            else:
                pipeline = ("torch.onnx.export(PosEncoded(model), (x,), OUT, dynamo=False, dynamic_axes="
                            "{'pixel_values': {0: 'batch', 2: 'height', 3: 'width'}, "
                            "'last_hidden_state': {0: 'batch', 1: 'tokens'}})")
            print("\n=== %s" % name, flush=True)
            path = os.path.join(scratch, name)
            module = hf_build(cls, config_cls, config)
            started = time.time()
            try:
                notes = hf_export(module, side, dynamo, path)
            except Exception as err:
                not_exported[name] = {"family": "transformers", "stem": "hf_" + stem, "source": source,
                                      "pipeline": pipeline, "error": reason(err)}
                print("  NOT EXPORTED: %s" % not_exported[name]["error"])
                continue
            if a.timings:
                notes.append("export took %.1f s" % (time.time() - started))
            with third.quiet():
                onx, rows = image_rows(path, module, image_runs(side, patch))
            finish(onx, name, "transformers", "transformers " + ("dynamo" if dynamo else "torchscript"),
                   "hf_" + stem, source, pipeline, "dynamo" if dynamo else "torchscript", rows, notes,
                   a.out, labels)


# ---------------------------------------------------------------- the document

PARTS = ("timm torchscript", "timm dynamo", "transformers dynamo", "transformers torchscript")


def counts(labels, not_exported):
    def count(items):
        items = list(items)
        b = sum(1 for v in items if v["breaks"])
        return {"models": len(items), "breaks": b, "healthy": len(items) - b,
                "held_out": sum(1 for v in items if v["held_out"])}
    out = {"all": count(labels.values()), "not_exported": len(not_exported)}
    for p in PARTS:
        out[p] = count(v for v in labels.values() if v["part"] == p)
    return out


def versions():
    v = third.versions()
    v.update(runs.versions())
    return dict(sorted(v.items()))


ABOUT = ("Ground truth for the models in this directory, written by tools/models/export_library.py "
         "(never edited by hand): libraries' own export paths. timm: timm.utils.onnx.onnx_export with "
         "dynamic_size=True (batch, height and width of input0 dynamic), through its TorchScript default "
         "(ts) and use_dynamo=True (dynamo), on small timm models with random weights. transformers: "
         "image models from tiny configs called with interpolate_pos_encoding=True (forward returns "
         "last_hidden_state), exported by torch.onnx.export with dynamo=True and named dynamic_shapes "
         "(Dim.AUTO where torch.export refused them; the notes say so) and with dynamo=False and "
         "dynamic_axes. Each model ran on ONNX Runtime (CPU, 1 thread, full weights) and on the eager "
         "module on the same inputs; the first run is the export size. Verdicts and tolerance as in "
         "tests/corpus/third and tests/corpus/torch2 (torch2_runs.py): 'breaks': ORT fails, or its output "
         "shape or values differ from eager, at some size where eager runs and the file declares the axes "
         "dynamic. 'part': family and exporter. 'held_out': sha256(stem) % 3 == 0. 'suspects': nodes "
         "reading a constant that holds an export size (found automatically). The files are graph-only: "
         "float initializers over 1 KiB are external data that is not shipped.")


def main():
    third.fixed_hash_seed()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "corpus", "library"))
    ap.add_argument("--scratch", help="full models and temporaries (default: a temporary directory)")
    ap.add_argument("--family", choices=("timm", "transformers"), action="append",
                    help="only this family (may be repeated; the other labels are kept)")
    ap.add_argument("--only", nargs="*", help="only these stems, without timm_/hf_ (their labels are replaced)")
    ap.add_argument("--timings", action="store_true", help="record export times in the notes")
    a = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    a.out = os.path.normpath(a.out)
    os.makedirs(a.out, exist_ok=True)
    scratch = os.path.abspath(a.scratch or tempfile.mkdtemp(prefix="shapelint-library-"))
    os.makedirs(scratch, exist_ok=True)
    labels_path, labels, not_exported = third.open_labels(a.out, a.only or a.family)
    families = a.family or ["timm", "transformers"]
    if "timm" in families:
        timm_family(a, scratch, labels, not_exported)
    if "transformers" in families:
        hf_family(a, scratch, labels, not_exported)
    third.write_labels(labels_path, a.out, ABOUT, versions(), counts, labels, not_exported, MAX_DIR,
                       uncounted=("intermediate_shapes.json",))


if __name__ == "__main__":
    main()
