"""The networks of the torch 2.x corpus: torchvision, timm and transformers, random weights.

Nothing is downloaded: torchvision with weights=None (and weights_backbone=None), timm with
pretrained=False, transformers from small configs written here, the decoders also with a KV cache (WithCache).
Image networks take
x: batch x 3 x H x W with batch, H and W dynamic; text networks input_ids and attention_mask
(batch x seq, token ids in the vocabulary, the mask all ones) with batch and seq dynamic.
Each network is exported by both exporters (export_torch2.py) and labelled the same way as the
small modules.
"""

import io
import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.export import Dim

import export_examples as ex

IMG = (2, 3, 224, 224)
IMG_RUNS = [(1, 3, 224, 224), (3, 3, 224, 224), (1, 3, 232, 232), (2, 3, 256, 256), (1, 3, 192, 288),
            (2, 3, 320, 320)]
TEXT = {"input_ids": (2, 12), "attention_mask": (2, 12)}
TEXT_RUNS = [{"input_ids": (b, t), "attention_mask": (b, t)} for b, t in ((1, 12), (3, 7), (2, 1), (4, 30))]
VOCAB = 100

TORCHVISION = [
    "resnet18", "mobilenet_v3_small", "efficientnet_b0", "regnet_x_400mf", "convnext_tiny",
    "squeezenet1_0", "shufflenet_v2_x0_5", "densenet121", "swin_t", "vit_b_16",
    ("segmentation", "lraspp_mobilenet_v3_large"), ("segmentation", "fcn_resnet50"),
    ("detection", "ssdlite320_mobilenet_v3_large"),
]

TIMM = [
    "vit_tiny_patch16_224", "deit_tiny_patch16_224", "deit_tiny_distilled_patch16_224",
    "swin_tiny_patch4_window7_224", "convnext_atto", "convnextv2_atto", "efficientnet_b0",
    "efficientnet_lite0", "tf_efficientnet_b0", "regnetx_002", "regnety_002", "resnet18",
    "resnet26d", "mobilenetv3_small_050", "mobilenetv2_050", "levit_128s", "maxvit_nano_rw_256",
    "poolformer_s12", "poolformerv2_s12", "coat_lite_tiny", "cait_xxs24_224",
    "xcit_nano_12_p16_224", "mobilevit_xxs", "mobilevitv2_050", "edgenext_xx_small",
    "efficientformer_l1", "efficientformerv2_s0", "ghostnet_050", "dla34", "densenet121",
    "mixnet_s", "mnasnet_050", "rexnet_100", "lcnet_050", "tinynet_e", "pit_ti_224",
    "visformer_tiny", "fastvit_t8", "repvit_m1", "gernet_s", "resnetv2_50", "mixer_s16_224",
    "gmlp_ti16_224", "resmlp_12_224", "vit_small_patch16_224.dynamic", "crossvit_tiny_240",
]


def entry(name, src, build, inputs, shapes, runs, ints=None, make_inputs=None, dynamic=None):
    """A network; every axis of every input dynamic unless `dynamic` names the axes."""
    return {"name": name, "src": src, "build": build, "inputs": list(inputs),
            "shapes": {k: tuple(v) for k, v in shapes.items()},
            "runs": [{k: tuple(v) for k, v in r.items()} for r in runs],
            "dynamic": dynamic or {n: list(range(len(shapes[n]))) for n in inputs},
            "ints": ints or {}, "make_inputs": make_inputs, "expect": None}


class First(nn.Module):
    """The first tensor output of a network that returns a dict, a tuple or a model output."""

    def __init__(self, net, keys):
        super().__init__()
        self.net = net
        self.keys = keys

    def forward(self, *xs):
        out = self.net(**dict(zip(self.keys, xs))) if self.keys else self.net(*xs)
        while not isinstance(out, torch.Tensor):
            out = out[next(iter(out))] if isinstance(out, dict) else out[0]
        return out


def image(name, src, build, size=IMG, runs=IMG_RUNS):
    return entry(name, src, build, ["x"], {"x": size}, [{"x": r} for r in runs])


def torchvision_networks():
    import torchvision
    out = []
    for item in TORCHVISION:
        family, arch = item if isinstance(item, tuple) else ("", item)
        mod = getattr(torchvision.models, family) if family else torchvision.models
        kwargs = "weights=None" + (", weights_backbone=None" if family else "")
        src = "torchvision.models.%s%s(%s)" % (family + "." if family else "", arch, kwargs)
        build = (lambda m=mod, a=arch, fam=family:
                 First(getattr(m, a)(weights=None, **({"weights_backbone": None} if fam else {})), None))
        size, runs = IMG, IMG_RUNS
        if family == "detection":
            size, runs = (1, 3, 320, 320), [(1, 3, 320, 320), (1, 3, 256, 384), (1, 3, 480, 352)]
        out.append(image("tv_" + arch, src, build, size, runs))
    return out


def timm_networks():
    import timm
    out = []
    for arch in TIMM:
        name, _, flag = arch.partition(".")
        extra = {"dynamic_img_size": True} if flag == "dynamic" else {}
        cfg = timm.models.get_pretrained_cfg(name)
        side = (cfg.input_size[-1] if cfg is not None and cfg.input_size else 224)
        size = (2, 3, side, side)
        # side + 8 is no multiple of the strides: a size rounded down inside the model shows.
        runs = [(1, 3, side, side), (3, 3, side, side), (1, 3, side + 8, side + 8),
                (2, 3, side + 32, side + 32), (1, 3, side - 32, side + 64)]
        src = "timm.create_model(%r, pretrained=False%s)" % (
            name, "".join(", %s=%r" % kv for kv in extra.items()))
        out.append(image("timm_" + arch.replace(".", "_"), src,
                         lambda n=name, k=extra: First(timm.create_model(n, pretrained=False, **k), None),
                         size, runs))
    return out


def text_inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    arrs = {}
    for n, s in shapes.items():
        if n == "attention_mask":
            arrs[n] = np.ones(s, dtype=np.int64)
        else:
            arrs[n] = rng.integers(0, VOCAB, size=s).astype(np.int64)
    return arrs


def hf(name, cls, config_cls, config, inputs=("input_ids", "attention_mask"), shapes=None, runs=None,
       make_inputs=text_inputs):
    def build():
        import transformers
        cfg = getattr(transformers, config_cls)(**config)
        net = getattr(transformers, cls)(cfg)
        net.config.use_cache = False
        return First(net, list(inputs))
    src = "transformers.%s(transformers.%s(%s))" % (
        cls, config_cls, ", ".join("%s=%r" % kv for kv in config.items()))
    shapes = shapes or {k: TEXT[k] for k in inputs}
    runs = runs or [{k: r[k] for k in inputs} for r in TEXT_RUNS]
    return entry("hf_" + name, src, build, inputs, shapes, runs, make_inputs=make_inputs)


class WithCache(nn.Module):
    """A decoder run with a KV cache, as in generation: the past keys and values of each layer
    come in as tensors (batch x kv heads x past x head dim) and the mask covers past and new
    tokens; returns the last hidden state."""

    def __init__(self, net, layers):
        super().__init__()
        self.net = net
        self.layers = layers

    def forward(self, input_ids, attention_mask, *past):
        import transformers
        cache = transformers.DynamicCache()
        for i in range(self.layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.net(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache,
                       use_cache=True)
        return out.last_hidden_state


def kv_inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    arrs = text_inputs({n: s for n, s in shapes.items() if not n.startswith("past_")}, seed)
    for n, s in shapes.items():
        if n.startswith("past_"):
            arrs[n] = rng.uniform(-1, 1, size=s).astype(np.float32)
    return {n: arrs[n] for n in shapes}


def hf_with_cache(name, cls, config_cls, config, layers, kv_heads, head_dim):
    """A decoder of `layers` layers exported with its cache: batch, new tokens and past length
    dynamic, the mask as long as past and new tokens together (the input contract)."""
    def build():
        import transformers
        net = getattr(transformers, cls)(getattr(transformers, config_cls)(**config))
        return WithCache(net, layers)
    past = ["past_%s_%d" % (kv, i) for i in range(layers) for kv in ("key", "value")]
    inputs = ["input_ids", "attention_mask"] + past

    def shapes(b, s, p):
        out = {"input_ids": (b, s), "attention_mask": (b, p + s)}
        out.update({n: (b, kv_heads, p, head_dim) for n in past})
        return out
    src = "WithCache(transformers.%s(transformers.%s(%s)))" % (
        cls, config_cls, ", ".join("%s=%r" % kv for kv in config.items()))
    runs = [shapes(b, s, p) for b, s, p in ((1, 3, 5), (3, 1, 9), (2, 4, 2), (4, 7, 20))]
    # Batch and past length of the cache, as generation exports declare them; its heads and
    # head size are the model's.
    dynamic = {"input_ids": [0, 1], "attention_mask": [0, 1]}
    dynamic.update({n: [0, 2] for n in past})
    return entry("hf_" + name + "_kv", src, build, inputs, shapes(2, 3, 5), runs,
                 make_inputs=kv_inputs, dynamic=dynamic)


SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
             vocab_size=VOCAB)


def seq2seq_inputs(shapes, seed):
    return text_inputs(shapes, seed)


def pixel_inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return {n: rng.uniform(-1, 1, size=s).astype(np.float32) for n, s in shapes.items()}


def transformers_networks():
    llama_like = dict(SMALL, num_key_value_heads=2, max_position_embeddings=128)
    s2s = ("input_ids", "attention_mask", "decoder_input_ids")
    s2s_shapes = {"input_ids": (2, 12), "attention_mask": (2, 12), "decoder_input_ids": (2, 5)}
    s2s_runs = [{"input_ids": (b, t), "attention_mask": (b, t), "decoder_input_ids": (b, d)}
                for b, t, d in ((1, 12, 5), (3, 7, 2), (2, 20, 1), (4, 30, 9))]
    pix = ("pixel_values",)
    pix_shapes = {"pixel_values": (2, 3, 32, 32)}
    # 36 x 36 is no multiple of 16: Swin pads its patch grid to the window there, which the
    # trace at 32 x 32 did not (multiples alone showed it healthy).
    pix_runs = [{"pixel_values": s}
                for s in ((1, 3, 32, 32), (3, 3, 32, 32), (2, 3, 48, 48), (1, 3, 32, 64),
                          (1, 3, 36, 36))]
    vit = dict(SMALL, image_size=32, patch_size=8)
    return [
        hf("gpt2", "GPT2Model", "GPT2Config", dict(n_embd=32, n_layer=2, n_head=4, vocab_size=VOCAB,
                                                   n_positions=64)),
        hf("llama", "LlamaModel", "LlamaConfig", llama_like),
        hf("qwen2", "Qwen2Model", "Qwen2Config", llama_like),
        hf("mistral", "MistralModel", "MistralConfig", dict(llama_like, sliding_window=16)),
        hf("phi", "PhiModel", "PhiConfig", llama_like),
        hf_with_cache("gpt2", "GPT2Model", "GPT2Config",
                      dict(n_embd=32, n_layer=2, n_head=4, vocab_size=VOCAB, n_positions=64), 2, 4, 8),
        hf_with_cache("llama", "LlamaModel", "LlamaConfig", llama_like, 2, 2, 8),
        hf_with_cache("qwen2", "Qwen2Model", "Qwen2Config", llama_like, 2, 2, 8),
        hf_with_cache("mistral", "MistralModel", "MistralConfig", dict(llama_like, sliding_window=16),
                      2, 2, 8),
        hf_with_cache("phi", "PhiModel", "PhiConfig", llama_like, 2, 2, 8),
        hf("bert", "BertModel", "BertConfig", dict(SMALL, max_position_embeddings=64)),
        hf("roberta", "RobertaModel", "RobertaConfig", dict(SMALL, max_position_embeddings=66)),
        hf("distilbert", "DistilBertModel", "DistilBertConfig",
           dict(dim=32, n_layers=2, n_heads=4, hidden_dim=64, vocab_size=VOCAB, max_position_embeddings=64)),
        hf("t5", "T5Model", "T5Config", dict(d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4,
                                             vocab_size=VOCAB), s2s, s2s_shapes, s2s_runs, seq2seq_inputs),
        hf("bart", "BartModel", "BartConfig",
           dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=VOCAB,
                max_position_embeddings=64), s2s, s2s_shapes, s2s_runs, seq2seq_inputs),
        hf("vit", "ViTModel", "ViTConfig", vit, pix, pix_shapes, pix_runs, pixel_inputs),
        hf("swin", "SwinModel", "SwinConfig",
           dict(image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4),
           pix, pix_shapes, pix_runs, pixel_inputs),
        hf("clip_vision", "CLIPVisionModel", "CLIPVisionConfig",
           dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                image_size=32, patch_size=8), pix, pix_shapes, pix_runs, pixel_inputs),
        hf("clip_text", "CLIPTextModel", "CLIPTextConfig",
           dict(SMALL, max_position_embeddings=64)),
        hf("whisper", "WhisperModel", "WhisperConfig",
           dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=VOCAB,
                num_mel_bins=8, max_source_positions=16, max_target_positions=32, pad_token_id=1,
                bos_token_id=2, eos_token_id=3, decoder_start_token_id=2),
           ("input_features", "decoder_input_ids"),
           {"input_features": (2, 8, 32), "decoder_input_ids": (2, 5)},
           [{"input_features": (b, 8, 32), "decoder_input_ids": (b, d)} for b, d in ((1, 5), (3, 2), (2, 9))],
           lambda shapes, seed: {"input_features": pixel_inputs({"f": shapes["input_features"]}, seed)["f"],
                                 "decoder_input_ids": text_inputs({"d": shapes["decoder_input_ids"]}, seed)["d"]}),
    ]


def networks():
    out = []
    for family in (torchvision_networks, timm_networks, transformers_networks):
        try:
            out += family()
        except ImportError as err:
            print("skipping %s: %s" % (family.__name__, err))
    return out


def dynamic_shapes(z):
    return tuple({k: Dim.AUTO for k in z["dynamic"][n]} for n in z["inputs"])


def reason(err):
    """The line that says why an export failed: torch.onnx wraps torch.export's error."""
    while err.__cause__ is not None:
        err = err.__cause__
    return "%s: %s" % (type(err).__name__, ex.shorten(ex.first_line(err), 300))


def export_module(z, wrap):
    """Builds the network of `z` (the same random weights every time) and its example inputs;
    `wrap` gives the module a forward whose parameters are the input names."""
    torch.manual_seed(0)
    z["module"] = wrap(z["build"]().eval(), z["inputs"]).eval()
    z["make_inputs"] = z["make_inputs"] or pixel_inputs
    arrs = z["make_inputs"](z["shapes"], 12345)
    return tuple(torch.from_numpy(v) for v in arrs.values())


def export(z, wrap):
    """(file name, exporter, model, notes, entry) for each exporter of one network."""
    args = export_module(z, wrap)
    z["out_names"] = ["y"]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            prog = torch.onnx.export(z["module"], args, dynamo=True, dynamic_shapes=dynamic_shapes(z),
                                     output_names=["y"], verbose=False)
            out.append((z["name"] + ".dynamo.onnx", "dynamo", prog.model_proto, [], z))
        except Exception as err:
            out.append((z["name"] + ".dynamo.onnx", "dynamo", None,
                        ["dynamo export failed: " + reason(err)], z))
        try:
            f = io.BytesIO()
            torch.onnx.export(z["module"], args, f, dynamo=False, input_names=z["inputs"], output_names=["y"],
                              dynamic_axes=z["dynamic"])
            import onnx
            out.append((z["name"] + ".ts.onnx", "torchscript", onnx.load_from_string(f.getvalue()), [], z))
        except Exception as err:
            out.append((z["name"] + ".ts.onnx", "torchscript", None,
                        ["TorchScript export failed: " + reason(err)], z))
    return out
