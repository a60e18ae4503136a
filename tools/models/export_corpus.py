#!/usr/bin/env python3
"""Export a larger ground-truth corpus of real ONNX models for onnx-shapelint.

Same tools as export_examples.py (Debian 12's torch 1.13, TorchScript
torch.onnx.export, here at opset 14, torch 1.13's default; torchvision 0.14;
onnx 1.12), two kinds of models, written to --out (tests/corpus/exports):

  * small modules, one op or one idiom each.  Every module is a Python
    expression (or function body) over its inputs, kept verbatim in
    ground_truth.json as "source" and evaluated as is; `self.<name>` are the
    submodules/parameters/buffers built by the "init" expressions.  Every axis
    of every input is declared dynamic (list-form dynamic_axes, so the
    dim_param names are torch's own: x_dynamic_axes_1, ...).
  * torchvision classifiers, weights=None (random init, torch.manual_seed(0)),
    eval mode, with dynamic batch, height and width.  They are stored
    graph-only: every float initializer over 1 KiB is external data in
    <model>.weights.bin, which is not shipped (dims and data_type kept); the
    full models are written to --scratch and run from there.

Where torch refuses the dynamic axes (adaptive pools: "input size not
accessible"), the model is exported with the axes torch accepts and the other
input axes are then made symbolic by hand under torch's name, as
export_examples.py does; the model's "export_notes" say so.

Unless --no-check is given, every model is run on ONNX Runtime (run_ort.mjs
next to this script, with ort_single_thread.cjs preloaded so that sessions
use 1 intra-op and 1 inter-op thread) and on eager PyTorch (1 thread) at
the export size and at 3+ other sizes on the same inputs, and
ground_truth.json is written: per run the eager and ORT output shapes (or
errors), the node ORT names in its error, and whether the values agree
(np.allclose, rtol 1e-3, atol 1e-4 + 1e-3 * max|eager|); per model "breaks"
(ORT fails or disagrees at some size where eager runs) and, for breaking
models, "responsible": the graph nodes where the example size entered.  The
responsible nodes and the one-line "why" are written here by hand from
reading each graph (--print-graphs, --suspects); the script checks that each
named node exists and that the measured verdict is the one expected, and
exits with status 1 if not.

Run with Debian's python3 (the one python3-torch is installed for).
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_examples as ex  # noqa: E402  (shared export helpers)
from model_files import write_json  # noqa: E402,F401  (ec.write_json elsewhere)

OPSET = 14
MAX_FILE = 1536 * 1024     # any one committed file
MAX_DIR = 3 * 1024 * 1024  # the whole --out directory
INLINE_LIMIT = 64 * 1024   # small modules bigger than this are stored graph-only too

ENV = {"torch": torch, "nn": nn, "F": F, "math": math}


# ---------------------------------------------------------------- modules from source text

class Expr(nn.Module):
    """A module whose forward is `src`, a Python expression or function body
    over the inputs (and `self`); `init` maps attribute names to expressions
    that build submodules, parameters or (for plain tensors) buffers."""

    def __init__(self, src, inputs, init=None):
        super().__init__()
        for k, code in (init or {}).items():
            v = eval(code, ENV)
            if isinstance(v, torch.Tensor) and not isinstance(v, nn.Parameter):
                self.register_buffer(k, v)
            else:
                setattr(self, k, v)
        src = textwrap.dedent(src).strip()
        args = ", ".join(["self"] + list(inputs))
        if "\n" in src or src.startswith("return ") or "; " in src:
            body = "\n".join("    " + line for line in src.replace("; ", "\n").splitlines())
            ns = {}
            exec("def _f(%s):\n%s\n" % (args, body), ENV, ns)
            self._f = ns["_f"]
        else:
            self._f = eval("lambda %s: (%s)" % (args, src), ENV)

    def forward(self, *xs):
        return self._f(self, *xs)


# ---------------------------------------------------------------- the corpus

IMG = (2, 4, 8, 10)                       # N, C, H, W at export
IMG_RUNS = [(1, 4, 8, 10), (3, 4, 9, 7), (2, 4, 16, 12), (1, 4, 13, 21)]     # C kept (weights)
IMG_RUNS_C = [(1, 4, 8, 10), (3, 6, 9, 7), (2, 2, 16, 12), (1, 5, 13, 21)]   # C varies too
SEQ = (2, 5, 8)                           # B, T, D at export
SEQ_RUNS = [(1, 5, 8), (3, 7, 8), (2, 1, 8), (4, 12, 8)]                     # D kept (weights)
SEQ_RUNS_D = [(1, 5, 8), (3, 7, 6), (2, 1, 8), (4, 12, 10)]                  # D varies too
CT = (2, 4, 10)                           # B, C, T (1-d conv / pool layout)
CT_RUNS = [(1, 4, 10), (3, 4, 7), (2, 4, 1), (4, 4, 23)]


def M(name, src, x=IMG, runs=IMG_RUNS, init=None, inputs=None, ints=None, fallback=None,
      breaks=False, responsible=(), why="", reference=None):
    """One small-module model.  x: export shape of the single input 'x', or a
    dict {input: shape} (then runs is a list of such dicts).  ints: {input:
    high} for int64 inputs drawn from [0, high).  breaks/responsible/why: the
    hand-checked label (verified against the measured verdict)."""
    shapes = x if isinstance(x, dict) else {"x": x}
    names = list(inputs or shapes)
    rs = [r if isinstance(r, dict) else {"x": r} for r in runs]
    return dict(name=name, src=textwrap.dedent(src).strip(), init=init or {}, inputs=names,
                shapes={k: tuple(v) for k, v in shapes.items()},
                runs=[{k: tuple(v) for k, v in r.items()} for r in rs],
                dynamic={k: list(range(len(shapes[k]))) for k in names},
                fallback=fallback, ints=ints or {}, expect=breaks,
                responsible=list(responsible), why=why, reference=reference)


ATTN_INIT = {"qkv": "nn.Linear(8, 24)", "proj": "nn.Linear(8, 8)", "h": "2", "scale": "(8 // 2) ** -0.5"}
ATTN_BODY = """
B, T, C = {sizes}
q, k, v = self.qkv(x).split(8, dim=2)
q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
att = (q @ k.transpose(-2, -1) * self.scale).softmax(-1)
return self.proj((att @ v).transpose(1, 2).reshape(B, T, C))
"""

SINUSOID = """
T = {T}
pos = torch.arange(T).float()[:, None]
ang = pos / 10000 ** (torch.arange(0, 8, 2).float() / 8)
return x + torch.cat([ang.sin(), ang.cos()], -1)
"""

CAUSAL = """
T = {T}
mask = torch.ones(T, T, dtype=torch.bool).triu(1)
s = (x @ x.transpose(1, 2)).masked_fill(mask, float('-inf'))
return s.softmax(-1) @ x
"""

CHANNEL_SHUFFLE = """
b, c, h, w = {sizes}
return x.view(b, 2, c // 2, h, w).transpose(1, 2).reshape(b, c, h, w)
"""

PAD_MULTIPLE = """
p = (4 - {W} % 4) % 4
return F.pad(x, (0, p))
"""


def small_models():
    kron_runs = [{"a": (3, 2), "b": (4, 5)}, {"a": (2, 3), "b": (2, 2)},
                 {"a": (1, 1), "b": (3, 7)}, {"a": (3, 3), "b": (4, 5)}]
    two_img = {"x": (2, 4, 4, 5), "skip": (2, 4, 8, 10)}
    two_img_runs = [{"x": (1, 4, 4, 5), "skip": (1, 4, 8, 10)}, {"x": (3, 2, 5, 3), "skip": (3, 2, 9, 7)},
                    {"x": (1, 4, 8, 8), "skip": (1, 4, 16, 17)}, {"x": (2, 1, 1, 1), "skip": (2, 1, 3, 2)}]
    bmm = {"a": (2, 3, 4), "b": (2, 4, 5)}
    bmm_runs = [{"a": (1, 3, 4), "b": (1, 4, 5)}, {"a": (3, 1, 6), "b": (3, 6, 2)},
                {"a": (4, 7, 2), "b": (4, 2, 9)}, {"a": (2, 3, 1), "b": (2, 1, 1)}]
    ids = {"ids": (2, 5)}
    ids_runs = [{"ids": (1, 5)}, {"ids": (3, 7)}, {"ids": (2, 1)}, {"ids": (4, 12)}]
    squeeze1 = (2, 1, 8, 10)
    return [
        # ---- slicing
        M("slice_inner", "x[:, 1:-1]", runs=IMG_RUNS_C,
          why="constant starts/ends relative to the end: Slice works at every size"),
        M("slice_const_k", "x[..., :4]", runs=IMG_RUNS_C,
          why="k=4 is the model's own constant, not a size of x; eager and ORT both clamp at W<4"),
        M("slice_half_int", "x[..., :int(x.size(-1)) // 2]", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Slice"], why="int(W)//2 = 5 at export: the Slice end is the literal 5"),
        M("slice_half_traced", "x[..., :x.size(-1) // 2]", runs=IMG_RUNS_C,
          why="end = Shape/Gather/Div of x: tracks W"),
        M("last_token", "x[:, -1]", x=SEQ, runs=SEQ_RUNS_D,
          why="index -1 is size independent"),
        M("last_token_int", "x[:, int(x.size(1)) - 1]", x=SEQ, runs=SEQ_RUNS_D, breaks=True,
          responsible=["/Gather"], why="index int(T)-1 = 4 is a literal Gather index"),
        # ---- padding
        M("pad_const", "F.pad(x, (1, 2, 3, 4))", runs=IMG_RUNS_C, why="constant pads"),
        M("pad_reflect", "F.pad(x, (2, 2, 1, 1), mode='reflect')", runs=IMG_RUNS_C,
          why="constant pads; reflect needs W>2, H>1, which every run has"),
        M("pad_multiple_int", PAD_MULTIPLE.format(W="int(x.size(-1))"), runs=IMG_RUNS_C, breaks=True,
          responsible=["/Pad"], why="pad to a multiple of 4 computed in Python: Pad's pads come from the literal "
          "[0, 2] (W=10)"),
        M("pad_multiple_traced", PAD_MULTIPLE.format(W="x.size(-1)"), runs=IMG_RUNS_C,
          why="the pad amount is computed in the graph from Shape"),
        # ---- pooling
        M("max_pool2d", "F.max_pool2d(x, 2)", runs=IMG_RUNS_C, why="fixed kernel/stride"),
        M("avg_pool_kernel_from_shape", "F.avg_pool2d(x, x.size()[2:])", runs=IMG_RUNS_C, breaks=True,
          fallback={"x": [0, 1]}, responsible=["/AveragePool"],
          why="old-style global pool: kernel_shape [8, 10] from the export size"),
        M("avg_pool_kernel_int", "F.avg_pool2d(x, (int(x.size(2)), int(x.size(3))))", runs=IMG_RUNS_C,
          breaks=True, responsible=["/AveragePool"], why="global pool by a kernel of int(H), int(W): kernel_shape [8, 10]"),
        M("max_pool2d_pad", "F.max_pool2d(x, 3, stride=2, padding=1)", runs=IMG_RUNS_C,
          why="fixed kernel/stride/pads"),
        M("avg_pool2d_ceil", "F.avg_pool2d(x, 3, stride=2, ceil_mode=True)", runs=IMG_RUNS_C,
          why="fixed kernel/stride; ceil_mode agrees with eager"),
        M("adaptive_avg_pool2d_1", "F.adaptive_avg_pool2d(x, 1)", runs=IMG_RUNS_C,
          why="output 1: GlobalAveragePool"),
        M("adaptive_avg_pool2d_2x3", "F.adaptive_avg_pool2d(x, (2, 3))", x=(2, 4, 8, 9), runs=IMG_RUNS_C,
          fallback={"x": [0, 1]}, breaks=True, responsible=["/AveragePool"],
          why="kernel/strides [4,3] computed from the export size 8x9 (torch refuses 8x10: 3 does not divide 10)"),
        M("adaptive_max_pool2d_1", "F.adaptive_max_pool2d(x, 1)", runs=IMG_RUNS_C,
          why="output 1: GlobalMaxPool"),
        M("adaptive_max_pool2d_2", "F.adaptive_max_pool2d(x, 2)", runs=IMG_RUNS_C,
          fallback={"x": [0, 1]}, breaks=True, responsible=["/MaxPool"],
          why="kernel/strides [4,5] computed from the export size 8x10"),
        M("adaptive_avg_pool1d_4", "F.adaptive_avg_pool1d(x, 4)", x=(2, 4, 12),
          runs=[(1, 4, 12), (3, 2, 16), (2, 4, 7), (1, 3, 30)],
          fallback={"x": [0, 1]}, breaks=True, responsible=["/AveragePool"],
          why="kernel/strides 3 computed from the export length 12"),
        # ---- interpolation
        M("interp_scale_nearest", "F.interpolate(x, scale_factor=2.0, mode='nearest')", runs=IMG_RUNS_C,
          why="Resize with constant scales"),
        M("interp_scale_recompute", "F.interpolate(x, scale_factor=2.0, mode='bilinear', "
          "align_corners=False, recompute_scale_factor=True)", runs=IMG_RUNS_C,
          why="recompute_scale_factor: the output size is computed in the graph from Shape"),
        M("interp_size_const", "F.interpolate(x, size=(16, 16), mode='bilinear', align_corners=False)",
          runs=IMG_RUNS_C, why="the output size is the model's own constant"),
        M("interp_size_int", "F.interpolate(x, size=(int(x.shape[2]) * 2, int(x.shape[3]) * 2), "
          "mode='nearest')", runs=IMG_RUNS_C, breaks=True, responsible=["/Resize"],
          why="Resize sizes = literal 16x20 from int(H)*2, int(W)*2"),
        M("interp_size_traced", "F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] * 2), mode='nearest')",
          runs=IMG_RUNS_C, why="Resize sizes from Shape"),
        M("interp_size_like", "F.interpolate(x, size=skip.shape[-2:], mode='nearest') + skip",
          x=two_img, runs=two_img_runs, why="Resize sizes from Shape(skip) (FPN-style upsample to the skip connection)"),
        # ---- normalization
        M("batch_norm2d", "self.bn(x)", init={"bn": "nn.BatchNorm2d(4)"}, why="per-channel constants only"),
        M("layer_norm", "self.ln(x)", x=SEQ, runs=SEQ_RUNS, init={"ln": "nn.LayerNorm(8)"},
          why="normalizes the last axis, whose weights fix D"),
        M("layer_norm_hw", "F.layer_norm(x, x.shape[-2:])", runs=IMG_RUNS_C, fallback={"x": [0, 1]},
          why="normalized_shape only gives the number of trailing axes (ReduceMean over the last two)"),
        M("layer_norm_int", "F.layer_norm(x, (int(x.size(-1)),))", x=SEQ, runs=SEQ_RUNS_D,
          why="int(D) only gives the number of normalized axes: no size reaches the graph"),
        M("group_norm", "self.gn(x)", init={"gn": "nn.GroupNorm(2, 4)"},
          why="reshape to [0, 2, -1] and back to Shape(x)"),
        M("instance_norm", "self.inorm(x)", init={"inorm": "nn.InstanceNorm2d(4, affine=True)"},
          why="InstanceNormalization"),
        M("std_last", "(x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True)", x=SEQ, runs=SEQ_RUNS_D,
          breaks=False, why="unbiased std: the N-1 correction comes from Shape"),
        M("mean_int_div", "x.sum(-1) / int(x.size(-1))", x=SEQ, runs=SEQ_RUNS_D, breaks=True,
          responsible=["/Div"], why="divides by the literal D=8: wrong values at other D"),
        # ---- sort / topk
        M("sort", "torch.sort(x, dim=-1)", x=SEQ, runs=SEQ_RUNS_D, why="TopK with k = Shape(x)[-1]"),
        M("topk_const", "torch.topk(x, 3, dim=-1)", x=SEQ,
          runs=[(1, 5, 8), (3, 7, 6), (2, 1, 3), (4, 12, 10)], why="k=3 is the model's constant"),
        M("topk_half_int", "torch.topk(x, int(x.size(-1)) // 2, dim=-1)[0]", x=SEQ, runs=SEQ_RUNS_D,
          breaks=True, responsible=["/TopK"], why="k = int(D)//2 = 4 is a literal"),
        M("argsort_gather", "torch.gather(x, -1, x.argsort(-1, descending=True))", x=SEQ, runs=SEQ_RUNS_D,
          why="argsort is TopK with k from Shape; Gather(Elements) by its indices"),
        # ---- attention
        M("attn_heads_int", ATTN_BODY.format(sizes="(int(d) for d in x.shape)"), x=SEQ, runs=SEQ_RUNS,
          init=ATTN_INIT, breaks=True, responsible=["/Reshape", "/Reshape_1", "/Reshape_2", "/Reshape_3"],
          why="view(B, T, H, D) and reshape(B, T, C) with Python ints: literal targets [2,5,2,4], [2,5,8]"),
        M("attn_heads_traced", ATTN_BODY.format(sizes="x.shape"), x=SEQ, runs=SEQ_RUNS, init=ATTN_INIT,
          why="view targets built from Shape(x)"),
        M("attn_scale_int", "torch.softmax(x @ x.transpose(-2, -1) / math.sqrt(int(x.size(-1))), -1)",
          x=SEQ, runs=SEQ_RUNS_D, breaks=True, responsible=["/Div"],
          why="1/sqrt(D) folded to the literal sqrt(8): wrong values at other D"),
        M("mha", "self.mha(x, x, x, need_weights=False)[0]", x=SEQ, runs=SEQ_RUNS,
          init={"mha": "nn.MultiheadAttention(8, 2, batch_first=True)"},
          why="nn.MultiheadAttention (slow path when traced): head reshapes from Shape"),
        M("causal_mask_int", CAUSAL.format(T="int(x.size(1))"), x=SEQ, runs=SEQ_RUNS_D, breaks=True,
          responsible=["/Where"], why="the 5x5 causal mask is a folded constant"),
        M("causal_mask_traced", CAUSAL.format(T="x.size(1)"), x=SEQ, runs=SEQ_RUNS_D,
          why="ConstantOfShape(Shape) + Trilu: mask tracks T"),
        M("causal_mask_buffer", "T = x.size(1); s = (x @ x.transpose(1, 2)).masked_fill("
          "self.mask[:T, :T] == 0, float('-inf')); return s.softmax(-1) @ x",
          x=SEQ, runs=[(1, 5, 8), (3, 7, 6), (2, 1, 8), (4, 12, 10)],
          init={"mask": "torch.tril(torch.ones(16, 16))"},
          why="GPT-2 style: a 16x16 buffer sliced to [:T, :T] with T from Shape"),
        M("causal_mask_arange", "i = torch.arange(x.size(1)); s = (x @ x.transpose(1, 2)).masked_fill("
          "i[None, :] > i[:, None], float('-inf')); return s.softmax(-1) @ x", x=SEQ, runs=SEQ_RUNS_D,
          why="Range(0, Shape(x)[1])"),
        # ---- recurrent
        M("lstm", "self.rnn(x)[0]", x=SEQ, runs=SEQ_RUNS, init={"rnn": "nn.LSTM(8, 16, batch_first=True)"},
          why="ONNX LSTM without initial state"),
        M("gru_bi2", "self.rnn(x)[0]", x=SEQ, runs=SEQ_RUNS,
          init={"rnn": "nn.GRU(8, 16, num_layers=2, bidirectional=True, batch_first=True)"},
          why="two bidirectional ONNX GRUs; the zero initial state is ConstantOfShape([4, B, 16]) with B from Shape"),
        M("lstm_h0_int", "h0 = torch.zeros(1, int(x.size(0)), 16); return self.rnn(x, (h0, h0))[0]",
          x=SEQ, runs=SEQ_RUNS, init={"rnn": "nn.LSTM(8, 16, batch_first=True)"}, breaks=True,
          responsible=["/rnn/Expand", "/rnn/Expand_1"],
          why="h0/c0 are a folded 1x2x16 zeros constant that torch Expands to [1, B, 16]: the Expand fails for B > 2, "
          "and at B=1 it keeps batch 2, which the LSTM rejects"),
        # ---- kron (from export_examples.py)
        dict(M("kron_decomposed", "kron_decomposed(a, b, bake=True)  # export_examples.py",
               x={"a": (2, 3), "b": (4, 5)}, runs=kron_runs, breaks=True,
               responsible=["/Reshape", "/Reshape_1", "/Reshape_2"],
               why="torch.kron's decomposition with sizes as Python ints: literal Reshape targets"),
             module=ex.KronDecomposed(True), reference=ex.KronReference()),
        dict(M("kron_decomposed_dynamic", "kron_decomposed(a, b, bake=False)  # export_examples.py",
               x={"a": (2, 3), "b": (4, 5)}, runs=kron_runs,
               why="the same decomposition with traced sizes"),
             module=ex.KronDecomposed(False), reference=ex.KronReference()),
        # ---- reshape / flatten
        M("view_int_batch", "x.view(int(x.size(0)), -1)", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Reshape"], why="Reshape target [2, -1]"),
        M("view_traced_batch", "x.view(x.size(0), -1)", runs=IMG_RUNS_C, why="target from Shape(x)[0]"),
        M("flatten", "torch.flatten(x, 1)", runs=IMG_RUNS_C, why="Flatten axis=1"),
        M("tokens_to_image_int", "h = w = int(math.sqrt(x.size(1))); "
          "return x.transpose(1, 2).reshape(x.size(0), -1, h, w)", x=(2, 16, 8),
          runs=[(1, 16, 8), (3, 9, 6), (2, 1, 8), (1, 36, 10)], breaks=True, responsible=["/Reshape"],
          why="h = w = int(sqrt(T)) = 4: the Reshape target ends in the literals 4, 4"),
        M("reshape_int_last", "x.reshape(-1, int(x.size(-1)))", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Reshape"], why="Reshape target [-1, 10]"),
        # ---- positional embeddings
        M("pos_param_full", "x + self.pos", x=SEQ, runs=[(1, 5, 8), (3, 5, 8), (2, 1, 8), (4, 12, 8)],
          init={"pos": "nn.Parameter(torch.randn(1, 5, 8))"},
          why="the model really has length 5: eager fails at other T (T=1 broadcasts in both)"),
        M("pos_param_slice_int", "x + self.pos[:, :int(x.size(1))]", x=SEQ, runs=SEQ_RUNS,
          init={"pos": "nn.Parameter(torch.randn(1, 16, 8))"}, breaks=True, responsible=["/Add"],
          why="the slice of the 16-long table is folded to a 1x5x8 initializer added to x"),
        M("pos_param_slice_traced", "x + self.pos[:, :x.size(1)]", x=SEQ, runs=SEQ_RUNS,
          init={"pos": "nn.Parameter(torch.randn(1, 16, 8))"}, why="Slice end from Shape(x)[1]"),
        M("pos_sinusoid_int", SINUSOID.format(T="int(x.size(1))"), x=SEQ, runs=SEQ_RUNS, breaks=True,
          responsible=["/Add"], why="the sinusoid table is computed for T=5 and folded to a 5x8 constant"),
        M("pos_sinusoid_traced", SINUSOID.format(T="x.size(1)"), x=SEQ, runs=SEQ_RUNS,
          why="Range(Shape(x)[1]) then Sin/Cos in the graph"),
        M("pos_embedding_int", "return self.tok(ids) + self.pos(torch.arange(int(ids.size(1))))",
          x=ids, runs=ids_runs, ints={"ids": 10},
          init={"tok": "nn.Embedding(10, 8)", "pos": "nn.Embedding(16, 8)"}, breaks=True,
          responsible=["/Add"], why="position ids arange(5) folded: pos(arange) is a 5x8 constant"),
        M("pos_embedding_traced", "return self.tok(ids) + self.pos(torch.arange(ids.size(1)))",
          x=ids, runs=ids_runs, ints={"ids": 10},
          init={"tok": "nn.Embedding(10, 8)", "pos": "nn.Embedding(16, 8)"},
          why="position ids from Range(Shape(ids)[1])"),
        M("embedding", "self.emb(ids)", x=ids, runs=ids_runs, ints={"ids": 10},
          init={"emb": "nn.Embedding(10, 8)"}, why="Gather"),
        # ---- expand / repeat / tile
        M("cls_expand_int", "torch.cat([self.cls.expand(int(x.size(0)), -1, -1), x], 1)", x=SEQ,
          runs=SEQ_RUNS, init={"cls": "nn.Parameter(torch.randn(1, 1, 8))"}, breaks=True,
          responsible=["/Expand"], why="Expand's shape is the literal [2, -1, -1] (via torch's Equal/Where on -1)"),
        M("cls_expand_traced", "torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1)", x=SEQ,
          runs=SEQ_RUNS, init={"cls": "nn.Parameter(torch.randn(1, 1, 8))"},
          why="Expand to Shape(x)[0] (ViT style)"),
        M("expand_mean", "x.mean(1, keepdim=True).expand(x.shape)", x=SEQ, runs=SEQ_RUNS_D,
          why="Expand to Shape(x)"),
        M("repeat_const", "x.repeat(1, 2, 1)", x=SEQ, runs=SEQ_RUNS_D, why="Tile by constant repeats"),
        M("repeat_int", "torch.cat([self.cls.repeat(int(x.size(0)), 1, 1), x], 1)", x=SEQ,
          runs=SEQ_RUNS, init={"cls": "nn.Parameter(torch.randn(1, 1, 8))"}, breaks=True,
          responsible=["/Tile"], why="Tile repeats are the literal [2, 1, 1]"),
        # ---- chunk / split / cat
        M("chunk2", "torch.cat(torch.chunk(x, 2, dim=1)[::-1], 1)", runs=IMG_RUNS_C,
          why="chunk computes the split sizes from Shape (ceil(C/2), rest), odd C included"),
        M("split_size2", "torch.cat(torch.split(x, 2, dim=1)[::-1], 1)", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Split"], why="split(2) of C=4 exported as Split [2, 2]; eager makes ceil(C/2) pieces"),
        M("split_list_int", "a, b = torch.split(x, [1, int(x.size(1)) - 1], dim=1); return b * a.sigmoid()",
          runs=IMG_RUNS_C, breaks=True, responsible=["/Split"], why="split sizes [1, 3] from C=4"),
        M("split_half_traced", "a, b = x.split(x.size(1) // 2, dim=1); return a * b.sigmoid()",
          runs=IMG_RUNS_C, breaks=True, responsible=["/Split"],
          why="no int(), yet torch 1.13 writes the split sizes as the literal [2, 2] from C=4"),
        M("glu", "F.glu(x, dim=1)", runs=IMG_RUNS_C, why="Split into two equal halves, no sizes"),
        M("unbind_sum", "sum(x.unbind(1))", x=SEQ, runs=SEQ_RUNS_D, breaks=True, responsible=["/Split"],
          why="unbind over T=5 is a Split into 5 outputs; the Python sum adds exactly 5"),
        M("loop_over_time", "h = x[:, 0]\nfor t in range(1, x.size(1)):\n    h = torch.tanh(h + x[:, t])\n"
          "return h", x=SEQ, runs=SEQ_RUNS_D, breaks=True, responsible=["/Gather_1", "/Gather_2", "/Gather_3",
                                                                        "/Gather_4"],
          why="the Python loop over T=5 is unrolled: Gathers of the literal steps 1..4"),
        M("cat_last", "torch.cat([x, x * 2], dim=-1)", runs=IMG_RUNS_C, why="Concat"),
        # ---- layout ops
        M("pixel_shuffle", "F.pixel_shuffle(x, 2)", runs=[(1, 4, 8, 10), (3, 8, 9, 7), (2, 4, 1, 3),
                                                          (1, 12, 13, 21)], why="DepthToSpace"),
        M("pixel_unshuffle", "F.pixel_unshuffle(x, 2)", runs=[(1, 4, 8, 10), (3, 3, 6, 8), (2, 4, 2, 2),
                                                              (1, 1, 14, 22)],
          why="Reshape targets hold only 0 (copy), -1 and the factor 2"),
        M("channel_shuffle_int", CHANNEL_SHUFFLE.format(sizes="(int(d) for d in x.size())"),
          runs=[(1, 4, 8, 10), (3, 6, 9, 7), (2, 2, 16, 12), (1, 4, 13, 21)], breaks=True,
          responsible=["/Reshape", "/Reshape_1"], why="view/reshape targets [2,2,2,8,10], [2,4,8,10]"),
        M("channel_shuffle_traced", CHANNEL_SHUFFLE.format(sizes="x.size()"),
          runs=[(1, 4, 8, 10), (3, 6, 9, 7), (2, 2, 16, 12), (1, 4, 13, 21)],
          why="targets from Shape (torchvision's ShuffleNet code)"),
        M("squeeze1", "x.squeeze(1)", x=squeeze1, runs=[(1, 1, 8, 10), (3, 1, 9, 7), (2, 3, 8, 10),
                                                        (4, 1, 1, 21)],
          why="squeeze of a dynamic axis: torch emits If(Shape[1] == 1)"),
        M("flip", "torch.flip(x, [-1])", runs=IMG_RUNS_C, why="Slice with step -1"),
        M("roll_const", "torch.roll(x, 2, -1)", runs=IMG_RUNS_C, why="Slice/Concat with constant shift"),
        M("roll_half_int", "torch.roll(x, int(x.size(-1)) // 2, -1)", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Slice", "/Slice_1"], why="fftshift-style shift int(W)//2 = 5 is a literal"),
        M("cumsum", "torch.cumsum(x, 1)", runs=IMG_RUNS_C, why="CumSum"),
        M("stride_slice", "x[:, ::2]", x=SEQ, runs=SEQ_RUNS_D, why="Slice with step 2, end INT_MAX"),
        M("index_select_int", "torch.index_select(x, 1, torch.arange(0, int(x.size(1)), 2))", x=SEQ,
          runs=SEQ_RUNS_D, breaks=True, responsible=["/Gather"], why="indices arange(0, 5, 2) folded to [0, 2, 4]"),
        M("narrow_int", "x.narrow(-1, 0, int(x.size(-1)) - 1)", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Slice"], why="drop-last written with int(W): Slice end is the literal 9"),
        M("tensor_unfold", "x.unfold(-1, 3, 2)", x=SEQ, runs=SEQ_RUNS_D, fallback={"x": [0, 1]}, breaks=True,
          responsible=["/Slice", "/Slice_1", "/Slice_2"],
          why="unrolled into 3 Slices (windows at 0, 2, 4 of D=8); torch also stacks them on the wrong axis, "
          "so values are wrong even at the export size"),
        M("repeat_interleave", "x.repeat_interleave(2, dim=1)", x=SEQ, runs=SEQ_RUNS_D, breaks=True,
          why="no baked size: torch 1.13's repeat_interleave export (Loop over SplitToSequence) gives the wrong "
          "shape at every size, the export size included"),
        # ---- shape-built tensors
        M("arange_traced", "x + torch.arange(x.size(-1))", runs=IMG_RUNS_C, why="Range(Shape)"),
        M("arange_int", "x + torch.arange(int(x.size(-1)))", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Add"], why="arange(10) folded to a constant"),
        M("zeros_shape", "torch.cat([x, torch.zeros(x.shape)], 1)", runs=IMG_RUNS_C,
          why="ConstantOfShape(Shape(x))"),
        M("ones_int", "torch.cat([x, torch.ones(int(x.size(0)), 1, int(x.size(2)))], 1)", x=SEQ,
          runs=SEQ_RUNS_D, breaks=True, responsible=["/Concat"], why="ones(2, 1, 8) folded to a constant"),
        M("meshgrid_int", "yy, xx = torch.meshgrid(torch.arange(int(x.size(2))), torch.arange("
          "int(x.size(3))), indexing='ij'); return x + yy + xx", runs=IMG_RUNS_C, breaks=True,
          responsible=["/Add", "/Add_1"], why="the coordinate grids are folded 8x10 constants"),
        M("meshgrid_traced", "yy, xx = torch.meshgrid(torch.arange(x.size(2)), torch.arange("
          "x.size(3)), indexing='ij'); return x + yy + xx", runs=IMG_RUNS_C,
          why="Range(Shape) + Expand"),
        M("where", "torch.where(x > 0, x, x * 0.1)", runs=IMG_RUNS_C, why="Where"),
        M("eye_int", "x @ torch.eye(int(x.size(-1)))", x=SEQ, runs=SEQ_RUNS_D, breaks=True,
          responsible=["/MatMul"], why="eye(8) folded to an 8x8 constant"),
        M("tensor_from_size", "x / torch.tensor(x.size(-1)) ** 0.5", x=SEQ, runs=SEQ_RUNS_D,
          why="torch 1.13 traces torch.tensor(x.size(-1)) as Shape/Slice/Squeeze/Cast, not as a constant"),
        M("numel_mean", "x.sum() / x.numel()", x=SEQ, runs=SEQ_RUNS_D, why="numel is traced"),
        M("sum_from_mean_int", "x.mean(dim=(2, 3)) * int(x.size(2)) * int(x.size(3))", runs=IMG_RUNS_C,
          breaks=True, responsible=["/Mul", "/Mul_1"], why="multiplies by the literals 8.0 and 10.0 (int(H), int(W))"),
        M("length_mask_int", "m = torch.arange(int(x.size(1)))[None, :] < lens[:, None]; return x * m[..., None]",
          x={"x": SEQ, "lens": (2,)}, ints={"lens": 6},
          runs=[{"x": (1, 5, 8), "lens": (1,)}, {"x": (3, 7, 6), "lens": (3,)}, {"x": (2, 1, 8), "lens": (2,)},
                {"x": (4, 12, 10), "lens": (4,)}], breaks=True, responsible=["/Less"],
          why="arange(5) folded: the padding mask has length 5"),
        M("length_mask_traced", "m = torch.arange(x.size(1))[None, :] < lens[:, None]; return x * m[..., None]",
          x={"x": SEQ, "lens": (2,)}, ints={"lens": 6},
          runs=[{"x": (1, 5, 8), "lens": (1,)}, {"x": (3, 7, 6), "lens": (3,)}, {"x": (2, 1, 8), "lens": (2,)},
                {"x": (4, 12, 10), "lens": (4,)}], why="Range(Shape(x)[1])"),
        M("einsum_bmm", "torch.einsum('bij,bjk->bik', a, b)", x=bmm, runs=bmm_runs, why="Einsum"),
        M("unfold", "F.unfold(x, 2, stride=2)", runs=[(1, 4, 8, 10), (3, 6, 10, 6), (2, 2, 16, 12),
                                                      (1, 3, 14, 20)],
          why="im2col for a fixed 2x2 kernel"),
        # ---- convolutions
        M("conv1d", "self.conv(x)", x=CT, runs=CT_RUNS, init={"conv": "nn.Conv1d(4, 6, 3, padding=1)"},
          why="Conv"),
        M("conv2d", "self.conv(x)", init={"conv": "nn.Conv2d(4, 6, 3, stride=2, padding=1)"}, why="Conv"),
        M("conv_transpose2d", "self.conv(x)",
          init={"conv": "nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)"},
          why="ConvTranspose"),
        M("conv_transpose2d_output_size_int", "self.conv(x, output_size=[int(x.size(2)) * 2, "
          "int(x.size(3)) * 2])", init={"conv": "nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)"},
          why="output_size is turned into output_padding 1, which is right for 2H, 2W at every size"),
    ]


TV_RUNS = [(1, 3, 224, 224), (2, 3, 224, 224), (1, 3, 193, 255), (3, 3, 160, 160), (1, 3, 288, 320)]

TV = [
    ("resnet18", False, None, None, "AdaptiveAvgPool2d((1, 1)) is GlobalAveragePool; Flatten"),
    ("alexnet", True, ["/avgpool/AveragePool"], {"x": [0]},
     "AdaptiveAvgPool2d((6, 6)) on the 6x6 map of 224x224 is AveragePool kernel 1: at other sizes the pool "
     "keeps the map size and the first Gemm gets the wrong K"),
    ("vgg11", True, ["/avgpool/AveragePool"], {"x": [0]},
     "AdaptiveAvgPool2d((7, 7)) on the 7x7 map of 224x224 is AveragePool kernel 1: at other sizes the pool "
     "keeps the map size and the first Gemm gets the wrong K"),
    ("squeezenet1_0", False, None, None, "AdaptiveAvgPool2d((1, 1)): GlobalAveragePool"),
    ("shufflenet_v2_x0_5", False, None, None, "channel shuffle with traced sizes; mean([2, 3])"),
    ("mobilenet_v2", False, None, None, "adaptive_avg_pool2d(x, (1, 1)): GlobalAveragePool"),
    ("mobilenet_v3_small", False, None, None, "SE blocks and head pool to 1: GlobalAveragePool"),
    ("efficientnet_b0", False, None, None, "SE blocks and head pool to 1: GlobalAveragePool"),
    ("densenet121", False, None, None, "adaptive_avg_pool2d(out, (1, 1)): GlobalAveragePool"),
    ("regnet_x_400mf", False, None, None, "AdaptiveAvgPool2d((1, 1)): GlobalAveragePool"),
    ("convnext_tiny", False, None, None, "AdaptiveAvgPool2d(1); LayerNorm2d by permutes"),
    ("vit_b_16", False, None, None, "fixed 197-token pos_embedding: eager itself refuses H/W != 224; "
     "the batch axis is traced"),
    ("swin_t", True, [], None,
     "no node holds the size: torchvision decides `if window_size >= pad_H: shift_size = 0` in Python, so the "
     "last stage's shifted block (features.7.1, 7x7 at 224) was exported without its roll and attention mask; "
     "wrong values wherever the last stage pads to more than one window (193x255, 288x320), right at 160x160"),
]


def tv_models(names=None):
    import torchvision
    out = []
    for name, breaks, responsible, fallback, why in TV:
        if names and name not in names:
            continue
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        runs = [r for r in TV_RUNS]
        if name == "vit_b_16":
            runs = [(1, 3, 224, 224), (2, 3, 224, 224), (3, 3, 224, 224), (4, 3, 224, 224),
                    (1, 3, 192, 192), (1, 3, 256, 256)]
        e = M(name, "torchvision.models.%s(weights=None).eval()  # after torch.manual_seed(0)" % name,
              x=(1, 3, 224, 224), runs=runs[1:], breaks=breaks, responsible=responsible or (), why=why)
        e.update(module=model, big=True, dynamic={"x": [0, 2, 3]}, fallback=fallback)
        out.append(e)
    return out


# ---------------------------------------------------------------- export

def export(module, args, input_names, dynamic, fallback, out_names):
    """export_examples.export at this script's opset."""
    return ex.export(module, args, input_names, dynamic, fallback, out_names, opset=OPSET)


def make_inputs(e, shapes, seed):
    rng = np.random.default_rng(seed)
    arrs = {}
    for n in e["inputs"]:
        if n in e["ints"]:
            arrs[n] = rng.integers(0, e["ints"][n], size=shapes[n]).astype(np.int64)
        else:
            arrs[n] = rng.uniform(-1, 1, size=shapes[n]).astype(np.float32)
    return arrs


def flat_outputs(out):
    if isinstance(out, torch.Tensor):
        return [out]
    res = []
    for o in out:
        res.extend(flat_outputs(o))
    return res


def build(e):
    if "module" not in e:
        torch.manual_seed(0)
        e["module"] = Expr(e["src"], e["inputs"], e["init"])
    e["module"].eval()
    args = tuple(torch.from_numpy(a) for a in make_inputs(e, e["shapes"], 12345).values())
    with torch.no_grad():
        n_out = len(flat_outputs(e["module"](*args)))
    e["out_names"] = ["y"] if n_out == 1 else ["y%d" % i for i in range(n_out)]
    return args


def input_axes(model):
    res = {}
    for vi in model.graph.input:
        if vi.name in {t.name for t in model.graph.initializer}:
            continue
        res[vi.name] = {str(i): (d.dim_param if d.HasField("dim_param") else d.dim_value)
                        for i, d in enumerate(vi.type.tensor_type.shape.dim)}
    return res


def constant_values(g, external_dims=False):
    """Values of the Constant nodes and inline initializers of graph g, by name.  With
    external_dims, initializers stored externally (graph-only copies) are included as zero
    arrays of their dims, which is all there is of them."""
    consts = {}
    for n in g.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = onnx.numpy_helper.to_array(a.t)
    for t in g.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            consts[t.name] = onnx.numpy_helper.to_array(t)
        elif external_dims:
            consts[t.name] = np.broadcast_to(np.float32(0), tuple(t.dims))
    return consts


def suspects(model, e):
    """Hint for the hand-made 'responsible' list: nodes that take a constant
    (Constant node or inline initializer) holding an export size of a dynamic
    axis (> 1) as a value or as a dimension, and pooling nodes."""
    sizes = {d for n in e["inputs"] for ax, d in enumerate(e["shapes"][n])
             if ax in e["dynamic"].get(n, []) and d > 1}
    g = model.graph
    consts = constant_values(g, external_dims=True)
    out = []
    for n in g.node:
        why = []
        if n.op_type in ("AveragePool", "MaxPool", "LpPool"):
            why.append("pool " + " ".join("%s=%s" % (a.name, onnx.helper.get_attribute_value(a))
                                          for a in n.attribute))
        for i in n.input:
            if i not in consts or n.op_type == "Constant":
                continue
            v = consts[i]
            if v.dtype.kind in "iu" and v.size <= 16 and sizes & set(int(t) for t in v.ravel()):
                why.append("%s=%s" % (i, v.tolist()))
            elif v.ndim >= 1 and sizes & set(v.shape) and n.op_type not in ("Conv", "ConvTranspose", "Gemm",
                                                                              "MatMul", "LSTM", "GRU"):
                why.append("%s dims %s" % (i, list(v.shape)))
        if why:
            out.append("%s (%s): %s" % (n.name, n.op_type, "; ".join(why)))
    return out


def named_graph(model):
    """onnx.helper.printable_graph with each node's name, and the values of
    small constants (Constant nodes, inline initializers) it reads."""
    g = model.graph
    consts = constant_values(g)
    lines = [onnx.helper.printable_graph(g), "nodes by name:"]
    for n in g.node:
        if n.op_type == "Constant":
            continue
        vals = ["%s=%s" % (i, consts[i].tolist() if consts[i].size <= 16 else "<%s %s>" % (
            consts[i].dtype, list(consts[i].shape))) for i in n.input if i in consts]
        lines.append("  %-28s %s%s" % (n.name, onnx.helper.printable_node(n),
                                       ("   # " + ", ".join(vals)) if vals else ""))
    return "\n".join(lines)


def do_export(e, a, scratch):
    args = build(e)
    try:
        model, notes = export(e["module"], args, e["inputs"], e["dynamic"], e.get("fallback"), e["out_names"])
    except Exception as err:  # the fallback export failed too
        model, notes = None, ["torch.onnx.export failed: %s: %s" % (type(err).__name__, ex.first_line(err))]
    e["notes"] = notes
    e["file"] = e["name"] + ".onnx"
    e["path"] = None
    if model is None:
        return None
    ex.strip_doc_strings(model)
    onnx.checker.check_model(model)
    path = os.path.join(a.out, e["file"])
    size = len(model.SerializeToString())
    if e.get("big") or size > INLINE_LIMIT:
        full = os.path.join(scratch, e["file"])
        onnx.save(model, full)
        e["run_path"] = full
        e["external"] = e["name"] + ".weights.bin"
        model = ex.graph_only(model, e["external"])
    else:
        e["run_path"] = path
    data = model.SerializeToString()
    if len(data) > MAX_FILE:
        sys.exit("%s would be %d bytes (> %d)" % (e["file"], len(data), MAX_FILE))
    with open(path, "wb") as f:
        f.write(data)
    e["path"] = path
    return model


# ---------------------------------------------------------------- check

ORT_NODE = [re.compile(r"Name:'([^']*)'"), re.compile(r"[Nn]ode \(([^)]*)\)"), re.compile(r"[Nn]ode '([^']*)'")]
NP_TYPES = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.INT64: np.int64,
            onnx.TensorProto.BOOL: np.bool_, onnx.TensorProto.INT32: np.int32,
            onnx.TensorProto.DOUBLE: np.float64}


def ort_node(msg):
    for r in ORT_NODE:
        m = r.search(msg)
        if m:
            return m.group(1)
    return None


def run_check(e, model, node_env, work):
    in_dir, out_dir = os.path.join(work, "in"), os.path.join(work, "out")
    for d in (in_dir, out_dir):
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    ref = e.get("reference") or e["module"]
    ref.eval()
    runs = [dict(e["shapes"])] + e["runs"]
    argv = ["node", "--require", os.path.join(HERE, "ort_single_thread.cjs"), os.path.join(HERE, "run_ort.mjs"),
            "--in-dir", in_dir, "--out-dir", out_dir, e["run_path"]]
    eager = []
    for k, shapes in enumerate(runs):
        arrs = make_inputs(e, shapes, 1000 + k)
        for n, arr in arrs.items():
            arr.tofile(os.path.join(in_dir, "%s.%d.bin" % (n, k)))
            argv.append("%s=%s" % (n, ",".join(str(d) for d in arr.shape)))
        argv.append("+")
        try:
            with torch.no_grad():
                eager.append([t.numpy() for t in flat_outputs(ref(*[torch.from_numpy(x) for x in arrs.values()]))])
        except Exception as err:
            eager.append("%s: %s" % (type(err).__name__, ex.shorten(ex.first_line(err), 300)))
    p = subprocess.run(argv[:-1], env=node_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    results = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if len(results) == 1 and results[0].get("inputs") is None:
        results = results * len(runs)
    out_types = {o.name: NP_TYPES.get(o.type.tensor_type.elem_type, np.float32) for o in model.graph.output}
    graph_nodes = {n.name for n in model.graph.node}
    rows = []
    for k, shapes in enumerate(runs):
        row = {"inputs": {n: list(shapes[n]) for n in e["inputs"]}}
        want = eager[k]
        if isinstance(want, str):
            row["eager_error"] = want
        else:
            row["eager"] = {n: list(w.shape) for n, w in zip(e["out_names"], want)}
        r = results[k] if k < len(results) else {
            "ok": False, "error": "no result (node exit %d): %s" % (p.returncode, ex.shorten(p.stderr, 300))}
        if not r["ok"]:
            msg = " ".join(r["error"].split())
            row["ort_error"] = ex.shorten(ex.short_ort_error(msg), 400)
            node = ort_node(msg)
            if node is not None:
                row["ort_node"] = node
                base = node[len("fused "):] if node.startswith("fused ") else node
                if base != node and base in graph_nodes:
                    row["ort_node_in_graph"] = base
        else:
            row["ort"] = {n: r["outputs"][n] for n in e["out_names"]}
        if isinstance(want, str):
            row["verdict"] = "eager fails (not counted)"
        elif not r["ok"]:
            row["verdict"] = "ORT fails"
        elif any(tuple(r["outputs"][n]) != w.shape for n, w in zip(e["out_names"], want)):
            row["verdict"] = "wrong shape"
        else:
            match, diff = True, 0.0
            for n, w in zip(e["out_names"], want):
                got = np.fromfile(os.path.join(out_dir, "%s.%d.bin" % (n, k)),
                                  dtype=out_types[n]).reshape(w.shape)
                if w.dtype.kind == "f":
                    if w.size:
                        fin = np.isfinite(w) & np.isfinite(got)
                        if fin.any():
                            diff = max(diff, float(np.max(np.abs(got[fin].astype(np.float64) - w[fin]))))
                        scale = float(np.max(np.abs(w[np.isfinite(w)]))) if np.isfinite(w).any() else 0.0
                        match = match and bool(np.allclose(got, w, rtol=1e-3, atol=1e-4 + 1e-3 * scale,
                                                           equal_nan=True))
                else:
                    ok = np.array_equal(got.astype(w.dtype), w)
                    match = match and ok
                    if not ok:
                        diff = max(diff, float(np.max(np.abs(got.astype(np.float64) - w))))
            row["values_match"] = match
            if not match:
                row["max_abs_diff"] = float("%.4g" % diff)
            row["verdict"] = "ok" if match else "wrong values"
        rows.append(row)
    warn = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in p.stderr.splitlines()]
    warn = [line for line in warn if "VerifyOutputSizes" in line]
    return rows, warn


def declared_outputs(model):
    return {o.name: ex.dims_of(o) for o in model.graph.output}


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "corpus", "exports"),
                    help="directory for the committed models and ground_truth.json")
    ap.add_argument("--scratch", help="directory for full-weight models and check temporaries "
                                      "(default: a temporary directory)")
    ap.add_argument("--ort-dir", help="directory holding node_modules/onnxruntime-node (else NODE_PATH / cwd)")
    ap.add_argument("--no-check", action="store_true", help="export only; do not run or write ground_truth.json")
    ap.add_argument("--no-tv", action="store_true", help="skip the torchvision models")
    ap.add_argument("--only", nargs="*", help="only these models (ground_truth.json is then not written)")
    ap.add_argument("--print-graphs", action="store_true", help="print each small model's graph")
    ap.add_argument("--suspects", action="store_true", help="print the nodes holding export sizes")
    ap.add_argument("--table", help="also write a Markdown table of the models to this file")
    a = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    a.out = os.path.normpath(a.out)
    os.makedirs(a.out, exist_ok=True)
    scratch = a.scratch or tempfile.mkdtemp(prefix="shapelint-corpus-")
    os.makedirs(scratch, exist_ok=True)
    node_env = dict(os.environ)
    if a.ort_dir:
        nm = os.path.join(os.path.abspath(a.ort_dir), "node_modules")
        node_env["NODE_PATH"] = os.pathsep.join(p for p in (nm, node_env.get("NODE_PATH")) if p)

    entries = [e for e in small_models() if not a.only or e["name"] in a.only]
    if not a.no_tv:
        try:
            entries += tv_models(a.only)
        except ImportError:
            print("torchvision not available: skipping its models", file=sys.stderr)
    print("torch %s, onnx %s, opset %d" % (torch.__version__, onnx.__version__, OPSET))

    labels, problems, not_exported = {}, [], {}
    for e in entries:
        print("\n=== %s: %s" % (e["name"], e["src"].replace("\n", " | ")), flush=True)
        model = do_export(e, a, scratch)
        for n in e["notes"]:
            print("note: " + n)
        if model is None:
            not_exported[e["name"]] = {"source": e["src"], "error": e["notes"][-1]}
            print("NOT EXPORTED")
            continue
        if a.print_graphs and not e.get("big"):
            print(named_graph(model))
        if a.suspects:
            for s in suspects(model, e):
                print("suspect: " + s)
        names = {n.name for n in model.graph.node}
        for r in e["responsible"]:
            if r not in names:
                problems.append("%s: responsible node %s is not in the graph" % (e["name"], r))
        if a.no_check:
            continue
        rows, warn = run_check(e, model, node_env, os.path.join(scratch, "check"))
        breaks = any(r["verdict"] in ("ORT fails", "wrong shape", "wrong values") for r in rows)
        for r in rows:
            desc = " ".join("%s%s" % (n, ex.fmt_shape(s)) for n, s in r["inputs"].items())
            detail = r.get("eager_error") or r.get("ort_error") or r.get("ort")
            print("  %-28s %-26s %s" % (desc, r["verdict"], ex.shorten(str(detail), 150)))
        print("  breaks: %s" % breaks, flush=True)
        if e["expect"] is not None and breaks != e["expect"]:
            problems.append("%s: expected breaks=%s, measured %s" % (e["name"], e["expect"], breaks))
        entry = {
            "source": e["src"],
            "init": e["init"] or None,
            "reference": "torch.kron(a, b)" if e.get("reference") is not None else None,
            "opset": OPSET,
            "export_inputs": {n: list(e["shapes"][n]) for n in e["inputs"]},
            "int_inputs": {n: [0, h] for n, h in e["ints"].items()} or None,
            "dynamic_axes": input_axes(model),
            "export_notes": [ex.shorten(n, 400) for n in e["notes"]] or None,
            "graph_only": {"external_data": e["external"]} if e.get("external") else None,
            "declared_outputs": declared_outputs(model),
            "runs": rows,
            "ort_warnings": [ex.shorten(re.sub(r"^.*VerifyOutputSizes\] ", "", w), 200) for w in warn] or None,
            "breaks": breaks,
        }
        if breaks:
            entry["breaks_at_export_size"] = rows[0]["verdict"] in ("ORT fails", "wrong shape", "wrong values")
            entry["responsible"] = e["responsible"]
        entry["why"] = e["why"]
        labels[e["file"]] = {k: v for k, v in entry.items() if v is not None}

    # The models and their labels; intermediate_shapes.json (intermediate_shapes.py) is a
    # record of its own, with a budget of its own.
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out)
                if f != "intermediate_shapes.json")
    print("\n%s: %d bytes" % (a.out, total))
    if total > MAX_DIR:
        problems.append("%s is %d bytes (> %d)" % (a.out, total, MAX_DIR))
    if not a.no_check and not a.only:
        n_break = sum(1 for v in labels.values() if v["breaks"])
        doc = {
            "about": "Ground truth for the models in this directory, written by tools/models/export_corpus.py "
                     "(never edited by hand). Each model ran on ONNX Runtime (onnxruntime-node, CPU, 1 thread) "
                     "and on eager PyTorch (1 thread) on the same inputs; the first run is the export size. "
                     "'breaks': ORT fails, or its output shape or values differ from eager, at some size where "
                     "eager runs. 'responsible': the graph nodes where the example size entered (by hand, from "
                     "the graph). Values agree when np.allclose(ort, eager, rtol=1e-3, "
                     "atol=1e-4 + 1e-3 * max|eager|).",
            "versions": {"torch": torch.__version__, "onnx": onnx.__version__, "opset": OPSET,
                         "onnxruntime-node": ort_version(node_env)},
            "counts": {"models": len(labels), "breaks": n_break, "healthy": len(labels) - n_break,
                       "not_exported": len(not_exported)},
            "not_exported": not_exported,
            "models": labels,
        }
        try:
            import torchvision
            doc["versions"]["torchvision"] = torchvision.__version__
        except ImportError:
            pass
        write_json(os.path.join(a.out, "ground_truth.json"), doc)
        if a.table:
            write_table(a.table, doc)
        print("wrote %s: %d models, %d break, %d healthy, %d not exported"
              % (os.path.join(a.out, "ground_truth.json"), len(labels), n_break, len(labels) - n_break,
                 len(not_exported)))
    for p in problems:
        print("PROBLEM: " + p)
    sys.exit(1 if problems else 0)


def write_table(path, doc):
    """Markdown table: model, source, export size, breaks, responsible, why."""
    def cell(t):
        return t.replace("|", "\\|").replace("\n", "; ")
    out = ["| model | source | export size | breaks? | responsible | why |",
           "| --- | --- | --- | --- | --- | --- |"]
    for f, m in doc["models"].items():
        lines = [line.strip() for line in m["source"].split("  #")[0].splitlines()]
        src = "".join(line + ("" if k == len(lines) - 1 else " " if line.endswith(":") else "; ")
                      for k, line in enumerate(lines))
        if m.get("init"):
            src = "; ".join("self.%s = %s" % kv for kv in m["init"].items()) + "; " + src
        size = " ".join("%s%s" % (n, ex.fmt_shape(s)) for n, s in m["export_inputs"].items())
        if m.get("export_notes"):
            size += " (H/W made symbolic by hand)" if f.split(".")[0] in [t[0] for t in TV] else \
                " (some axes made symbolic by hand)"
        verdict = "yes" if m["breaks"] else "no"
        if m["breaks"] and m.get("breaks_at_export_size"):
            verdict += " (also at the export size)"
        resp = ", ".join("`%s`" % r for r in m.get("responsible", [])) or ("none" if m["breaks"] else "")
        out.append("| `%s` | `%s` | %s | %s | %s | %s |" % (f, cell(ex.shorten(src, 160)), size, verdict, resp,
                                                       cell(m["why"])))
    for name, v in doc["not_exported"].items():
        out.append("| `%s.onnx` | `%s` | | not exported | | %s |" % (name, cell(v["source"]), cell(v["error"])))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def ort_version(node_env):
    p = subprocess.run(["node", "-e", "console.log(require('onnxruntime-node/package.json').version)"],
                       env=node_env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
    return p.stdout.strip() or None


if __name__ == "__main__":
    main()
