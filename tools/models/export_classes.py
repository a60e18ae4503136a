#!/usr/bin/env python3
"""Export the "recall classes" corpus (tests/corpus/classes) and label it by running it.

A held-out corpus of small PyTorch modules, grouped in four families, the classes of baked
sizes the linter's recall is measured on:

  adaptive pooling                  adaptive_avg_pool1d/2d/3d and adaptive_max_pool1d/2d, through
                                    F.* and through nn.Adaptive*Pool, output sizes 1, 2, (2, 3),
                                    (None, 3): the exporter lowers them to pools whose windows it
                                    computed from the example size (or, for output 1, to global
                                    pools: the lookalikes).
  self-consistent literal operands  a literal operand that agrees with the rest of the graph at
                                    the export size only: a UNet decoder's upsample to
                                    int(h) * 2 concatenated with (or added to) a skip tensor of
                                    the dynamic size, Slice ends and TopK k from int(size),
                                    Gather by a folded arange(int(T)), pads to a multiple,
                                    GridSample grids from linspace(-1, 1, int(h)), Col2Im's
                                    output size, EmbeddingBag offsets, an unrolled Python loop.
  position tables and windows       a learned position table with a Python branch that resamples
                                    it when the token count differs (the trace takes one branch),
                                    Swin-like window partitions padded to a multiple with int().
  floor division of sizes           Python's -(-n // k) ceiling of a size (chunks, windows, hops,
                                    a resize), and n // -k, which both exporters lower to ONNX's
                                    truncating integer Div: a floor where the module computes a
                                    ceiling. Written after the rule that reads it (SL015), so its
                                    held-out third tests the rule, not the method.

Every idiom comes with healthy lookalikes: the same op with the size computed from the tensor,
or a genuine model constant.

Each module (an export_corpus.M entry: source text, inputs, export and run sizes) is exported
through both torch.onnx exporters of torch 2.x, as export_torch2.py exports its small modules:
`dynamo=True` with every input axis requested dynamic (Dim.AUTO or Dim.DYNAMIC, alternating by
module; a refused DYNAMIC request falls back to AUTO, and the note says so) as NAME.dynamo.onnx,
and `dynamo=False` with dynamic_axes on every axis as NAME.ts.onnx. The labels are
torch2_runs.py's: ORT (1 thread) against eager PyTorch at the export size and 3-6 other sizes,
"breaks" when ORT fails or disagrees where eager runs, and each linter error's counterexample
(--linter, alone and told the export sizes) run the same way and its verdict stored. Each label
adds "family" and "module", and "held_out": sha256(module) % 3 == 0 (every export of a module on
one side), the third of the modules that is never looked at while tuning the rules.

Run with the interpreter of the torch 2.x venv (requirements-torch2.txt). Nothing is downloaded:
every module has random weights (torch.manual_seed(0)).
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import export_corpus as ec  # noqa: E402  (M, build, write_json, sizes)
import export_examples as ex  # noqa: E402  (doc strings, short texts)
import export_torch2 as et  # noqa: E402  (SourceExpr, Positional, the two exporters, store)
import torch2_runs as runs  # noqa: E402  (labels, confirm)

MAX_DIR = 3 * 1024 * 1024  # the directory's budget
M = ec.M
IMG, IMG_RUNS_C, IMG_RUNS = ec.IMG, ec.IMG_RUNS_C, ec.IMG_RUNS
SEQ, SEQ_RUNS_D, SEQ_RUNS = ec.SEQ, ec.SEQ_RUNS_D, ec.SEQ_RUNS
CT = ec.CT
CT_RUNS = [(1, 4, 10), (3, 2, 7), (2, 4, 3), (4, 3, 23)]      # C varies (no weights)
IMG9 = (2, 4, 8, 9)                                             # divisible by 2 and by 3 (2x3)
VOL = (2, 3, 4, 6, 8)
VOL_RUNS = [(1, 3, 4, 6, 8), (3, 2, 5, 7, 9), (2, 3, 8, 12, 16), (1, 1, 3, 3, 5)]

ADAPTIVE = "adaptive pooling"
LITERAL = "self-consistent literal operands"
POSITION = "position tables and windows"
FLOORDIV = "floor division of sizes"

# UNet decoder: a low-resolution map `low` upsampled to the skip connection's size.
UNET = {"low": (2, 4, 4, 5), "skip": (2, 3, 8, 10)}
UNET_RUNS = [{"low": (1, 4, 4, 5), "skip": (1, 3, 8, 10)}, {"low": (3, 2, 5, 3), "skip": (3, 1, 10, 6)},
             {"low": (1, 4, 8, 8), "skip": (1, 2, 16, 16)}, {"low": (2, 1, 1, 1), "skip": (2, 3, 2, 2)},
             {"low": (2, 4, 6, 9), "skip": (2, 3, 12, 18)}]
UNET_ADD = {"low": (2, 4, 4, 5), "skip": (2, 4, 8, 10)}
UNET_ADD_RUNS = [{"low": (1, 4, 4, 5), "skip": (1, 4, 8, 10)}, {"low": (3, 2, 5, 3), "skip": (3, 2, 10, 6)},
                 {"low": (1, 4, 8, 8), "skip": (1, 4, 16, 16)}, {"low": (2, 1, 1, 1), "skip": (2, 1, 2, 2)}]

GRID = """
h, w = {H}, {W}
gy, gx = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing='ij')
grid = torch.stack([gx, gy], -1)[None].expand(x.size(0), -1, -1, -1)
return F.grid_sample(x, grid, mode='bilinear', align_corners=True)
"""

LOOP = """
h = x[:, 0]
for t in range(1, {T}):
    h = torch.tanh(h + x[:, t])
return h
"""

BAG = """
B, T = {sizes}
offsets = torch.arange(0, B * T, T)
return self.bag(ids.reshape(-1), offsets)
"""

# A ViT-style learned table for a 4x4 token grid, resampled in Python when the count differs.
POS_BRANCH = """
n = int(x.size(1))
pos = self.pos
if n != 16:
    g = int(math.sqrt(n))
    grid = pos.reshape(1, 4, 4, 8).permute(0, 3, 1, 2)
    pos = F.interpolate(grid, size=(g, g), mode='bilinear', align_corners=False).permute(0, 2, 3, 1).reshape(1, n, 8)
return x + pos
"""

# The same table on an image-shaped token grid, resampled in Python when H, W differ.
POS_IMG_BRANCH = """
H, W = int(x.size(2)), int(x.size(3))
pos = self.pos
if (H, W) != (4, 4):
    pos = F.interpolate(pos, size=(H, W), mode='bicubic', align_corners=False)
return (x + pos).flatten(2).transpose(1, 2)
"""

# The lookalike: always resampled, to the size the graph reads from x.
POS_IMG_TRACED = """
pos = F.interpolate(self.pos, size=x.shape[-2:], mode='bicubic', align_corners=False)
return (x + pos).flatten(2).transpose(1, 2)
"""

# Swin's window partition: pad H, W to a multiple of the window (4), cut into 4x4 windows.
WINDOWS = """
B, C, H, W = {sizes}
ph = (4 - H % 4) % 4
pw = (4 - W % 4) % 4
x = F.pad(x, (0, pw, 0, ph))
Hp, Wp = {padded}
w = x.view(B, C, Hp // 4, 4, Wp // 4, 4).permute(0, 2, 4, 3, 5, 1)
return w.reshape(-1, 16, C)
"""

# Window partition and reverse around a per-window op, as a Swin block does.
WINDOW_ROUNDTRIP = """
B, C, H, W = {sizes}
w = x.view(B, C, H // 4, 4, W // 4, 4).permute(0, 2, 4, 3, 5, 1).reshape(-1, 16, C)
w = w.softmax(1)
return w.view(B, H // 4, W // 4, 4, 4, C).permute(0, 5, 1, 3, 2, 4).reshape(B, C, H, W)
"""
IMG_RUNS_4 = [(1, 4, 8, 12), (3, 2, 12, 8), (2, 4, 16, 16), (1, 3, 4, 20)]   # multiples of 4


def adaptive_models():
    A = ADAPTIVE

    def P(name, src, x=IMG, runs=IMG_RUNS_C, init=None, why=""):
        return dict(M(name, src, x=x, runs=runs, init=init, why=why), family=A)
    return [
        # ---- should fire: windows computed from the export size
        P("aap1d_f_2", "F.adaptive_avg_pool1d(x, 2)", x=CT, runs=CT_RUNS, why="window 5 from T=10"),
        P("aap1d_nn_3", "self.pool(x)", x=(2, 4, 12), runs=CT_RUNS, init={"pool": "nn.AdaptiveAvgPool1d(3)"},
          why="window 4 from T=12"),
        P("aap2d_f_2", "F.adaptive_avg_pool2d(x, 2)", why="windows 4x5 from 8x10"),
        P("aap2d_nn_2x3", "self.pool(x)", x=IMG9, init={"pool": "nn.AdaptiveAvgPool2d((2, 3))"},
          why="windows 4x3 from 8x9"),
        P("aap2d_f_none3", "F.adaptive_avg_pool2d(x, (None, 3))", x=IMG9, why="H kept, W window 3 from W=9"),
        P("aap2d_nn_none2", "self.pool(x)", init={"pool": "nn.AdaptiveAvgPool2d((None, 2))"},
          why="H kept, W window 5 from W=10"),
        P("aap3d_f_2", "F.adaptive_avg_pool3d(x, 2)", x=VOL, runs=VOL_RUNS, why="windows 2x3x4 from 4x6x8"),
        P("aap3d_nn_1x2x2", "self.pool(x)", x=VOL, runs=VOL_RUNS, init={"pool": "nn.AdaptiveAvgPool3d((1, 2, 2))"},
          why="windows 4x3x4 from 4x6x8"),
        P("amp1d_f_2", "F.adaptive_max_pool1d(x, 2)", x=CT, runs=CT_RUNS, why="window 5 from T=10"),
        P("amp1d_nn_5", "self.pool(x)", x=CT, runs=CT_RUNS, init={"pool": "nn.AdaptiveMaxPool1d(5)"},
          why="window 2 from T=10"),
        P("amp2d_f_2x3", "F.adaptive_max_pool2d(x, (2, 3))", x=IMG9, why="windows 4x3 from 8x9"),
        P("amp2d_nn_2", "self.pool(x)", init={"pool": "nn.AdaptiveMaxPool2d(2)"}, why="windows 4x5 from 8x10"),
        P("amp2d_nn_none3", "self.pool(x)", x=IMG9, init={"pool": "nn.AdaptiveMaxPool2d((None, 3))"},
          why="H kept, W window 3 from W=9"),
        P("aap2d_feat_head", "self.fc(F.adaptive_avg_pool2d(self.conv(x), 2).flatten(1))", runs=IMG_RUNS,
          init={"conv": "nn.Conv2d(4, 4, 3, padding=1)", "fc": "nn.Linear(16, 5)"},
          why="VGG-style head: pool to 2x2, flatten, Linear of 16 inputs"),
        # ---- lookalikes: global pooling, or no window at all
        P("aap1d_f_1", "F.adaptive_avg_pool1d(x, 1)", x=CT, runs=CT_RUNS, why="output 1: global pool"),
        P("aap2d_f_1", "F.adaptive_avg_pool2d(x, 1)", why="output 1: GlobalAveragePool"),
        P("aap2d_nn_1x1", "self.pool(x)", init={"pool": "nn.AdaptiveAvgPool2d((1, 1))"},
          why="output 1x1: GlobalAveragePool"),
        P("aap3d_nn_1", "self.pool(x)", x=VOL, runs=VOL_RUNS, init={"pool": "nn.AdaptiveAvgPool3d(1)"},
          why="output 1: GlobalAveragePool"),
        P("amp1d_f_1", "F.adaptive_max_pool1d(x, 1)", x=CT, runs=CT_RUNS, why="output 1: global max"),
        P("amp2d_nn_1", "self.pool(x)", init={"pool": "nn.AdaptiveMaxPool2d(1)"}, why="output 1: GlobalMaxPool"),
        P("aap2d_f_none1", "F.adaptive_avg_pool2d(x, (None, 1))", why="H kept, W to 1: a mean over W"),
        P("aap2d_f_nonenone", "F.adaptive_avg_pool2d(x, (None, None))", why="every size kept: identity"),
        P("aap2d_feat_head_1", "self.fc(F.adaptive_avg_pool2d(self.conv(x), 1).flatten(1))", runs=IMG_RUNS,
          init={"conv": "nn.Conv2d(4, 4, 3, padding=1)", "fc": "nn.Linear(4, 5)"},
          why="ResNet-style head: global pool, flatten, Linear of C inputs"),
    ]


def literal_models():
    L = LITERAL

    def P(name, src, x=IMG, runs=IMG_RUNS_C, init=None, ints=None, why=""):
        return dict(M(name, src, x=x, runs=runs, init=init, ints=ints, why=why), family=L)
    bag_ids = {"ids": (2, 5)}
    bag_runs = [{"ids": (1, 5)}, {"ids": (3, 7)}, {"ids": (2, 1)}, {"ids": (4, 12)}]
    return [
        # ---- UNet decoder: upsample to int(h) * 2, then meet the skip tensor
        P("unet_cat_int", "torch.cat([F.interpolate(low, size=(int(low.size(2)) * 2, int(low.size(3)) * 2), "
          "mode='nearest'), skip], 1)", x=UNET, runs=UNET_RUNS,
          why="Resize sizes 8x10 are literals; the Concat with skip holds only at the export size"),
        P("unet_add_int", "F.interpolate(low, size=(int(low.size(2)) * 2, int(low.size(3)) * 2), mode='bilinear', "
          "align_corners=False) + skip", x=UNET_ADD, runs=UNET_ADD_RUNS,
          why="Resize sizes 8x10 are literals; the Add with skip holds only at the export size"),
        P("unet_cat_like", "torch.cat([F.interpolate(low, size=skip.shape[-2:], mode='nearest'), skip], 1)",
          x=UNET, runs=UNET_RUNS, why="Resize to Shape(skip): the lookalike"),
        P("unet_cat_scale", "torch.cat([F.interpolate(low, scale_factor=2.0, mode='nearest'), skip], 1)",
          x=UNET, runs=UNET_RUNS, why="Resize by the constant scale 2"),
        P("unet_add_traced", "F.interpolate(low, size=(low.size(2) * 2, low.size(3) * 2), mode='bilinear', "
          "align_corners=False) + skip", x=UNET_ADD, runs=UNET_ADD_RUNS, why="Resize sizes from Shape(low)"),
        P("resize_const", "F.interpolate(x, size=(16, 16), mode='bilinear', align_corners=False)",
          why="a fixed output size: the model's constant"),
        P("resize_const_add", "F.interpolate(x, size=(6, 6), mode='bilinear', align_corners=False) + self.bias",
          runs=IMG_RUNS, init={"bias": "nn.Parameter(torch.randn(1, 4, 6, 6))"},
          why="a fixed 6x6 output meets a 6x6 parameter: constants of the model"),
        # ---- Slice ends and TopK k
        P("slice_end_int", "x[:, :, 1:int(x.size(2)) - 1]", why="Slice end 7 from H=8"),
        P("slice_end_traced", "x[:, :, 1:x.size(2) - 1]", why="Slice end from Shape"),
        P("topk_int", "torch.topk(x, int(x.size(-1)) - 2, dim=-1)[0]", x=SEQ, runs=SEQ_RUNS_D,
          why="k = int(D) - 2 = 6 is a literal"),
        P("topk_traced", "torch.topk(x, x.size(-1) - 2, dim=-1)[0]", x=SEQ, runs=SEQ_RUNS_D,
          why="k from Shape"),
        # ---- Gather by a folded index table
        P("gather_arange_int", "x.index_select(1, torch.arange(int(x.size(1))).flip(0))", x=SEQ, runs=SEQ_RUNS_D,
          why="reverses T by a folded table arange(5)[::-1]"),
        P("gather_arange_traced", "x.index_select(1, torch.arange(x.size(1)).flip(0))", x=SEQ, runs=SEQ_RUNS_D,
          why="index table from Range(Shape)"),
        P("gather_arange_stride_int", "x[:, torch.arange(0, int(x.size(1)), 2)]", x=SEQ, runs=SEQ_RUNS_D,
          why="every other token by the folded table [0, 2, 4]"),
        # ---- pad to a multiple
        P("pad_multiple8_int", "F.pad(x, (0, (8 - int(x.size(-1)) % 8) % 8, 0, (8 - int(x.size(-2)) % 8) % 8))",
          why="pads [0, 6, 0, 0] from 8x10 are literals"),
        P("pad_multiple8_traced", "F.pad(x, (0, (8 - x.size(-1) % 8) % 8, 0, (8 - x.size(-2) % 8) % 8))",
          why="pads computed from Shape"),
        # ---- GridSample over a grid from linspace
        P("grid_linspace_int", GRID.format(H="int(x.size(2))", W="int(x.size(3))"),
          why="linspace(-1, 1, 8) x linspace(-1, 1, 10) folded into an 8x10 grid"),
        P("grid_linspace_traced", GRID.format(H="x.size(2)", W="x.size(3)"),
          why="linspace with steps from Shape"),
        P("grid_const", GRID.format(H="6", W="6"), why="a fixed 6x6 sampling grid: the model's constant"),
        # ---- Col2Im
        P("fold_int", "F.fold(F.unfold(x, 2, stride=2), (int(x.size(2)), int(x.size(3))), 2, stride=2)",
          why="Col2Im output size 8x10 literal; the block count follows x"),
        P("fold_traced", "F.fold(F.unfold(x, 2, stride=2), x.shape[-2:], 2, stride=2)",
          why="Col2Im output size from Shape"),
        # ---- EmbeddingBag offsets
        P("embbag_offsets_int", BAG.format(sizes="int(ids.size(0)), int(ids.size(1))"), x=bag_ids, runs=bag_runs,
          init={"bag": "nn.EmbeddingBag(10, 8, mode='mean')"}, ints={"ids": 10},
          why="offsets arange(0, 10, 5) folded: bags of 5 ids"),
        P("embbag_offsets_traced", BAG.format(sizes="ids.shape"), x=bag_ids, runs=bag_runs,
          init={"bag": "nn.EmbeddingBag(10, 8, mode='mean')"}, ints={"ids": 10},
          why="offsets from Range(Shape)"),
        P("embbag_2d", "self.bag(ids)", x=bag_ids, runs=bag_runs,
          init={"bag": "nn.EmbeddingBag(10, 8, mode='mean')"}, ints={"ids": 10},
          why="2-d ids: one bag per row, no offsets"),
        # ---- a Python loop, unrolled
        P("loop_range_int", LOOP.format(T="int(x.size(1))"), x=SEQ, runs=SEQ_RUNS_D,
          why="the loop over T=5 is unrolled into 4 steps"),
        P("loop_range_const", LOOP.format(T="3"), x=SEQ, runs=SEQ_RUNS_D,
          why="a loop of 3 steps: the model's constant (eager fails below T=3)"),
    ]


def position_models():
    S = POSITION

    def P(name, src, x=IMG, runs=IMG_RUNS_C, init=None, why=""):
        return dict(M(name, src, x=x, runs=runs, init=init, why=why), family=S)
    tok16 = [(1, 16, 8), (3, 9, 8), (2, 25, 8), (1, 4, 8)]
    pos = {"pos": "nn.Parameter(torch.randn(1, 16, 8))"}
    pos_img = {"pos": "nn.Parameter(torch.randn(1, 8, 4, 4))"}
    img_tok = [(1, 8, 4, 4), (3, 8, 6, 6), (2, 8, 5, 7), (1, 8, 8, 8)]
    return [
        P("pos_branch_at16", POS_BRANCH, x=(2, 16, 8), runs=tok16, init=pos,
          why="exported at N=16: the branch is not taken, the table fixes N"),
        P("pos_branch_at9", POS_BRANCH, x=(2, 9, 8), runs=[(1, 9, 8), (3, 16, 8), (2, 25, 8), (1, 4, 8)], init=pos,
          why="exported at N=9: the resample to 3x3 is baked"),
        P("pos_img_branch_at4", POS_IMG_BRANCH, x=(2, 8, 4, 4), runs=img_tok, init=pos_img,
          why="exported at 4x4: no resample, the table fixes H, W"),
        P("pos_img_branch_at6", POS_IMG_BRANCH, x=(2, 8, 6, 6),
          runs=[(1, 8, 6, 6), (3, 8, 4, 4), (2, 8, 5, 7), (1, 8, 8, 8)], init=pos_img,
          why="exported at 6x6: Resize sizes 6x6 baked"),
        P("pos_img_traced", POS_IMG_TRACED, x=(2, 8, 6, 6),
          runs=[(1, 8, 6, 6), (3, 8, 4, 4), (2, 8, 5, 7), (1, 8, 8, 8)], init=pos_img,
          why="always resampled to Shape(x): the lookalike"),
        P("pos_table_fixed", "x + self.pos", x=(2, 16, 8), runs=tok16, init=pos,
          why="a fixed 16-token table: the model's constant (eager fails at other N)"),
        P("windows_int", WINDOWS.format(sizes="(int(d) for d in x.shape)", padded="H + ph, W + pw"),
          why="pad [0, 2, 0, 0] and view targets from 8x10 as literals"),
        P("windows_pad_int", WINDOWS.format(sizes="(int(d) for d in x.shape)", padded="x.shape[-2:]").replace(
            "B, C, H, W = (int(d) for d in x.shape)", "B, C = x.shape[:2]; H, W = int(x.size(2)), int(x.size(3))"),
          why="only the pad amounts are Python ints; the view reads the padded shape"),
        P("windows_traced", WINDOWS.format(sizes="x.shape", padded="x.shape[-2:]"),
          why="pads and view targets from Shape"),
        P("window_roundtrip_int", WINDOW_ROUNDTRIP.format(sizes="(int(d) for d in x.shape)"), x=(2, 4, 8, 8),
          runs=IMG_RUNS_4, why="partition and reverse with literal targets from 8x8"),
        P("window_roundtrip_traced", WINDOW_ROUNDTRIP.format(sizes="x.shape"), x=(2, 4, 8, 8), runs=IMG_RUNS_4,
          why="targets from Shape"),
        P("window_shift_const", "torch.roll(x, (-2, -2), (2, 3)).unfold(2, 4, 4).unfold(3, 4, 4).mean((-1, -2))",
          x=(2, 4, 8, 8), runs=IMG_RUNS_4, why="a constant shift of 2 and 4x4 windows: constants of the model"),
    ]


# Chunks of K frames, the frames padded up to whole chunks by a ceiling of T / K.
CHUNKS = """
n = {N}
y = F.pad(x, (0, 0, 0, n * {K} - x.size(1)))
return y.view(x.size(0), n, {K}, x.size(2)).mean(2)
"""

# Swin-style: pad H and W up to multiples of 4, then the mean of each 4 x 4 window.
WINDOW_PAD = """
H, W = x.shape[-2:]
ph = {PH}
pw = {PW}
y = F.pad(x, (0, pw, 0, ph))
Hp, Wp = y.shape[-2:]
return y.view(x.size(0), x.size(1), Hp // 4, 4, Wp // 4, 4).mean((3, 5))
"""


def floordiv_models():
    S = FLOORDIV

    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why=""):
        return dict(M(name, src, x=x, runs=runs, init=init, why=why), family=S)
    seq8_runs = [(1, 8, 8), (3, 7, 6), (2, 5, 8), (4, 12, 10)]
    return [
        P("fd_chunks3_neg", CHUNKS.format(N="-(-x.size(1) // 3)", K=3),
          why="frames padded to n = -(-T // 3) chunks of 3, exported at T = 5 (n = 2; the graph's Div gives 1)"),
        P("fd_chunks4_neg_at_multiple", CHUNKS.format(N="-(-x.size(1) // 4)", K=4), x=(2, 8, 8), runs=seq8_runs,
          why="the same with chunks of 4 exported at T = 8, a multiple: right there, a floor at 7 and 5"),
        P("fd_chunks2_neg_divisor", CHUNKS.format(N="-(x.size(1) // -2)", K=2),
          why="the ceiling written n = -(T // -2): a size over a negative divisor, truncated as well"),
        P("fd_window_pad_neg", WINDOW_PAD.format(PH="-(-H // 4) * 4 - H", PW="-(-W // 4) * 4 - W"),
          x=IMG, runs=IMG_RUNS_C, why="H, W padded up to multiples of 4 by -(-H // 4) * 4 - H: at W = 10 the graph crops 2"),
        P("fd_interp_ceil_half", "H, W = x.shape[-2:]\nreturn F.interpolate(x, size=(-(-H // 3), -(-W // 3)))",
          x=IMG, runs=IMG_RUNS_C, why="a resize to ceil(H / 3) x ceil(W / 3) written -(-H // 3): 3 x 4 at 8 x 10"),
        P("fd_hop_frames_neg", "n = -(-x.size(-1) // 4)\ny = F.pad(x, (0, n * 4 - x.size(-1)))\n"
          "return y.view(x.size(0), x.size(1), n, 4).amax(-1)", x=CT, runs=CT_RUNS,
          why="a signal padded to whole hops of 4 by -(-T // 4), max per hop: 3 hops at T = 10"),
        P("fd_chunks3_added", CHUNKS.format(N="(x.size(1) + 2) // 3", K=3),
          why="the lookalike: the ceiling as (T + 2) // 3, a dividend that is never negative"),
        P("fd_exact_neg_multiple", "n = -(-4 * x.size(1) // 4)\nreturn x.new_zeros(x.size(0), n, x.size(2)) + x",
          why="the lookalike: -(-4T // 4) is T exactly, a negative dividend that the divisor divides"),
        P("fd_window_pad_mod", WINDOW_PAD.format(PH="(4 - H % 4) % 4", PW="(4 - W % 4) % 4"), x=IMG, runs=IMG_RUNS_C,
          why="the lookalike: the pads by (4 - H % 4) % 4, as Swin writes them"),
        P("fd_interp_floor_half", "H, W = x.shape[-2:]\nreturn F.interpolate(x, size=(H // 2, W // 2))",
          x=IMG, runs=IMG_RUNS_C, why="the lookalike: a resize to H // 2 x W // 2, a floor of sizes that are never negative"),
    ]


def all_modules():
    mods = adaptive_models() + literal_models() + position_models() + floordiv_models()
    for k, e in enumerate(mods):
        e["index"] = k
    return mods


def held_out(name):
    """A deterministic third of the modules (every export of one module on one side)."""
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % 3 == 0


def exports(e):
    """(file name, exporter, model, notes) of the two exports of one module."""
    torch.manual_seed(0)
    e["module"] = et.SourceExpr(e["name"], e["src"], e["inputs"], e["init"])
    args = ec.build(e)
    module = et.Positional(e["module"], e["inputs"]).eval()
    style = ("auto", "dynamic")[e["index"] % 2]
    model, notes, used = et.dynamo_export(module, args, e, style)
    notes = notes + (["dynamic_shapes style: %s" % used] if used else [])
    yield e["name"] + ".dynamo.onnx", "dynamo", model, notes
    model, notes = et.torchscript_export(module, args, e)
    yield e["name"] + ".ts.onnx", "torchscript", model, notes


def counts(labels, not_exported):
    def count(items):
        items = list(items)
        b = sum(1 for v in items if v["breaks"])
        return {"models": len(items), "modules": len({v["module"] for v in items}), "breaks": b,
                "healthy": len(items) - b, "held_out": sum(1 for v in items if v["held_out"])}
    out = {"all": count(labels.values()), "not_exported": len(not_exported)}
    for fam in (ADAPTIVE, LITERAL, POSITION, FLOORDIV):
        out[fam] = count(v for v in labels.values() if v["family"] == fam)
    return out


ABOUT = ("Ground truth for the models in this directory, written by tools/models/export_classes.py "
         "(never edited by hand): small modules of four recall classes ('family'), each exported by "
         "torch.onnx.export with dynamo=True (every axis Dim.AUTO or Dim.DYNAMIC) and dynamo=False "
         "(dynamic_axes on every axis). Each model ran on ONNX Runtime (CPU, 1 thread) and on eager "
         "PyTorch on the same inputs; the first run is the export size. Verdicts and tolerance as in "
         "tests/corpus/torch2 (torch2_runs.py): 'breaks': ORT fails, or its output shape or values "
         "differ from eager, at some size where eager runs and the file declares the axes dynamic. "
         "'held_out': sha256(module) % 3 == 0. 'suspects': nodes reading a constant that holds an "
         "export size (found automatically). 'counterexamples': each linter error's counterexample, run "
         "the same way.")


def export_family(corpus, doc, mods, exports, held_out, about, counts, max_dir, scrub=None):
    """Export, label and store a corpus of modules: the driver this script and export_unseen.py
    share. `exports(e)` gives a module's (name, exporter, model, notes) exports; `held_out(name)`
    whether the module is held out; `counts(labels, not_exported)` the label file's counts;
    `scrub(model)`, if given, what else leaves the model before it is stored."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "corpus", corpus))
    ap.add_argument("--scratch", help="full models and temporaries (default: a temporary directory)")
    ap.add_argument("--linter", default=os.path.join(HERE, "..", "..", "build", "onnx-shapelint"),
                    help="onnx-shapelint whose errors' counterexamples are run (skipped if absent)")
    ap.add_argument("--only", nargs="*", help="only these modules (their labels are replaced)")
    ap.add_argument("--list", action="store_true", help="list the modules, family and held_out; export nothing")
    a = ap.parse_args()

    if a.list:
        for e in mods:
            print("%-28s %-34s %s" % (e["name"], e["family"], "held out" if held_out(e["name"]) else ""))
        return
    torch.set_num_threads(1)
    a.out = os.path.normpath(a.out)
    os.makedirs(a.out, exist_ok=True)
    scratch = a.scratch or tempfile.mkdtemp(prefix="shapelint-%s-" % corpus)
    os.makedirs(scratch, exist_ok=True)
    labels_path = os.path.join(a.out, "ground_truth.json")
    labels, not_exported = {}, {}
    if a.only and os.path.exists(labels_path):
        with open(labels_path) as f:
            previous = json.load(f)
        labels, not_exported = previous["models"], previous["not_exported"]

    for e in mods:
        if a.only and e["name"] not in a.only:
            continue
        print("\n=== %s (%s)" % (e["name"], e["family"]), flush=True)
        for name, exporter, model, notes in exports(e):
            started = time.time()
            for n in notes:
                print("  note: " + n)
            labels.pop(name, None)
            not_exported.pop(name, None)
            if model is None:
                not_exported[name] = {"family": e["family"], "module": e["name"], "held_out": held_out(e["name"]),
                                      "source": e["src"], "error": runs.portable_text(notes[-1])}
                print("  %s: NOT EXPORTED" % name)
                continue
            ex.strip_doc_strings(model)
            runs.scrub_paths(model)
            et.slim_metadata(model)
            if scrub is not None:
                scrub(model)
            run_path, external = et.store(model, name, a, scratch)
            label = runs.label(e, model, run_path, exporter, notes, external)
            label.pop("torch1_label", None)
            label = dict({"family": e["family"], "module": e["name"], "held_out": held_out(e["name"]),
                          "why": e["why"]}, **label)
            label["counterexamples"] = runs.confirm(os.path.abspath(a.linter), os.path.join(a.out, name), e,
                                                    run_path, label)
            labels[name] = label
            print("  %-34s breaks=%-5s %s (%.1f s)" % (name, label["breaks"], runs.summary(label),
                                                       time.time() - started), flush=True)

    doc = {"about": about, "versions": runs.versions(), "counts": counts(labels, not_exported),
           "not_exported": dict(sorted(not_exported.items())), "models": dict(sorted(labels.items()))}
    ec.write_json(labels_path, doc)
    print("\nwrote %s: %s" % (labels_path, json.dumps(doc["counts"])))
    # The models and their labels; intermediate_shapes.json (intermediate_shapes.py) counts too.
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out))
    print("%s: %d bytes" % (a.out, total))
    if total > max_dir:
        sys.exit("PROBLEM: %s is %d bytes (> %d)" % (a.out, total, max_dir))


def main():
    export_family("classes", __doc__, all_modules(), exports, held_out, ABOUT, counts, MAX_DIR)


if __name__ == "__main__":
    main()
