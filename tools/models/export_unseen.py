#!/usr/bin/env python3
"""Export the "unseen modules" corpus (tests/corpus/unseen) and label it by running it.

Small PyTorch modules written for this corpus alone, in the idioms of real model code, and never
used to tune the linter: every module is held out. Four families:

  detection and dense heads         anchor points and YOLO grids from the feature size, CenterNet
                                    top-k with k a share of the map, FPN top-down merges, logits
                                    resized back to the input, centre crops, an hourglass whose
                                    strides need multiples of 4, Python branches on the map size.
  audio and sequence front-ends     framing a waveform with unfold, an index table or a conv
                                    basis, block views, padding to a hop multiple, a conv
                                    subsampler's reshape, chunked means, the first half of frames.
  attention and transformer blocks  causal masks from triu(ones(T, T)), rotary caches sliced to
                                    the length or computed from it, einsum attention over split
                                    heads, T5-style relative position buckets, token pruning by
                                    top-k of a share, BOS/EOS padding into new zeros, a branch on
                                    the length.
  image feature plumbing            non-local blocks, squeeze-excite views, global context tiled
                                    with repeat, CoordConv channels, space-to-depth, pixel shuffle,
                                    cyclic shifts, crops to a multiple, flatten + Linear heads,
                                    token grids viewed back with literal sides, nn.Unflatten.

About half take a size as a Python int (int(x.size(i)), arithmetic on sizes) or branch on one, so
that the export can bake it; the others are lookalikes: the same code with the size read from the
tensor, a scale factor, or a genuine constant of the model (eager PyTorch shares its limit).

Each module is an export_corpus.M entry (source text, inputs, export and run sizes) and is exported
as export_classes.py exports its modules: `dynamo=True` with every input axis requested dynamic
(Dim.AUTO, Dim.DYNAMIC or named Dims, turning by module; a refused request falls back to
Dim.AUTO, and the note says so) as NAME.dynamo.onnx, and `dynamo=False` with dynamic_axes on every
axis as NAME.ts.onnx. Labels are torch2_runs.py's: ONNX Runtime (1 thread) against eager PyTorch at
the export size and 3-5 other sizes, each linter error's counterexample (--linter, alone and told
the export sizes) run the same way. Each label adds "family", "module", "why" and "held_out": true.

Run with the interpreter of the torch 2.x venv (requirements-torch2.txt). Nothing is downloaded:
every module has random weights (torch.manual_seed(0)).
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import export_classes as ecl  # noqa: E402  (the driver: export, label, store)
import export_corpus as ec  # noqa: E402  (M, build, write_json)
import export_examples as ex  # noqa: E402  (doc strings)
import export_torch2 as et  # noqa: E402  (SourceExpr, Positional, the two exporters, store)
import torch2_runs as runs  # noqa: E402  (labels, confirm)

MAX_DIR = 8 * 1024 * 1024  # the directory's budget, labels included
STYLES = ("auto", "dynamic", "named")

DETECTION = "detection and dense heads"
AUDIO = "audio and sequence front-ends"
ATTENTION = "attention and transformer blocks"
PLUMBING = "image feature plumbing"
FAMILIES = (DETECTION, AUDIO, ATTENTION, PLUMBING)

IMG = (2, 4, 8, 10)
IMG_RUNS = [(1, 4, 8, 10), (3, 4, 9, 7), (2, 4, 16, 12), (1, 4, 13, 21)]  # C kept (weights)
IMG_RUNS_C = [(1, 4, 8, 10), (3, 6, 9, 7), (2, 2, 16, 12), (1, 5, 13, 21)]  # C varies too
IMG_RUNS_EVEN = [(1, 4, 8, 10), (3, 6, 12, 6), (2, 2, 16, 12), (1, 5, 14, 22), (3, 4, 9, 7)]
SEQ = (2, 5, 8)
SEQ_RUNS = [(1, 5, 8), (3, 7, 8), (2, 1, 8), (4, 12, 8)]  # D kept (weights)
SPEC = (2, 20, 8)  # batch, frames, mel bins
SPEC_RUNS = [(1, 20, 8), (3, 33, 8), (2, 7, 8), (4, 50, 8)]
WAV = {"wav": (2, 64)}
WAV_RUNS = [{"wav": (1, 64)}, {"wav": (3, 80)}, {"wav": (2, 37)}, {"wav": (1, 200)}]
WAV60 = {"wav": (2, 60)}  # not a multiple of the hop: the pad is not 0
WAV60_RUNS = [{"wav": (1, 60)}, {"wav": (3, 80)}, {"wav": (2, 37)}, {"wav": (1, 200)}]
HANN = {"win": "torch.hann_window(16)"}

# ---------------------------------------------------------------- detection and dense heads

ANCHOR_POINTS = """
n, c, h, w = x.shape
sx = torch.arange(0, {W} * 8, 8, dtype=torch.float32) + 4
sy = torch.arange(0, {H} * 8, 8, dtype=torch.float32) + 4
cy, cx = torch.meshgrid(sy, sx, indexing='ij')
pts = torch.stack([cx, cy], -1).reshape(1, -1, 2)
reg = self.reg(x).permute(0, 2, 3, 1).reshape(n, -1, 4).relu()
return torch.cat([pts - reg[..., :2], pts + reg[..., 2:]], -1)
"""

YOLO_GRID = """
bs, _, ny, nx = x.shape
p = self.m(x).view(bs, 3, 5, ny, nx).permute(0, 1, 3, 4, 2)
yv, xv = torch.meshgrid(torch.arange({NY}), torch.arange({NX}), indexing='ij')
grid = torch.stack((xv, yv), 2).view(1, 1, {NY}, {NX}, 2).float()
xy = (p[..., :2].sigmoid() * 2 - 0.5 + grid) * 8
return torch.cat((xy, p[..., 2:].sigmoid()), -1).view(bs, -1, 5)
"""

CENTERNET = """
heat = self.hm(x).sigmoid()
hmax = F.max_pool2d(heat, 3, stride=1, padding=1)
heat = (heat * (hmax == heat)).flatten(1)
scores, inds = heat.topk({K})
return scores
"""

SEG_RESIZE = """
H, W = {HW}
y = self.head(F.relu(self.down(x)))
return F.interpolate(y, size=(H, W), mode='bilinear', align_corners=False)
"""

HOURGLASS = """
d1 = F.relu(self.d1(x))
d2 = F.relu(self.d2(d1))
u1 = self.u1(d2) + d1
return self.u2(u1) + x
"""

CENTER_CROP = """
top = ({H} - 6) // 2
left = ({W} - 6) // 2
return x.narrow(2, top, 6).narrow(3, left, 6)
"""

UPSCALE_SMALL = """
if x.size(2) < 12:
    x = F.interpolate(x, scale_factor=2.0, mode='nearest')
return self.conv(x)
"""

DOWNSCALE_LARGE = """
if x.size(2) > 32:
    x = F.interpolate(x, size=(32, 32), mode='bilinear', align_corners=False)
return self.conv(x)
"""

FPN = {"c4": (2, 4, 8, 10), "p5": (2, 4, 4, 5)}
FPN_RUNS = [{"c4": (1, 4, 8, 10), "p5": (1, 4, 4, 5)}, {"c4": (3, 4, 12, 6), "p5": (3, 4, 6, 3)},
            {"c4": (2, 4, 16, 16), "p5": (2, 4, 8, 8)}, {"c4": (1, 4, 9, 7), "p5": (1, 4, 5, 4)}]


def detection_models():
    def P(name, src, x=IMG, runs=IMG_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=DETECTION)
    reg = {"reg": "nn.Conv2d(4, 4, 1)"}
    yolo = {"m": "nn.Conv2d(4, 15, 1)"}
    hm = {"hm": "nn.Conv2d(4, 2, 1)"}
    seg = {"down": "nn.Conv2d(4, 4, 3, stride=2, padding=1)", "head": "nn.Conv2d(4, 3, 1)"}
    conv = {"conv": "nn.Conv2d(4, 4, 3, padding=1)"}
    lat = {"lat": "nn.Conv2d(4, 4, 1)"}
    hourglass = {"d1": "nn.Conv2d(4, 4, 3, 2, 1)", "d2": "nn.Conv2d(4, 4, 3, 2, 1)",
                 "u1": "nn.ConvTranspose2d(4, 4, 2, 2)", "u2": "nn.ConvTranspose2d(4, 4, 2, 2)"}
    return [
        P("anchor_points_int", ANCHOR_POINTS.format(H="int(h)", W="int(w)"), init=reg,
          why="FCOS-style points: arange(0, int(w) * 8, 8) folds to 10 x 8 points"),
        P("anchor_points_traced", ANCHOR_POINTS.format(H="h", W="w"), init=reg,
          why="the same points from the traced sizes"),
        P("yolo_grid_int", YOLO_GRID.format(NY="int(ny)", NX="int(nx)"), init=yolo,
          why="YOLO grid from arange(int(ny)) x arange(int(nx)), viewed to (1, 1, 8, 10, 2)"),
        P("yolo_grid_traced", YOLO_GRID.format(NY="ny", NX="nx"), init=yolo,
          why="the same grid from the traced sizes"),
        P("centernet_topk_share", CENTERNET.format(K="int(heat.size(1) * 0.25)"), init=hm,
          why="top-k with k a quarter of the heat map: 40 at 2 x 8 x 10"),
        P("centernet_topk_fixed", CENTERNET.format(K="20"), init=hm,
          why="a fixed top-20: the model's constant"),
        P("fpn_topdown_int", "F.interpolate(p5, size=(int(c4.shape[2]), int(c4.shape[3])), mode='nearest') "
          "+ self.lat(c4)", x=FPN, runs=FPN_RUNS, init=lat,
          why="FPN merge: the top level resized to c4's int sizes, 8 x 10, then added to c4"),
        P("fpn_topdown_size", "F.interpolate(p5, size=c4.shape[-2:], mode='nearest') + self.lat(c4)",
          x=FPN, runs=FPN_RUNS, init=lat, why="resized to c4's traced sizes"),
        P("fpn_topdown_scale", "F.interpolate(p5, scale_factor=2.0, mode='nearest') + self.lat(c4)",
          x=FPN, runs=FPN_RUNS, init=lat,
          why="resized by 2: eager fails too where c4 is not twice p5"),
        P("seg_logits_resize_int", SEG_RESIZE.format(HW="int(x.size(2)), int(x.size(3))"), init=seg,
          why="logits at stride 2 resized back to (int(H), int(W)) = 8 x 10"),
        P("seg_logits_resize_shape", SEG_RESIZE.format(HW="x.shape[2:]"), init=seg,
          why="resized back to the traced input size"),
        P("hourglass_multiple_of_4", HOURGLASS, x=(2, 4, 8, 12),
          runs=[(1, 4, 8, 8), (3, 4, 12, 16), (2, 4, 16, 20), (1, 4, 10, 14)], init=hourglass,
          why="two stride-2 convs and two 2x transposed convs with skips: H, W multiples of 4 (eager "
              "shares it)"),
        P("center_crop_int", CENTER_CROP.format(H="int(x.size(2))", W="int(x.size(3))"),
          why="a 6 x 6 centre crop whose offsets 1, 2 come from int() of H, W"),
        P("center_crop_traced", CENTER_CROP.format(H="x.size(2)", W="x.size(3)"),
          why="the offsets from the traced sizes"),
        P("upscale_small_branch", UPSCALE_SMALL, init=conv,
          why="a Python branch upsamples maps below 12 rows: taken at the export size"),
        P("downscale_large_branch", DOWNSCALE_LARGE, init=conv,
          runs=IMG_RUNS + [(1, 4, 40, 36)],
          why="a Python branch resizes maps above 32 rows to 32 x 32: not taken at the export size"),
    ]


# ---------------------------------------------------------------- audio and sequence front-ends

FRAMES_UNFOLD_INT = """
n = int(wav.size(1))
frames = (n - 16) // 4 + 1
f = wav.unfold(1, 16, 4)
return f.reshape(wav.size(0), frames, 16) * self.win
"""

FRAMES_INDEX = """
n_frames = (wav.size(1) - 16) // 4 + 1
idx = torch.arange(16)[None, :] + 4 * torch.arange(n_frames)[:, None]
return wav[:, idx] * self.win
"""

FRAMES_CONV = """
y = F.pad(wav.unsqueeze(1), (8, 8), mode='reflect')
return F.conv1d(y, self.basis, stride=4).transpose(1, 2) * self.win
"""

BLOCKS_VIEW_INT = """
T = int(wav.size(1)) // 16
return wav[:, :T * 16].view(wav.size(0), T, 16).pow(2).mean(-1)
"""

PAD_HOP = """
pad = {PAD}
y = F.pad(wav, (0, pad))
return y.view(y.size(0), -1, 16).abs().amax(-1)
"""

SUBSAMPLE = """
y = F.relu(self.conv(x.unsqueeze(1)))
b, c, t, f = y.shape
return self.out({FLAT})
"""

CHUNK_MEAN_INT = """
n = int(x.size(1)) // 4
return torch.stack(x[:, :n * 4].chunk(n, 1), 1).mean(2)
"""


def audio_models():
    def P(name, src, x=SPEC, runs=SPEC_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=AUDIO)
    sub = {"conv": "nn.Conv2d(1, 4, 3, stride=2)", "out": "nn.Linear(12, 6)"}
    basis = dict(HANN, basis="torch.eye(16).unsqueeze(1)")
    return [
        P("frames_unfold_int", FRAMES_UNFOLD_INT, x=WAV, runs=WAV_RUNS, init=HANN,
          why="unfold into 16-sample frames, hop 4, then reshape to the int() frame count 13"),
        P("frames_index_traced", FRAMES_INDEX, x=WAV, runs=WAV_RUNS, init=HANN,
          why="frames gathered by an index table from the traced length"),
        P("frames_conv_basis", FRAMES_CONV, x=WAV, runs=WAV_RUNS, init=basis,
          why="frames as a strided conv with an identity basis, reflect-padded"),
        P("blocks_view_int", BLOCKS_VIEW_INT, x=WAV, runs=WAV_RUNS,
          why="energy of 16-sample blocks: view(b, int(n) // 16, 16) bakes 4 blocks"),
        P("blocks_reshape_traced", "wav[:, :wav.size(1) // 16 * 16].reshape(wav.size(0), -1, 16).pow(2).mean(-1)",
          x=WAV, runs=WAV_RUNS, why="the same blocks with the traced length and -1"),
        P("pad_to_hop_int", PAD_HOP.format(PAD="-int(wav.size(-1)) % 16"), x=WAV60, runs=WAV60_RUNS,
          why="pad to a multiple of 16 by -int(n) % 16 = 4, then view(b, -1, 16)"),
        P("pad_to_hop_traced", PAD_HOP.format(PAD="(16 - wav.size(-1) % 16) % 16"), x=WAV60,
          runs=WAV60_RUNS, why="the pad from the traced length"),
        P("conv_subsample_int", SUBSAMPLE.format(FLAT="y.permute(0, 2, 1, 3).reshape(int(b), int(t), int(c * f))"),
          init=sub, why="a conformer-style subsampler flattened with reshape(int(b), int(t), ...)"),
        P("conv_subsample_flatten", SUBSAMPLE.format(FLAT="y.permute(0, 2, 1, 3).flatten(2)"), init=sub,
          why="the same flattened with flatten(2)"),
        P("chunk_mean_int", CHUNK_MEAN_INT,
          why="means over chunks of 4 frames: chunk(int(T) // 4) unrolls into 5 chunks"),
        P("chunk_mean_unflatten", "x[:, :x.size(1) // 4 * 4].unflatten(1, (-1, 4)).mean(2)",
          why="the same means with unflatten(1, (-1, 4))"),
        P("first_half_int", "x[:, :int(x.shape[1] * 0.5)].mean(1) - x.mean(1)",
          why="the first half of the frames: slice end int(T * 0.5) = 10"),
        P("first_half_traced", "x[:, :x.shape[1] // 2].mean(1) - x.mean(1)",
          why="the slice end from the traced length"),
    ]


# ---------------------------------------------------------------- attention and transformer blocks

CAUSAL_TRIU = """
T = {T}
mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
s = (x @ x.transpose(1, 2)).masked_fill(mask, float('-inf'))
return s.softmax(-1) @ x
"""

ROPE_CACHE = """
T = {T}
cos, sin = self.cos[:T], self.sin[:T]
x1, x2 = x[..., :4], x[..., 4:]
return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
"""

ROPE_FLY = """
t = torch.arange({T}, dtype=torch.float32)
freqs = torch.outer(t, self.inv_freq)
cos, sin = freqs.cos(), freqs.sin()
x1, x2 = x[..., :4], x[..., 4:]
return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
"""

EINSUM_HEADS = """
b, t, _ = x.shape
q, k, v = self.qkv(x).chunk(3, -1)
q, k, v = ({SPLIT} for z in (q, k, v))
a = torch.einsum('bqhd,bkhd->bhqk', q, k).mul(0.5).softmax(-1)
return torch.einsum('bhqk,bkhd->bqhd', a, v).flatten(2)
"""

T5_BIAS = """
T = {T}
ctx = torch.arange(T)[:, None]
mem = torch.arange(T)[None, :]
bucket = (mem - ctx).clamp(-4, 4) + 4
bias = self.rel(bucket).permute(2, 0, 1)
s = torch.einsum('bqd,bkd->bqk', x, x)[:, None] + bias
return s.softmax(-1).mean(1)
"""

TOKEN_PRUNE = """
score = self.score(x).squeeze(-1)
k = int(x.size(1) * 0.5)
idx = score.topk(k, dim=1).indices
return x.gather(1, idx.unsqueeze(-1).expand(-1, -1, x.size(2)))
"""

SENTINEL_PAD = """
out = {ZEROS}
out[:, 1:-1] = x
return out
"""

SEQ_BRANCH = """
if x.size(1) > 8:
    x = F.avg_pool1d(x.transpose(1, 2), 2).transpose(1, 2)
return self.proj(x)
"""

ROPE_INIT = {"cos": "torch.cos(torch.arange(32.)[:, None] * torch.tensor([1.0, 0.1, 0.01, 0.001]))",
             "sin": "torch.sin(torch.arange(32.)[:, None] * torch.tensor([1.0, 0.1, 0.01, 0.001]))"}
INV_FREQ = {"inv_freq": "1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))"}


def attention_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=ATTENTION)
    seq_runs_d = [(1, 5, 8), (3, 7, 6), (2, 1, 8), (4, 12, 10)]  # no weights: D varies too
    qkv = {"qkv": "nn.Linear(8, 24)"}
    return [
        P("causal_triu_traced", CAUSAL_TRIU.format(T="x.size(1)"), runs=seq_runs_d,
          why="causal mask triu(ones(T, T)) with T from x.size(1)"),
        P("causal_triu_int", CAUSAL_TRIU.format(T="int(x.size(1))"), runs=seq_runs_d,
          why="the same mask with T = int(x.size(1)): a 5 x 5 constant"),
        P("rope_cache_slice", ROPE_CACHE.format(T="x.size(1)"), init=ROPE_INIT,
          runs=SEQ_RUNS + [(1, 40, 8)],
          why="a 32-row rotary cache sliced to the traced length (eager fails past 32 too)"),
        P("rope_cache_slice_int", ROPE_CACHE.format(T="int(x.size(1))"), init=ROPE_INIT,
          why="the cache sliced to int(T) = 5"),
        P("rope_on_the_fly_int", ROPE_FLY.format(T="int(x.size(1))"), init=INV_FREQ,
          why="rotary angles from arange(int(T)): a 5 x 4 constant"),
        P("rope_on_the_fly", ROPE_FLY.format(T="x.size(1)"), init=INV_FREQ,
          why="rotary angles from arange(x.size(1))"),
        P("einsum_heads_int", EINSUM_HEADS.format(SPLIT="z.reshape(int(b), int(t), 2, 4)"), init=qkv,
          why="heads split with reshape(int(b), int(t), 2, 4), attention by einsum"),
        P("einsum_heads_unflatten", EINSUM_HEADS.format(SPLIT="z.unflatten(-1, (2, 4))"), init=qkv,
          why="heads split with unflatten(-1, (2, 4))"),
        P("t5_rel_bias_int", T5_BIAS.format(T="int(x.size(1))"), runs=seq_runs_d,
          init={"rel": "nn.Embedding(9, 2)"}, why="T5-style relative buckets from arange(int(T))"),
        P("t5_rel_bias", T5_BIAS.format(T="x.size(1)"), runs=seq_runs_d,
          init={"rel": "nn.Embedding(9, 2)"}, why="the buckets from arange(x.size(1))"),
        P("token_prune_share", TOKEN_PRUNE, init={"score": "nn.Linear(8, 1)"},
          why="keep the top half of the tokens: k = int(T * 0.5) = 2"),
        P("sentinel_pad_int", SENTINEL_PAD.format(ZEROS="torch.zeros(x.size(0), int(x.size(1)) + 2, x.size(2))"),
          runs=seq_runs_d, why="BOS/EOS slots: new zeros(b, int(T) + 2, d), x written into the middle"),
        P("sentinel_pad_new_zeros", SENTINEL_PAD.format(ZEROS="x.new_zeros(x.size(0), x.size(1) + 2, x.size(2))"),
          runs=seq_runs_d, why="the same with new_zeros of the traced sizes"),
        P("seq_branch_pool", SEQ_BRANCH, init={"proj": "nn.Linear(8, 8)"},
          why="a Python branch pools sequences longer than 8: not taken at the export size"),
    ]


# ---------------------------------------------------------------- image feature plumbing

NONLOCAL_INT = """
b, c, h, w = x.shape
t = x.permute(0, 2, 3, 1).reshape(b, int(h * w), c)
a = (t @ t.transpose(1, 2)).mul(0.5).softmax(-1)
return (a @ t).transpose(1, 2).reshape(b, c, h, w)
"""

NONLOCAL_VIEW = """
b, c, h, w = x.size()
t = x.view(b, c, h * w).transpose(1, 2)
a = (t @ t.transpose(1, 2)).mul(0.5).softmax(-1)
return (a @ t).transpose(1, 2).view(b, c, h, w)
"""

SE = """
b, c = {BC}
s = F.adaptive_avg_pool2d(x, 1).view(b, c)
s = torch.sigmoid(self.fc2(F.relu(self.fc1(s))))
return x * s.view(b, c, 1, 1)
"""

COORDCONV_INT = """
n, _, h, w = x.shape
xs = torch.linspace(-1, 1, int(w)).view(1, 1, 1, -1).expand(n, 1, h, -1)
ys = torch.linspace(-1, 1, int(h)).view(1, 1, -1, 1).expand(n, 1, -1, w)
return self.conv(torch.cat([x, xs, ys], 1))
"""

COORDCONV_ARANGE = """
n, _, h, w = x.shape
xs = (torch.arange(w, dtype=torch.float32) / (w - 1) * 2 - 1).view(1, 1, 1, -1).expand(n, 1, h, -1)
ys = (torch.arange(h, dtype=torch.float32) / (h - 1) * 2 - 1).view(1, 1, -1, 1).expand(n, 1, -1, w)
return self.conv(torch.cat([x, xs, ys], 1))
"""

SPACE_TO_DEPTH = """
b, c, h, w = {SIZES}
y = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4)
return y.reshape(b, c * 4, h // 2, w // 2)
"""

SUBPIXEL = """
y = F.pixel_shuffle(self.conv(x), 2)
return y + F.interpolate(x, scale_factor=2.0, mode='bilinear', align_corners=False)
"""

ODD_WIDTH_BRANCH = """
if x.size(-1) % 2 == 1:
    x = F.pad(x, (0, 1, 0, 0), mode='replicate')
return F.avg_pool2d(x, 2)
"""


def plumbing_models():
    def P(name, src, x=IMG, runs=IMG_RUNS_C, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=PLUMBING)
    se = {"fc1": "nn.Linear(4, 2)", "fc2": "nn.Linear(2, 4)"}
    coord = {"conv": "nn.Conv2d(6, 4, 1)"}
    tokens = (2, 80, 4)
    return [
        P("nonlocal_reshape_int", NONLOCAL_INT, why="a non-local block: reshape(b, int(h * w), c) bakes 80"),
        P("nonlocal_view", NONLOCAL_VIEW, why="the same block with view(b, c, h * w) of traced sizes"),
        P("se_view_int", SE.format(BC="int(x.size(0)), int(x.size(1))"), runs=IMG_RUNS, init=se,
          why="squeeze-excite: view(int(b), int(c)) bakes the batch 2"),
        P("se_view_size", SE.format(BC="x.size()[:2]"), runs=IMG_RUNS, init=se,
          why="squeeze-excite with b, c from x.size()"),
        P("global_context_repeat_int", "torch.cat([x, x.mean((2, 3), keepdim=True).repeat(1, 1, int(x.size(2)), "
          "int(x.size(3)))], 1)", why="a global mean tiled over the map with repeat(1, 1, int(h), int(w))"),
        P("global_context_expand", "torch.cat([x, x.mean((2, 3), keepdim=True).expand(-1, -1, x.size(2), "
          "x.size(3))], 1)", why="the same tiled with expand of the traced sizes"),
        P("coordconv_int", COORDCONV_INT, runs=IMG_RUNS, init=coord,
          why="CoordConv channels from linspace(-1, 1, int(w)) and linspace(-1, 1, int(h))"),
        P("coordconv_arange", COORDCONV_ARANGE, runs=IMG_RUNS, init=coord,
          why="the same channels from arange(w) / (w - 1) of the traced sizes"),
        P("space_to_depth_int", SPACE_TO_DEPTH.format(SIZES="(int(s) for s in x.shape)"), runs=IMG_RUNS_EVEN,
          why="space-to-depth by view with int() sizes (eager needs even H, W)"),
        P("space_to_depth_traced", SPACE_TO_DEPTH.format(SIZES="x.shape"), runs=IMG_RUNS_EVEN,
          why="the same view with traced sizes"),
        P("subpixel_upsampler", SUBPIXEL, runs=IMG_RUNS, init={"conv": "nn.Conv2d(4, 16, 3, padding=1)"},
          why="pixel_shuffle(2) of a conv plus a bilinear upsample by 2"),
        P("cyclic_shift_int", "torch.roll(x, shifts=(-(int(x.size(2)) // 4), -(int(x.size(3)) // 4)), dims=(2, 3))",
          why="a Swin-style cyclic shift by a quarter of int(H), int(W): 2, 2"),
        P("cyclic_shift_const", "torch.roll(x, shifts=(-2, -2), dims=(2, 3))",
          why="a cyclic shift by the model's constant shift size 2 (neither exporter takes a traced shift)"),
        P("crop_to_multiple_int", "x[:, :, :int(x.size(2)) // 4 * 4, :int(x.size(3)) // 4 * 4]",
          why="crop to a multiple of 4 with int() ends: 8, 8"),
        P("odd_width_pad_branch", ODD_WIDTH_BRANCH,
          why="a Python branch pads odd widths before a 2x2 pool: not taken at width 10"),
        P("flatten_fc_head", "self.fc(F.relu(self.conv(x)).flatten(1))", runs=IMG_RUNS,
          init={"conv": "nn.Conv2d(4, 2, 3, stride=2, padding=1)", "fc": "nn.Linear(40, 3)"},
          why="flatten(1) into a Linear of 40 inputs: eager needs a 4 x 5 map too"),
        P("tokens_to_grid_literal", "self.conv(x.transpose(1, 2).reshape(-1, 4, 8, 10))", x=tokens,
          runs=[(1, 80, 4), (3, 80, 4), (2, 60, 4), (1, 81, 4)], init={"conv": "nn.Conv2d(4, 4, 3, padding=1)"},
          why="tokens viewed back to a grid of the configured 8 x 10: eager needs 80 tokens too"),
        P("unflatten_literal_head", "self.up(self.unflat(self.fc(x)))", x=(2, 16),
          runs=[(1, 16), (3, 16), (5, 16), (2, 12)],
          init={"fc": "nn.Linear(16, 80)", "unflat": "nn.Unflatten(1, (4, 4, 5))",
                "up": "nn.ConvTranspose2d(4, 2, 2, 2)"},
          why="a decoder stem: nn.Unflatten(1, (4, 4, 5)) of a Linear's 80 features"),
    ]


def all_modules():
    mods = detection_models() + audio_models() + attention_models() + plumbing_models()
    for k, e in enumerate(mods):
        e["index"] = k
    return mods


def exports(e):
    """(file name, exporter, model, notes) of the two exports of one module."""
    torch.manual_seed(0)
    e["module"] = et.SourceExpr(e["name"], e["src"], e["inputs"], e["init"])
    args = ec.build(e)
    module = et.Positional(e["module"], e["inputs"]).eval()
    style = STYLES[e["index"] % len(STYLES)]
    model, notes, used = et.dynamo_export(module, args, e, style)
    notes = notes + (["dynamic_shapes style: %s" % used] if used else [])
    yield e["name"] + ".dynamo.onnx", "dynamo", model, notes
    model, notes = et.torchscript_export(module, args, e)
    yield e["name"] + ".ts.onnx", "torchscript", model, notes


ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def exports_scrubbed(e):
    """exports(e), with memory addresses dropped from the notes: a refused export's message can
    name a function by its address, which changes from run to run."""
    for name, exporter, model, notes in exports(e):
        yield name, exporter, model, [ADDRESS.sub(">", n) for n in notes]


def scrub_addresses(model):
    """Drops the memory addresses the exporter prints into node metadata ('<function sym_min at
    0x7f...>' in a class hierarchy), which change from run to run."""
    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        for n in g.node:
            for p in n.metadata_props:
                p.value = ADDRESS.sub(">", p.value)
            for attr in n.attribute:
                if attr.HasField("g"):
                    graphs.append(attr.g)
                graphs.extend(attr.graphs)


def counts_by(families):
    """The counts of a corpus's labels: over all its models, and per family of `families`."""
    def count(items):
        items = list(items)
        b = sum(1 for v in items if v["breaks"])
        return {"models": len(items), "modules": len({v["module"] for v in items}), "breaks": b,
                "healthy": len(items) - b}

    def counts(labels, not_exported):
        out = {"all": count(labels.values()), "not_exported": len(not_exported)}
        for fam in families:
            out[fam] = count(v for v in labels.values() if v["family"] == fam)
        return out
    return counts


def numbered(modules):
    """`modules`, each given its index in the corpus."""
    for k, e in enumerate(modules):
        e["index"] = k
    return modules


def held_out_about(script, families, final_before_linting):
    """The ground truth's `about` for a corpus of held-out modules that `script` writes; with
    `final_before_linting`, each module's code, why and labels were final before the linter first
    ran on it."""
    final = ("each module's code, why and labels final before the linter first ran on it, "
             if final_before_linting else "")
    return ("Ground truth for the models in this directory, written by tools/models/%s (never edited "
            "by hand): small modules written for this corpus alone, in idioms no other corpus uses, in %s "
            "families ('family'), %snever used to tune the linter ('held_out': true on every model), each "
            "exported by torch.onnx.export with dynamo=True (every axis Dim.AUTO, Dim.DYNAMIC or a named "
            "Dim) and dynamo=False (dynamic_axes on every axis). Each model ran on ONNX Runtime (CPU, 1 "
            "thread) and on eager PyTorch on the same inputs; the first run is the export size. Verdicts "
            "and tolerance as in tests/corpus/torch2 (torch2_runs.py): 'breaks': ORT fails, or its output "
            "shape or values differ from eager, at some size where eager runs and the file declares the "
            "axes dynamic. 'suspects': nodes reading a constant that holds an export size (found "
            "automatically). 'counterexamples': each linter error's counterexample, run the same way."
            % (script, families, final))


counts = counts_by(FAMILIES)


ABOUT = ("Ground truth for the models in this directory, written by tools/models/export_unseen.py "
         "(never edited by hand): small modules written for this corpus alone, in four families "
         "('family'), never used to tune the linter ('held_out': true on every model), each exported by "
         "torch.onnx.export with dynamo=True (every axis Dim.AUTO, Dim.DYNAMIC or a named Dim) and "
         "dynamo=False (dynamic_axes on every axis). Each model ran on ONNX Runtime (CPU, 1 thread) and on "
         "eager PyTorch on the same inputs; the first run is the export size. Verdicts and tolerance as "
         "in tests/corpus/torch2 (torch2_runs.py): 'breaks': ORT fails, or its output shape or values "
         "differ from eager, at some size where eager runs and the file declares the axes dynamic. "
         "'suspects': nodes reading a constant that holds an export size (found automatically). "
         "'counterexamples': each linter error's counterexample, run the same way.")


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("unseen", __doc__, all_modules(), exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=scrub_addresses)


if __name__ == "__main__":
    main()
