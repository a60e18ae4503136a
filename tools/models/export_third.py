#!/usr/bin/env python3
"""Export the third-party pipeline corpus (tests/corpus/third) and label it by running it.

The other corpora hold what torch.onnx.export writes when we call it. Users mostly get their
ONNX files from export pipelines that call it for them, with their own dummy inputs, dynamic
axes, wrappers and post-processing; this corpus measures the linter on those graphs:

  optimum      optimum-onnx's main_export (what `optimum-cli export onnx` runs) on tiny
               transformers models with random weights, saved with save_pretrained to a
               scratch directory and exported from there: encoders, decoders without and with
               past key values, encoder-decoders with past (every file the export writes:
               encoder_model, decoder_model, decoder_with_past_model and the merged decoder,
               which chooses between the two with an If on use_cache_branch), vision, detection
               and speech models. Files: optimum_<stem>[_<task tag>].<file>.onnx.
  ultralytics  YOLO(<yaml>).export(format="onnx", dynamic=True) of n-size models built from
               ultralytics' bundled yaml (random weights, nothing downloaded), with its default
               onnxslim pass (simplify=True) and without it (simplify=False). Files:
               ultralytics_<yaml stem>.slim.onnx and .noslim.onnx.

Run with the interpreter of a virtual environment built from requirements-third.txt; nothing
is downloaded but the packages: HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE and YOLO_OFFLINE are set
before the libraries load, ultralytics' settings live in the scratch directory, and its
auto-install of missing requirements is off.

Labels (ground_truth.json) mean what they mean in tests/corpus/torch2 (torch2_runs.py): each
model runs on ONNX Runtime (CPU, 1 thread, full weights) and on the eager PyTorch model on the
same inputs at the export size first, then at 3-7 other sizes along the axes the file declares
dynamic; a run is ok, ORT fails, wrong shape, wrong values, or not counted (eager fails, or the
file declares an axis static with another size). The eager reference is the module the pipeline
traced: for optimum the transformers model inside optimum's own export patcher, called the way
optimum's validation calls it (past key values included), for ultralytics the export-mode copy
of the model that the exporter handed to torch.onnx.export.

Each model whose source (the model or yaml stem) has sha256(stem) % 3 == 0 is `held_out`.
Committed files are graph-only (float initializers over 1 KiB as external data that is not
shipped, model_files.graph_only); the full models stay in --scratch.
"""

import argparse
import contextlib
import copy
import hashlib
import io
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
for _k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "YOLO_OFFLINE"):
    os.environ[_k] = "1"
os.environ["YOLO_AUTOINSTALL"] = "false"  # never pip-install a missing requirement mid-export

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, HERE)
import export_corpus as ec  # noqa: E402  (input_axes, declared_outputs, suspects, ort_node)
import export_examples as ex  # noqa: E402  (short error texts, doc strings)
import torch2_runs as runs  # noqa: E402  (verdicts, tolerance, portable paths)
from model_files import graph_only, write_json  # noqa: E402

MAX_DIR = 12 * 1024 * 1024  # the directory's budget
SEED = 0

# ---------------------------------------------------------------- optimum: the models

VOCAB = 100
TEXT = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
            vocab_size=VOCAB)
S2S = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
           decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=VOCAB,
           max_position_embeddings=64)
TINY_RESNET = dict(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                   layer_type="basic", out_features=["stage2"])


def optimum_models():
    """(stem, transformers class, config class, config kwargs, task, kind, main_export kwargs).

    `kind` picks the sizes each exported file runs at (optimum_sizes). The stem names the source
    model and decides held_out; a stem exported for two tasks gives two file groups."""
    llama_like = dict(TEXT, num_key_value_heads=2, max_position_embeddings=128)
    gpt2 = dict(n_embd=32, n_layer=2, n_head=4, vocab_size=VOCAB, n_positions=64)
    return [
        ("bert", "BertForMaskedLM", "BertConfig", dict(TEXT, max_position_embeddings=64),
         "fill-mask", "text", {}),
        ("distilbert", "DistilBertForSequenceClassification", "DistilBertConfig",
         dict(dim=32, n_layers=2, n_heads=4, hidden_dim=64, vocab_size=VOCAB, max_position_embeddings=64),
         "text-classification", "text", {}),
        ("roberta", "RobertaModel", "RobertaConfig", dict(TEXT, max_position_embeddings=66),
         "feature-extraction", "text", {}),
        ("gpt2", "GPT2LMHeadModel", "GPT2Config", gpt2, "text-generation", "text", {}),
        ("gpt2", "GPT2LMHeadModel", "GPT2Config", gpt2, "text-generation-with-past", "decoder_past", {}),
        ("llama", "LlamaForCausalLM", "LlamaConfig", llama_like, "text-generation", "text", {}),
        ("llama", "LlamaForCausalLM", "LlamaConfig", llama_like, "text-generation-with-past",
         "decoder_past", {}),
        ("qwen2", "Qwen2ForCausalLM", "Qwen2Config", llama_like, "text-generation-with-past",
         "decoder_past", {}),
        ("opt", "OPTForCausalLM", "OPTConfig",
         dict(hidden_size=32, num_hidden_layers=2, ffn_dim=64, num_attention_heads=4, vocab_size=VOCAB,
              max_position_embeddings=64, word_embed_proj_dim=32),
         "text-generation-with-past", "decoder_past", {}),
        ("t5", "T5ForConditionalGeneration", "T5Config",
         dict(d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4, vocab_size=VOCAB,
              decoder_start_token_id=0), "text2text-generation-with-past", "seq2seq", {}),
        ("bart", "BartForConditionalGeneration", "BartConfig", S2S, "text2text-generation-with-past",
         "seq2seq", {}),
        ("marian", "MarianMTModel", "MarianConfig", dict(S2S, decoder_start_token_id=1, pad_token_id=1),
         "text2text-generation-with-past", "seq2seq", {}),
        ("whisper", "WhisperForConditionalGeneration", "WhisperConfig",
         dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
              decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=VOCAB,
              num_mel_bins=8, max_source_positions=16, max_target_positions=32, pad_token_id=1,
              bos_token_id=2, eos_token_id=3, decoder_start_token_id=2),
         # Whisper's encoder takes exactly 2 * max_source_positions frames: optimum's default
         # (3000) is refused, so the export is told the frame count, as users tell it.
         "automatic-speech-recognition-with-past", "speech_seq2seq", {"nb_max_frames": 32}),
        ("vit", "ViTForImageClassification", "ViTConfig", dict(TEXT, image_size=32, patch_size=8),
         "image-classification", "vision_fixed", {}),
        ("yolos", "YolosForObjectDetection", "YolosConfig",
         dict(TEXT, image_size=[32, 32], patch_size=8, num_detection_tokens=5),
         "object-detection", "vision32", {}),
        ("detr", "DetrForObjectDetection", "DetrConfig",
         dict(use_timm_backbone=False, use_pretrained_backbone=False, backbone=None,
              backbone_config={"model_type": "resnet", **TINY_RESNET}, d_model=32, encoder_layers=1,
              decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
              encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10),
         "object-detection", "vision64", {}),
        ("wav2vec2", "Wav2Vec2ForCTC", "Wav2Vec2Config",
         dict(TEXT, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
              num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2),
         "automatic-speech-recognition", "audio", {}),
    ]


def task_tag(task):
    """The part of a file name that tells the task when a stem is exported for two."""
    return "_past" if task.endswith("-with-past") and task.startswith("text-generation") else ""


# Sizes, as the generator arguments optimum's dummy inputs take (batch_size, sequence_length,
# height/width, audio_sequence_length) plus `dec` (decoder tokens of an encoder-decoder) and
# `past` (past length): the first of each list is the size optimum exports at (its defaults:
# batch 2, sequence 16, images 64 x 64 unless the config says, audio 16000 samples).
def _t(b, s):
    return {"batch_size": b, "sequence_length": s}


SIZES = {
    "text": [_t(2, 16), _t(1, 16), _t(3, 7), _t(2, 1), _t(4, 33)],
    "decoder_past": [dict(_t(b, s), past=p) for b, s, p in
                     ((2, 16, 16), (1, 16, 16), (3, 1, 9), (2, 4, 2), (4, 7, 20), (1, 1, 1))],
    "s2s_decoder": [dict(_t(b, e), dec=d) for b, e, d in
                    ((2, 16, 16), (1, 16, 16), (3, 7, 2), (2, 20, 1), (4, 30, 9))],
    "s2s_decoder_past": [dict(_t(b, e), dec=d, past=p) for b, e, d, p in
                         ((2, 16, 1, 16), (1, 16, 1, 16), (3, 7, 1, 9), (2, 20, 3, 2), (4, 30, 1, 20),
                          (2, 5, 1, 1))],
    # Whisper: the encoder length is fixed by the model (frames / 2), so batch, decoder tokens
    # and past length vary; one run asks for 48 frames, which eager Whisper refuses.
    "whisper_encoder": [{"batch_size": b, "nb_max_frames": f}
                        for b, f in ((2, 32), (1, 32), (3, 32), (2, 48))],
    "whisper_decoder": [{"batch_size": b, "nb_max_frames": 32, "dec": d} for b, d in
                        ((2, 16), (1, 16), (3, 2), (2, 1), (4, 9))],
    "whisper_decoder_past": [{"batch_size": b, "nb_max_frames": 32, "dec": d, "past": p} for b, d, p in
                             ((2, 1, 16), (1, 1, 16), (3, 1, 9), (2, 3, 2), (4, 1, 20), (2, 1, 1))],
    # ViT without interpolate_pos_encoding takes only its own image size: other sizes are eager
    # failures (not counted), kept to show the file's dynamic height and width mean nothing.
    "vision_fixed": [{"batch_size": b, "height": h, "width": w} for b, h, w in
                     ((2, 32, 32), (1, 32, 32), (3, 32, 32), (1, 48, 48))],
    # YOLOS (32 x 32 in its config) interpolates its position embeddings and DETR (no image size:
    # optimum's 64 x 64) computes them from the image: both take other sizes in eager.
    "vision32": [{"batch_size": b, "height": h, "width": w} for b, h, w in
                 ((2, 32, 32), (1, 32, 32), (3, 32, 32), (1, 48, 48), (2, 32, 96), (1, 72, 72))],
    "vision64": [{"batch_size": b, "height": h, "width": w} for b, h, w in
                 ((2, 64, 64), (1, 64, 64), (3, 64, 64), (1, 48, 48), (2, 32, 96), (1, 72, 72))],
    "audio": [{"batch_size": b, "audio_sequence_length": n} for b, n in
              ((2, 16000), (1, 16000), (3, 8000), (2, 12345), (1, 400))],
}


def file_plan(kind, name):
    """[(branch, sizes key)] for one exported file of a model of `kind`.  A branch is None, or
    True / False for the merged decoder's use_cache_branch (both are runs of that file, the
    with-cache branch first: its export is the decoder with past)."""
    whisper = kind == "speech_seq2seq"
    prefix = "whisper_" if whisper else "s2s_"
    if kind in ("seq2seq", "speech_seq2seq"):
        return {
            "encoder_model": [(None, "whisper_encoder" if whisper else "text")],
            "decoder_model": [(None, prefix + "decoder")],
            "decoder_with_past_model": [(None, prefix + "decoder_past")],
            "decoder_model_merged": [(True, prefix + "decoder_past"), (False, prefix + "decoder")],
        }[name]
    return [(None, kind)]


# ---------------------------------------------------------------- optimum: export

class ExportSpy:
    """Records what main_export validates with (its submodels, their OnnxConfigs, the files
    and the dummy shapes), by wrapping optimum's validate_models_outputs; the validation itself
    still runs, as it does for users, and its outcome becomes an export note."""

    def __init__(self):
        import optimum.exporters.onnx.convert as conv
        self.conv = conv
        self.orig = conv.validate_models_outputs
        self.seen = None
        self.error = None

    def __enter__(self):
        def spy(**kw):
            self.seen = dict(kw)
            try:
                return self.orig(**kw)
            except Exception as err:  # optimum raises several kinds; recorded, not fatal
                self.error = err
                raise
        self.conv.validate_models_outputs = spy
        return self

    def __exit__(self, *exc):
        self.conv.validate_models_outputs = self.orig
        return False


def build_hf(cls, config_cls, config):
    """A transformers model with random weights (torch.manual_seed(SEED))."""
    import transformers
    torch.manual_seed(SEED)
    cfg = getattr(transformers, config_cls)(**config)
    return getattr(transformers, cls)(cfg).eval()


def hf_source(cls, config_cls, config):
    return "transformers.%s(transformers.%s(%s))" % (
        cls, config_cls, ", ".join("%s=%r" % kv for kv in config.items()))


@contextlib.contextmanager
def quiet():
    """Silences the libraries' warnings and progress output around an export (their messages
    are noise here; failures are recorded)."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def optimum_export(stem, cls, config_cls, config, task, shapes, scratch):
    """Saves the model with save_pretrained and exports it with main_export, as
    `optimum-cli export onnx --model DIR --task TASK OUT` does. Returns (out dir, spy)."""
    from optimum.exporters.onnx import main_export
    tag = stem + task_tag(task)
    src = os.path.join(scratch, "hf", tag)
    out = os.path.join(scratch, "optimum", tag)
    shutil.rmtree(out, ignore_errors=True)
    build_hf(cls, config_cls, config).save_pretrained(src)
    with ExportSpy() as spy, quiet():
        torch.manual_seed(SEED)
        try:
            main_export(src, out, task=task, **shapes)
        except Exception:
            if spy.seen is None:  # the export itself failed
                raise
    return out, spy


def reset_branch(config, branch, past_in_inputs):
    """A copy of a decoder OnnxConfig for one file: the merged decoder's branch, or the plain
    decoder as it was exported (optimum's post-processing marks the configs merged once it has
    merged the files, and gives the no-past decoder past inputs, which the merged file has)."""
    c = copy.copy(config)
    if branch is None:
        c.is_merged, c.use_cache_branch, c.use_past_in_inputs = False, None, past_in_inputs
    else:
        c.is_merged, c.use_cache_branch, c.use_past_in_inputs = True, branch, True
    return c


def optimum_files(kind, out, spy):
    """[(file name, [(submodel, OnnxConfig, branch, sizes key, traced outputs)])] of what
    main_export wrote; the traced outputs are those of the export behind the file (or branch)."""
    subs = spy.seen["models_and_onnx_configs"]
    files = []
    for name in ("model", "encoder_model", "decoder_model", "decoder_with_past_model",
                 "decoder_model_merged"):
        if not os.path.exists(os.path.join(out, name + ".onnx")):
            continue
        plans = []
        for branch, sizes in file_plan(kind, name):
            key = name
            if name == "decoder_model_merged":
                key = "decoder_with_past_model" if branch else "decoder_model"
            sub, cfg = subs[key]
            if key.startswith("decoder"):
                cfg = reset_branch(cfg, branch, key == "decoder_with_past_model")
            traced = spy.seen["onnx_named_outputs"][list(subs).index(key)]
            plans.append((sub, cfg, branch, sizes, traced))
        files.append((name + ".onnx", plans))
    return files


# ---------------------------------------------------------------- optimum: inputs and eager

def generator_for(config, input_name, **kw):
    """The dummy input generator optimum's config uses for `input_name`, at sizes kw."""
    for gen in config._create_dummy_input_generator_classes(**kw):
        if gen.supports_input(input_name):
            return gen
    raise RuntimeError("no dummy generator for %s" % input_name)


def past_of(config, batch, past, enc, kw):
    """Past key values of length `past`; for encoder-decoders the cross-attention ones have the
    encoder's length `enc` (optimum's configs build their generator with the encoder length equal
    to the sequence length, so the generator class is instantiated here directly)."""
    kw = dict(kw, batch_size=batch, sequence_length=past)
    cls = type(generator_for(config, "past_key_values", **kw))
    if enc is not None:
        kw["encoder_sequence_length"] = enc
    gen = cls(config.task, config._normalized_config, **kw)
    return gen.generate("past_key_values", framework="pt", int_dtype=config.int_dtype,
                        float_dtype=config.float_dtype)


@contextlib.contextmanager
def ones_masks():
    """optimum's dummy attention masks with no padding: its generator pads a random number of
    positions (at least one, so it cannot make a mask of length 1), and the corpus runs, like
    tests/corpus/torch2, use all-ones masks."""
    from optimum.utils.input_generators import DTYPE_MAPPER, DummyInputGenerator
    orig = DummyInputGenerator.__dict__["random_mask_tensor"]

    def ones(shape, padding_side="right", framework="pt", dtype="int64"):
        return torch.ones(tuple(shape), dtype=DTYPE_MAPPER.pt(dtype))
    DummyInputGenerator.random_mask_tensor = staticmethod(ones)
    try:
        yield
    finally:
        DummyInputGenerator.random_mask_tensor = orig


def optimum_inputs(config, size, seed):
    """The reference model's inputs at `size`, in optimum's structure (past_key_values as a list
    of tuples): optimum's own dummy inputs, then the decoder length and past length set apart
    from the sequence length (optimum ties them together), position ids counting on from the
    past, and every attention mask all ones."""
    torch.manual_seed(seed)
    random.seed(seed)
    kw = {k: v for k, v in size.items() if k not in ("dec", "past")}
    with ones_masks():
        d = config.generate_dummy_inputs(framework="pt", **kw)
    b = size["batch_size"]
    enc = d["encoder_outputs"][0].shape[1] if d.get("encoder_outputs") is not None else None
    p = size.get("past", 0) if "past_key_values" in d else 0
    if "height" in size and "pixel_values" in d:
        # optimum's generator takes the config's image size when it has one, whatever it is told
        channels = d["pixel_values"].shape[1]
        d["pixel_values"] = torch.rand((b, channels, size["height"], size["width"])) * 2 - 1
        if "pixel_mask" in d:
            d["pixel_mask"] = torch.ones((b, size["height"], size["width"]), dtype=d["pixel_mask"].dtype)
    if "dec" in size and "decoder_input_ids" in d:
        d["decoder_input_ids"] = torch.randint(0, VOCAB, (b, size["dec"]), dtype=torch.int64)
    if p:
        d["past_key_values"] = past_of(config, b, p, enc, kw)
    new = (d["decoder_input_ids"] if "decoder_input_ids" in d else d.get("input_ids"))
    n_new = new.shape[1] if new is not None else 0
    for name in ("attention_mask", "decoder_attention_mask", "encoder_attention_mask"):
        if name in d:
            length = d[name].shape[1]
            if name == "decoder_attention_mask" or (name == "attention_mask" and enc is None and p):
                length = p + n_new
            d[name] = torch.ones((b, length), dtype=d[name].dtype)
    if "position_ids" in d:
        d["position_ids"] = torch.arange(p, p + n_new, dtype=torch.int64).expand(b, n_new).clone()
    if "cache_position" in d:
        d["cache_position"] = torch.arange(p, p + n_new, dtype=d["cache_position"].dtype)
    return d


def flatten_inputs(config, ref_inputs, onnx_input_names):
    """ORT feeds from reference inputs, as optimum's validation makes them."""
    v = config.generate_dummy_inputs_for_validation(copy.deepcopy(ref_inputs), onnx_input_names)
    feeds = {}
    for name, value in v.items():
        if isinstance(value, (list, tuple)):
            value = config.flatten_output_collection_property(name, value)
            feeds.update({k: t.cpu().numpy() for k, t in value.items()})
        elif isinstance(value, dict):
            feeds.update({k: t.cpu().numpy() for k, t in value.items()})
        elif value is not None:
            feeds[name] = value.cpu().numpy()
    return {n: feeds[n] for n in onnx_input_names}


def optimum_eager(model, config, ref_inputs, onnx_output_names, traced):
    """The reference model's outputs in the ONNX file's output order, as optimum's validation
    computes them: inside the export patcher, past key values flattened to present.*. None for
    an output of the file that the traced export did not have (see optimum_runs)."""
    inputs = config.rename_ambiguous_inputs(copy.deepcopy(ref_inputs))
    with config.patch_model_for_export(model), torch.inference_mode():
        out = model(**inputs)
    flat = {}
    for name, value in out.items():
        if name == "past_key_values":
            name = "present"
        if isinstance(value, (list, tuple)):
            onnx_name = config.torch_to_onnx_output_map.get(name, name)
            flat.update(config.flatten_output_collection_property(onnx_name, value))
        else:
            flat[name] = value
    onnx_to_torch = {v: k for k, v in config.torch_to_onnx_output_map.items()}
    res = []
    for n in onnx_output_names:
        if n not in traced:  # the merged decoder's placeholders (see optimum_runs)
            res.append(None)
        elif onnx_to_torch.get(n, n) not in flat:
            raise KeyError("eager gives no output %s" % n)
        else:
            res.append(flat[onnx_to_torch.get(n, n)].detach().cpu().numpy())
    return res


# ---------------------------------------------------------------- runs (both families)

def run_row(model, sess, feeds, eager, extra=None, transform=None):
    """One run: ORT and eager on the same feeds; the row ground_truth.json stores (the verdicts
    and tolerance of torch2_runs). `eager` returns one array per ORT output, or None for an
    output the pipeline does not define at this branch (not compared, listed in the row).
    `transform` maps both sides' outputs to what is compared, after the shapes were."""
    shapes = {n: list(a.shape) for n, a in feeds.items()}
    row = {"inputs": shapes}
    row.update(extra or {})
    names = [vi.name for vi in runs.graph_inputs(model)]
    conflict = runs.static_conflict(model, names, shapes)
    if conflict:
        row["verdict"] = "declared static (not counted)"
        row["declared"] = conflict
        return row
    out_names = [o.name for o in sess.get_outputs()]
    try:
        want = eager()
        row["eager"] = [list(w.shape) if w is not None else None for w in want]
    except Exception as err:  # eager refuses these sizes
        row["eager_error"] = ex.shorten(runs.portable_text(error_text(err)), 300)
        want = None
    got = runs.ort_outputs(sess, feeds, row)
    if want is None:
        row["verdict"] = "eager fails (not counted)"
    elif got is None:
        row["verdict"] = "ORT fails"
    else:
        keep = [k for k, w in enumerate(want) if w is not None]
        if len(keep) < len(want):
            row["not_compared"] = [out_names[k] for k in range(len(want)) if k not in keep]
        want, got = [want[k] for k in keep], [np.asarray(got[k]) for k in keep]
        if transform and all(w.shape == g.shape for w, g in zip(want, got)):
            want, got = transform(want), transform(got)
        row["verdict"], diff = runs.compare(want, got)
        if diff is not None:
            row["max_abs_diff"] = diff
    return row


def export_shapes(path, config, input_shapes):
    """The input shapes of the dummy inputs optimum traced the file with (its validation feeds the
    same shapes), to check that a label's first run is the export size."""
    import onnxruntime as ort
    names = [i.name for i in ort.InferenceSession(path, providers=["CPUExecutionProvider"]).get_inputs()]
    torch.manual_seed(SEED)
    with ones_masks():  # the shapes are the export's; the masks' values do not matter here
        feeds = flatten_inputs(config, config.generate_dummy_inputs(framework="pt", **input_shapes), names)
    return {n: list(v.shape) for n, v in feeds.items()}


def eager_attention(model):
    """Makes the reference compute attention with transformers' eager (math) implementation.
    optimum's export patcher, which the reference runs inside as in optimum's validation,
    replaces torch's scaled_dot_product_attention with one that drops enable_gqa: decoders with
    fewer key/value heads than query heads (Llama, Qwen2) then fail in eager wherever
    transformers skips the causal mask (all-ones masks). The eager implementation computes the
    same function without SDPA."""
    if hasattr(model, "set_attn_implementation"):
        try:
            model.set_attn_implementation("eager")
        except (ValueError, NotImplementedError):  # a model without it keeps its own
            pass


def session(path):
    """ONNX Runtime on the CPU, 1 thread, its own log silenced (failures are recorded per run)."""
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 4
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def optimum_runs(path, plans):
    """Every run of one optimum file: each branch's sizes, export size first. Outputs are
    compared where the branch's OnnxConfig defines them, as optimum's validation compares them:
    the merged encoder-decoder's with-cache branch returns empty placeholders for the cross-
    attention presents (present.*.encoder.*, constant during generation), which the decoder with
    past never computed; rows list them under not_compared."""
    model = onnx.load(path)
    sess = session(path)
    in_names = [i.name for i in sess.get_inputs()]
    out_names = [o.name for o in sess.get_outputs()]
    rows = []
    for sub, cfg, branch, key, traced in plans:
        eager_attention(sub)
        for k, size in enumerate(SIZES[key]):
            ref = optimum_inputs(cfg, size, 1000 + len(rows))
            feeds = flatten_inputs(cfg, ref, in_names)
            extra = {"branch": "use_cache_branch=%s" % str(branch).lower()} if branch is not None else None
            rows.append(run_row(model, sess, feeds,
                                lambda: optimum_eager(sub, cfg, ref, out_names, traced), extra))
    return model, rows


# ---------------------------------------------------------------- labels

def held_out(stem):
    """Every file of one source model (or yaml) on the same side of the split."""
    return int(hashlib.sha256(stem.encode()).hexdigest(), 16) % 3 == 0


def dynamic_entry(model, export_inputs):
    """The entry export_corpus.suspects reads: inputs, export shapes, dynamic axes."""
    dyn = {}
    for vi in runs.graph_inputs(model):
        dyn[vi.name] = [k for k, d in enumerate(vi.type.tensor_type.shape.dim) if d.HasField("dim_param")]
    return {"inputs": list(export_inputs), "shapes": export_inputs, "dynamic": dyn}


def label(family, stem, source, pipeline, model, rows, notes, external):
    """The label of one file; rows[0] is the export size."""
    breaks = any(r["verdict"] in runs.BREAKING for r in rows)
    export_inputs = dict(rows[0]["inputs"])
    entry = {
        "family": family,
        "stem": stem,
        "held_out": held_out(stem),
        "source": source,
        "pipeline": pipeline,
        "exporter": "torchscript",
        "opset": next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None),
        "export_inputs": export_inputs,
        "dynamic_axes": ec.input_axes(model),
        "export_notes": [ex.shorten(runs.portable_text(n), 400) for n in notes] or None,
        "graph_only": {"external_data": external} if external else None,
        "declared_outputs": ec.declared_outputs(model),
        "runs": rows,
        "breaks": breaks,
    }
    if breaks:
        entry["breaks_at_export_size"] = rows[0]["verdict"] in runs.BREAKING
        sus = ec.suspects(model, dynamic_entry(model, {n: tuple(s) for n, s in export_inputs.items()}))
        entry["suspects"] = [s.split(" ")[0] for s in sus] or None
    return {k: v for k, v in entry.items() if v is not None}


def error_text(err):
    return "%s: %s" % (type(err).__name__, ex.first_line(err))


def store(model, name, out_dir):
    """Writes the committed graph-only copy; returns the external data's location."""
    external = name[:-len(".onnx")] + ".weights.bin"
    ex.strip_doc_strings(model)
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(graph_only(model, external).SerializeToString())
    return external


def summary(lab):
    return ", ".join(r["verdict"].split(" (")[0] for r in lab["runs"])


# ---------------------------------------------------------------- optimum: driver

def optimum_family(a, scratch, labels, not_exported):
    """Exports each optimum model, then runs and labels every file the export wrote."""
    for stem, cls, config_cls, config, task, kind, shapes in optimum_models():
        tag = stem + task_tag(task)
        if a.only and tag not in a.only and stem not in a.only:
            continue
        print("\n=== optimum %s (%s)" % (tag, task), flush=True)
        source = hf_source(cls, config_cls, config)
        pipeline = "save_pretrained(DIR); optimum.exporters.onnx.main_export(DIR, OUT, task=%r%s)" % (
            task, "".join(", %s=%r" % kv for kv in shapes.items()))
        started = time.time()
        try:
            out, spy = optimum_export(stem, cls, config_cls, config, task, shapes, scratch)
        except Exception as err:
            key = "optimum_%s" % tag
            not_exported[key] = {"family": "optimum", "stem": stem, "source": source, "pipeline": pipeline,
                                 "error": ex.shorten(runs.portable_text(error_text(err)), 400)}
            print("  NOT EXPORTED: %s" % not_exported[key]["error"])
            traceback.print_exc(limit=2)
            continue
        notes = ["export took %.1f s" % (time.time() - started)] if a.timings else []
        if spy.error is not None:
            notes.append("optimum's own validation at the export size: %s: %s"
                         % (type(spy.error).__name__, ex.first_line(spy.error)))
        for fname, plans in optimum_files(kind, out, spy):
            name = "optimum_%s.%s" % (tag, fname)
            started = time.time()
            path = os.path.join(out, fname)
            with quiet():
                model, rows = optimum_runs(path, plans)
                traced = export_shapes(path, plans[0][1], spy.seen["input_shapes"])
            if traced != rows[0]["inputs"]:
                print("  PROBLEM: %s: the first run %s is not the export size %s"
                      % (name, rows[0]["inputs"], traced))
            file_notes = list(notes)
            if fname == "decoder_model_merged.onnx":
                file_notes.append("merged by optimum from decoder_model (traced without past: the "
                                  "use_cache_branch=false runs) and decoder_with_past_model (the "
                                  "use_cache_branch=true runs, whose export size is export_inputs); the "
                                  "no-cache branch gets a dummy past of length 1, as optimum feeds it")
            external = store(model, name, a.out)
            labels[name] = label("optimum", stem, source, pipeline, model, rows, file_notes, external)
            print("  %-48s breaks=%-5s %s (%.1f s)" % (name, labels[name]["breaks"], summary(labels[name]),
                                                       time.time() - started), flush=True)


# ---------------------------------------------------------------- ultralytics

# (yaml, name, extra export arguments). YOLO26 exports with an external-NMS head by default
# (nms=None); nms=False keeps its NMS-free end-to-end head (top-k of 300 detections in the graph),
# the export its documentation suggests for deployment without NMS.
YOLO_EXPORTS = [("yolo11n.yaml", "yolo11n", {}), ("yolo11n-seg.yaml", "yolo11n-seg", {}),
                ("yolo11n-pose.yaml", "yolo11n-pose", {}), ("yolo11n-obb.yaml", "yolo11n-obb", {}),
                ("yolo11n-cls.yaml", "yolo11n-cls", {}), ("yolov8n.yaml", "yolov8n", {}),
                ("yolo26n.yaml", "yolo26n", {}), ("yolo26n.yaml", "yolo26n-e2e", {"nms": False})]
# The export size is ultralytics' default, 1 x 3 x 640 x 640 (batch 1); then other sizes and
# batches, a non-square image, 1280 (a size users export detectors at) and 96, whose 189 anchors
# are fewer than the 300 detections an end-to-end head (YOLO26 with nms=False) keeps. Every size
# is a multiple of the largest stride, 32, as ultralytics requires.
YOLO_RUNS = [(1, 3, 320, 320), (1, 3, 480, 480), (1, 3, 672, 672), (1, 3, 1280, 1280), (2, 3, 640, 640),
             (3, 3, 640, 640), (1, 3, 480, 640), (1, 3, 96, 96)]


class TracedModule:
    """Records the module and example input ultralytics' exporter passes to torch.onnx.export
    (its own export-mode deep copy: fused, head in export mode): the eager reference."""

    def __init__(self):
        import ultralytics.utils.export.engine as engine
        self.engine = engine
        self.orig = engine.torch2onnx
        self.module = self.example = None

    def __enter__(self):
        def spy(model, im, f, **kw):
            self.module, self.example = model, im
            return self.orig(model, im, f, **kw)
        self.engine.torch2onnx = spy
        return self

    def __exit__(self, *exc):
        self.engine.torch2onnx = self.orig
        return False


def ultralytics_offline(scratch):
    """ultralytics' settings in the scratch directory, its sync and integrations off."""
    os.environ["YOLO_CONFIG_DIR"] = os.path.join(scratch, "ultralytics-config")
    from ultralytics.utils import SETTINGS
    SETTINGS.update({"sync": False, "clearml": False, "comet": False, "dvc": False, "mlflow": False,
                     "raytune": False, "tensorboard": False, "wandb": False,
                     "datasets_dir": os.path.join(scratch, "datasets")})


def spread_weights(model):
    """Random weights that behave like trained ones where it matters for the labels (fixed seed).
    With ultralytics' own initialization the class scores of a random network are its prior bias
    plus almost nothing: near-equal across anchors, so a top-k over them (YOLO26's end-to-end
    head) picks among ties in an order that differs between ONNX Runtime and PyTorch by rounding
    alone, and its values cannot be compared. So every BatchNorm gets random statistics and
    affine parameters, and each class-score convolution (the last of each cv3 / one2one_cv3
    branch of a detection head) weights N(0, 1 / fan-in) and no bias: logits of the order of 1,
    scores that differ by far more than rounding (neither tied at the prior nor saturated)."""
    g = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                n = m.num_features
                m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                m.bias.copy_(torch.randn(n, generator=g) * 0.5)
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.5)
                m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
        head = model.model[-1]
        for attr in ("cv3", "one2one_cv3"):
            for branch in getattr(head, attr, None) or []:
                last = branch[-1] if isinstance(branch, torch.nn.Sequential) else branch
                if isinstance(last, torch.nn.Conv2d):
                    fan_in = last.weight[0].numel()
                    last.weight.copy_(torch.randn(last.weight.shape, generator=g) / fan_in ** 0.5)
                    if last.bias is not None:
                        last.bias.zero_()


def yolo_export(yaml, simplify, extra, work):
    """(path of the exported full model, traced module, example input): YOLO(yaml) built with
    random weights, exported from `work` (the exporter writes next to the model's name)."""
    from ultralytics import YOLO
    torch.manual_seed(SEED)
    cwd = os.getcwd()
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    try:
        with TracedModule() as traced, quiet():
            y = YOLO(yaml)
            spread_weights(y.model)
            f = y.export(format="onnx", dynamic=True, simplify=simplify, device="cpu", **extra)
        return os.path.join(work, f), traced.module, traced.example
    finally:
        os.chdir(cwd)


def drop_volatile_metadata(model):
    """Removes the export date from ultralytics' metadata, so that files are the same from run
    to run; the other entries (stride, task, imgsz, names, args) stay."""
    kept = [p for p in model.metadata_props if p.key != "date"]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)


def sorted_scores(outputs):
    """What can be compared of an end-to-end detection output [batch, k, 6] (box, score,
    class): its scores, sorted. The head keeps the top k scores; a random network scores many
    anchors exactly alike (border effects, features that average out), so which of the tied
    anchors it keeps, and in which order, depends on rounding and differs between ONNX Runtime
    and PyTorch."""
    return [np.sort(o[..., 4], axis=-1) for o in outputs]


def yolo_runs(path, module, example, transform=None):
    """Every run of one YOLO file (images uniform in [0, 1)), export size first."""
    model = onnx.load(path)
    sess = session(path)
    name = sess.get_inputs()[0].name
    sizes = [tuple(example.shape)] + [s for s in YOLO_RUNS if s != tuple(example.shape)]
    rows = []
    for k, shape in enumerate(sizes):
        x = np.random.default_rng(1000 + k).uniform(0, 1, size=shape).astype(np.float32)

        def eager(x=x):
            with torch.no_grad():
                return [t.detach().numpy() for t in ec.flat_outputs(module(torch.from_numpy(x)))]
        rows.append(run_row(model, sess, {name: x}, eager, transform=transform))
    return model, rows


def ultralytics_family(a, scratch, labels, not_exported):
    """Exports each YOLO model with and without onnxslim, then runs and labels both files."""
    import ultralytics
    ultralytics_offline(scratch)
    for yaml, base, extra in YOLO_EXPORTS:
        stem = yaml[:-len(".yaml")]
        if a.only and stem not in a.only and base not in a.only:
            continue
        for simplify, tag in ((True, "slim"), (False, "noslim")):
            name = "ultralytics_%s.%s.onnx" % (base, tag)
            pipeline = "YOLO(%r).export(format='onnx', dynamic=True, simplify=%s%s)" % (
                yaml, simplify, "".join(", %s=%r" % kv for kv in extra.items()))
            print("\n=== %s" % name, flush=True)
            started = time.time()
            try:
                path, module, example = yolo_export(yaml, simplify, extra, os.path.join(scratch, "yolo", tag))
            except Exception as err:
                not_exported[name] = {"family": "ultralytics", "stem": stem, "pipeline": pipeline,
                                      "error": ex.shorten(runs.portable_text(error_text(err)), 400)}
                print("  NOT EXPORTED: %s" % not_exported[name]["error"])
                continue
            notes = ["export took %.1f s" % (time.time() - started)] if a.timings else []
            end2end = extra.get("nms") is False
            if end2end:
                notes.append("end-to-end head: the values compared are each image's scores, sorted "
                             "(export_third.sorted_scores); shapes are compared as everywhere")
            with quiet():
                model, rows = yolo_runs(path, module, example, sorted_scores if end2end else None)
            drop_volatile_metadata(model)
            external = store(model, name, a.out)
            source = "ultralytics.YOLO(%r) (ultralytics %s, random weights)" % (yaml, ultralytics.__version__)
            labels[name] = label("ultralytics", stem, source, pipeline, model, rows, notes, external)
            print("  %-48s breaks=%-5s %s (%.1f s)" % (name, labels[name]["breaks"], summary(labels[name]),
                                                       time.time() - started), flush=True)


# ---------------------------------------------------------------- the document

def open_labels(out, partial):
    """(labels_path, labels, not_exported) of the directory `out`: a partial run (--only,
    --family) keeps the labels there and replaces those of what it exports."""
    labels_path = os.path.join(out, "ground_truth.json")
    labels, not_exported = {}, {}
    if partial and os.path.exists(labels_path):
        with open(labels_path) as f:
            previous = json.load(f)
        labels, not_exported = previous["models"], previous["not_exported"]
    return labels_path, labels, not_exported


def write_labels(labels_path, out, about, versions, counts, labels, not_exported, max_dir, uncounted=()):
    """Writes the label file and checks the directory's budget (the files of `uncounted` left
    out of it)."""
    doc = {"about": about, "versions": versions, "counts": counts(labels, not_exported),
           "not_exported": dict(sorted(not_exported.items())), "models": dict(sorted(labels.items()))}
    write_json(labels_path, doc)
    print("\nwrote %s: %s" % (os.path.relpath(labels_path, ROOT), json.dumps(doc["counts"])))
    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f not in uncounted)
    print("%s: %d bytes" % (os.path.relpath(out, ROOT), total))
    if total > max_dir:
        sys.exit("PROBLEM: %s is %d bytes (> %d)" % (out, total, max_dir))


def versions():
    import importlib.metadata as md
    out = {}
    for p in ("torch", "transformers", "optimum", "optimum-onnx", "ultralytics", "onnxslim", "onnx",
              "onnxruntime"):
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            pass
    return out


def counts(labels, not_exported):
    def count(items):
        items = list(items)
        b = sum(1 for v in items if v["breaks"])
        return {"models": len(items), "breaks": b, "healthy": len(items) - b,
                "held_out": sum(1 for v in items if v["held_out"])}
    out = {"all": count(labels.values()), "not_exported": len(not_exported)}
    groups = {"optimum": lambda n: n.startswith("optimum_"),
              "ultralytics slim": lambda n: n.endswith(".slim.onnx"),
              "ultralytics noslim": lambda n: n.endswith(".noslim.onnx")}
    for g, test in groups.items():
        out[g] = count(v for n, v in labels.items() if test(n))
    return out


ABOUT = ("Ground truth for the models in this directory, written by tools/models/export_third.py "
         "(never edited by hand): exports by third-party pipelines, optimum-onnx's main_export on tiny "
         "random transformers models and ultralytics' YOLO.export(format='onnx', dynamic=True) with "
         "(slim) and without (noslim) its onnxslim pass. Each model ran on ONNX Runtime (CPU, 1 thread, "
         "full weights) and on the eager PyTorch module the pipeline traced, on the same inputs; the "
         "first run is the export size. Verdicts and tolerance as in tests/corpus/torch2 "
         "(torch2_runs.py): 'breaks': ORT fails, or its output shape or values differ from eager, at "
         "some size where eager runs and the file declares the axes dynamic. Optimum runs use "
         "optimum's dummy inputs with all-ones attention masks, the past length set apart from the "
         "sequence length; 'branch' marks the merged decoder's use_cache_branch. 'held_out': "
         "sha256(stem) % 3 == 0. 'suspects': nodes reading a constant that holds an export size "
         "(found automatically). The files are graph-only: float initializers over 1 KiB are external "
         "data that is not shipped.")


def fixed_hash_seed():
    """Re-runs this script with PYTHONHASHSEED=0 unless it already has it: onnxslim's output
    depends on the order of sets of strings (which of two equal dim symbols it keeps, which
    expression of a dim it writes into value_info), as export_post.py found, so the slim files
    would differ from run to run."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))


def main():
    fixed_hash_seed()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "corpus", "third"))
    ap.add_argument("--scratch", help="full models, saved transformers models and temporaries "
                                      "(default: a temporary directory)")
    ap.add_argument("--family", choices=("optimum", "ultralytics"), action="append",
                    help="only this family (may be repeated; the other labels are kept)")
    ap.add_argument("--only", nargs="*", help="only these stems (their labels are replaced)")
    ap.add_argument("--timings", action="store_true", help="record export times in the notes")
    a = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    logging.disable(logging.WARNING)
    a.out = os.path.normpath(a.out)
    os.makedirs(a.out, exist_ok=True)
    scratch = os.path.abspath(a.scratch or tempfile.mkdtemp(prefix="shapelint-third-"))
    os.makedirs(scratch, exist_ok=True)
    labels_path, labels, not_exported = open_labels(a.out, a.only or a.family)
    families = a.family or ["optimum", "ultralytics"]
    if "optimum" in families:
        optimum_family(a, scratch, labels, not_exported)
    if "ultralytics" in families:
        ultralytics_family(a, scratch, labels, not_exported)
    write_labels(labels_path, a.out, ABOUT, versions(), counts, labels, not_exported, MAX_DIR)


if __name__ == "__main__":
    main()
