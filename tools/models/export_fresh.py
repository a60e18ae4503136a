#!/usr/bin/env python3
"""Export the "fresh modules" corpus (tests/corpus/fresh) and label it by running it.

A second corpus built the way tests/corpus/unseen is, after it: small PyTorch modules written for
this corpus alone, in idioms that no other corpus script uses (export_corpus.py, export_torch2.py,
export_classes.py, export_unseen.py), and never used to tune the linter: every module is held
out. Three families:

  branches and guards on sizes   Python `if` on a size, taken and not taken at the export size
                                 (min(h, w) < 16, T % 2, T == 1, a batch above 1), a kernel, a
                                 stride chosen by the size, `for` loops over range(x.size(1)) and
                                 range(int(C)), assert / torch._check on sizes; lookalikes whose
                                 branch gives the same result, branch on the rank, or loop over the
                                 model's own constants.
  size arithmetic baked into ops narrow by shares of the length, key heads repeated by expand for
                                 grouped-query attention, interpolate to int(h * 1.5) against
                                 scale_factor, arange with a step of 1 / int(T), scatter_add into
                                 bins, a one-hot scatter into zeros of int(C), math.ceil chunks;
                                 lookalikes with the sizes read from the tensor or the model's
                                 configured constant (eager PyTorch shares its limit).
  real-model plumbing            MobileViT unfold to patches, a ConvNeXt block's layer norm over
                                 channels by permute, DETR's sine position embedding from the
                                 mask's cumsum, Perceiver latent cross-attention, MLP-Mixer token
                                 mixing, Transformer-XL / Conformer relative shift, U-Net skip
                                 crop and concat, TF "same" padding computed with math.ceil, a
                                 pixel-unshuffle / pixel-shuffle head.

About half take a size as a Python int (int(), math, float arithmetic on sizes) or branch on one,
so that the export can bake it; the others are lookalikes.

Each module is an export_corpus.M entry and is exported by export_unseen.py's `exports` (both
torch.onnx exporters: NAME.dynamo.onnx with Dim.AUTO, Dim.DYNAMIC or named Dims turning by module,
NAME.ts.onnx with dynamic_axes on every axis), driven by export_classes.py's `export_family`, and
labelled by torch2_runs.py: ONNX Runtime (1 thread) against eager PyTorch at the export size and 3-5
other sizes, each linter error's counterexample (--linter, alone and told the export sizes) run
the same way. Each label adds "family", "module", "why" and "held_out": true.

Run with the interpreter of the torch 2.x venv (requirements-torch2.txt). Nothing is downloaded:
every module has random weights (torch.manual_seed(0)).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import export_classes as ecl  # noqa: E402  (the driver: export, label, store)
import export_corpus as ec  # noqa: E402  (M)
import export_unseen as eu  # noqa: E402  (the two exports of a module, address scrub, counts)

MAX_DIR = 8 * 1024 * 1024  # the directory's budget, labels included

BRANCHES = "branches and guards on sizes"
ARITHMETIC = "size arithmetic baked into ops"
PLUMBING = "real-model plumbing"
FAMILIES = (BRANCHES, ARITHMETIC, PLUMBING)

IMG = eu.IMG  # (2, 4, 8, 10)
IMG_RUNS = eu.IMG_RUNS  # C kept (weights)
IMG_RUNS_C = eu.IMG_RUNS_C  # C varies too
IMG_RUNS_EVEN = eu.IMG_RUNS_EVEN
SEQ = eu.SEQ  # (2, 5, 8)
SEQ_RUNS = eu.SEQ_RUNS  # D kept (weights)
SEQ_RUNS_D = [(1, 5, 8), (3, 7, 6), (2, 1, 8), (4, 12, 10)]  # no weights: D varies too

# ---------------------------------------------------------------- branches and guards on sizes

MIN_SIDE_PAD = """
if min(x.size(2), x.size(3)) < 16:
    x = F.pad(x, (2, 2, 2, 2), mode='reflect')
return self.conv(x)
"""

ODD_TRIM = """
if x.size(1) % 2:
    x = x[:, :-1]
return x.unflatten(1, (-1, 2)).mean(2)
"""

STRIDE_BY_SIZE = """
s = 2 if x.size(2) >= 8 else 1
return F.conv2d(x, self.w, stride=s, padding=1)
"""

KERNEL_BY_SIZE = """
k = 3 if x.size(-1) < 16 else 5
return F.max_pool1d(x, k, 1, k // 2)
"""

EMA_LOOP = """
h = torch.zeros_like(x[:, 0])
for t in range(x.size(1)):
    h = 0.5 * h + x[:, t]
return h
"""

PAIR_MEANS = """
outs = [x[:, i:i + 2].mean(1, keepdim=True) for i in range(0, int(x.size(1)), 2)]
return torch.cat(outs, 1)
"""

HEAD_LOOP = """
return torch.cat([self.heads[i](x[..., 4 * i:4 * i + 4]) for i in range(2)], -1)
"""

ASSERT_MULTIPLE = """
assert x.size(-1) % 4 == 0, 'the length must be a multiple of 4'
return x.unflatten(-1, (-1, 4)).amax(-1)
"""

CHECK_TABLE = """
torch._check(x.size(1) <= 16)
return x + self.pos[:x.size(1)]
"""

EARLY_EXIT = """
if x.size(1) == 1:
    return x[:, 0]
return (x[:, 1:] - x[:, :-1]).abs().mean(1)
"""

BATCH_CENTER = """
if x.size(0) > 1:
    x = x - x.mean(0, keepdim=True)
return self.proj(x)
"""

SAME_ARMS = """
if min(x.size(2), x.size(3)) < 32:
    g = F.adaptive_avg_pool2d(x, 1)
else:
    g = x.mean((2, 3), keepdim=True)
return x * torch.sigmoid(self.fc(g))
"""

RANK_BRANCH = """
if x.dim() == 3:
    x = x.unsqueeze(1)
return F.avg_pool2d(x, 2, ceil_mode=True)
"""

FIXED_PYRAMID = """
feats = [F.avg_pool2d(x, s, s).amax((2, 3)) for s in (1, 2, 4)]
return torch.cat(feats, 1)
"""


def branch_models():
    def P(name, src, x=IMG, runs=IMG_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=BRANCHES)
    ct, ct_runs = (2, 4, 10), [(1, 4, 10), (3, 4, 7), (2, 4, 20), (4, 4, 33)]
    return [
        P("min_side_pad_branch", MIN_SIDE_PAD, runs=IMG_RUNS + [(1, 4, 20, 18)],
          init={"conv": "nn.Conv2d(4, 4, 5)"},
          why="reflect-pad maps whose shorter side is below 16 before a valid 5 x 5 conv: taken at 8 x 10"),
        P("odd_trim_branch", ODD_TRIM, x=SEQ, runs=[(1, 5, 8), (3, 7, 6), (2, 6, 8), (4, 12, 10)],
          why="drop the last frame of odd lengths, then means of frame pairs: taken at T = 5"),
        P("stride_by_size", STRIDE_BY_SIZE, runs=IMG_RUNS + [(1, 4, 6, 6)],
          init={"w": "torch.randn(4, 4, 3, 3) * 0.1"},
          why="stride 2 for maps of 8 rows or more, else 1: 2 at the export size"),
        P("kernel_by_size", KERNEL_BY_SIZE, x=ct, runs=ct_runs,
          why="a max-filter of width 3 below 16 steps, 5 from 16 on: 3 at T = 10"),
        P("ema_for_range", EMA_LOOP, x=SEQ, runs=SEQ_RUNS_D,
          why="an exponential average over frames by `for t in range(x.size(1))`: 5 steps unrolled"),
        P("pair_means_for_int", PAIR_MEANS, runs=IMG_RUNS_C,
          why="means of channel pairs by a list over range(0, int(C), 2): 2 pairs at C = 4"),
        P("head_loop_const", HEAD_LOOP, x=SEQ, runs=SEQ_RUNS,
          init={"heads": "nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])"},
          why="a loop over the model's 2 heads, each on its 4 features: the model's constants"),
        P("assert_multiple_unflatten", ASSERT_MULTIPLE, x=(2, 4, 12),
          runs=[(1, 4, 12), (3, 6, 8), (2, 2, 20), (1, 3, 7)],
          why="assert the length is a multiple of 4, then unflatten(-1, (-1, 4)) (eager asserts too)"),
        P("check_table_slice", CHECK_TABLE, x=SEQ, runs=SEQ_RUNS + [(1, 20, 8)],
          init={"pos": "torch.randn(16, 8)"},
          why="torch._check(T <= 16), then a 16-row table sliced to the traced length (eager fails past 16)"),
        P("early_exit_single_frame", EARLY_EXIT, x=SEQ, runs=SEQ_RUNS_D,
          why="an early return for one-frame input, else mean frame-to-frame change: not taken at T = 5"),
        P("batch_center_branch", BATCH_CENTER, x=SEQ, runs=SEQ_RUNS, init={"proj": "nn.Linear(8, 8)"},
          why="centre over the batch when it holds more than one item: taken at batch 2"),
        P("same_arms_branch", SAME_ARMS, runs=IMG_RUNS + [(1, 4, 40, 36)], init={"fc": "nn.Conv2d(4, 4, 1)"},
          why="a branch on min(h, w) < 32 whose two arms compute the same global mean"),
        P("rank_branch", RANK_BRANCH, runs=IMG_RUNS_C,
          why="a branch on x.dim(), not on a size, before a ceil-mode 2 x 2 pool"),
        P("fixed_pyramid_loop", FIXED_PYRAMID, runs=IMG_RUNS_C,
          why="a loop over the model's pyramid windows (1, 2, 4), each pooled to a global max"),
    ]


# ---------------------------------------------------------------- size arithmetic baked into ops

NARROW_SHARE = """
T = x.shape[1]
return x.narrow(1, {START}, {LENGTH}).mean(1)
"""

GQA = """
rep = {REP}
k = k[:, :, None].expand(-1, -1, rep, -1, -1).flatten(1, 2)
return (q @ k.transpose(-1, -2)).softmax(-1)
"""

ARANGE_STEP_INT = """
t = torch.arange(0, 1, 1 / int(x.size(1)))
return x * t[None, :, None]
"""

ARANGE_DIV = """
t = torch.arange(x.size(1)) / x.size(1)
return x * t[None, :, None]
"""

BINS = """
b, T, d = x.shape
bins = (torch.arange({T}) // 2)[None, :, None].expand(b, -1, d)
return x.new_zeros(b, {N}, d).scatter_add(1, bins, x)
"""

ONEHOT = """
idx = x.argmax(1, keepdim=True)
return {ZEROS}.scatter(1, idx, 1.0)
"""

CEIL_CHUNKS = """
b, T, d = x.shape
n = math.ceil(T / 4)
y = F.pad(x, (0, 0, 0, n * 4 - T))
return y.view(b, n, 4, d).mean(2)
"""

GQA_X = {"q": (2, 4, 5, 8), "k": (2, 2, 5, 8)}
GQA_RUNS = [{"q": (1, 4, 5, 8), "k": (1, 2, 5, 8)}, {"q": (3, 6, 7, 4), "k": (3, 2, 7, 4)},
            {"q": (2, 4, 3, 8), "k": (2, 1, 3, 8)}, {"q": (1, 8, 9, 8), "k": (1, 4, 9, 8)}]


def arithmetic_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=ARITHMETIC)
    seq8, seq8_runs = (2, 8, 8), [(1, 8, 8), (3, 12, 6), (2, 5, 8), (4, 20, 10)]
    logits, logits_runs = (2, 6), [(1, 6), (3, 8), (2, 4), (5, 11)]
    return [
        P("narrow_share_int", NARROW_SHARE.format(START="int(T * 0.25)", LENGTH="int(T * 0.5)"), x=seq8,
          runs=seq8_runs, why="the middle half of the frames by narrow(1, int(T * 0.25), int(T * 0.5)): 2, 4"),
        P("narrow_share_traced", NARROW_SHARE.format(START="T // 4", LENGTH="T // 2"), x=seq8, runs=seq8_runs,
          why="the same narrow with T // 4, T // 2 of the traced length"),
        P("gqa_repeat_int", GQA.format(REP="int(q.size(1)) // int(k.size(1))"), x=GQA_X, runs=GQA_RUNS,
          why="grouped-query attention: key heads repeated by expand and flatten, int(Hq) // int(Hkv) = 2 times"),
        P("gqa_repeat_config", GQA.format(REP="2"), x=GQA_X, runs=GQA_RUNS,
          why="the key heads repeated by the model's configured 2 (eager fails where Hq != 2 Hkv too)"),
        P("interp_size_int", "F.interpolate(x, size=(int(x.shape[2] * 1.5), int(x.shape[3] * 1.5)), mode='nearest')",
          x=IMG, runs=IMG_RUNS_C, why="upsample to (int(h * 1.5), int(w * 1.5)) = 12 x 15"),
        P("interp_scale_factor", "F.interpolate(x, scale_factor=1.5, mode='nearest')", x=IMG, runs=IMG_RUNS_C,
          why="upsample by scale_factor=1.5"),
        P("arange_step_int", ARANGE_STEP_INT, why="a ramp arange(0, 1, 1 / int(T)): 5 steps of 0.2"),
        P("arange_div_traced", ARANGE_DIV, why="the same ramp as arange(T) / T of the traced length"),
        P("bins_scatter_add_int", BINS.format(N="int(T + 1) // 2", T="int(T)"), x=(2, 6, 8),
          runs=[(1, 6, 8), (3, 7, 6), (2, 1, 8), (4, 12, 10)],
          why="sums of frame pairs by scatter_add into new_zeros(b, int(T + 1) // 2, d), bins from arange(int(T))"),
        P("bins_scatter_add_traced", BINS.format(N="(T + 1) // 2", T="T"), x=(2, 6, 8),
          runs=[(1, 6, 8), (3, 7, 6), (2, 1, 8), (4, 12, 10)],
          why="the same bins from the traced length"),
        P("onehot_scatter_int", ONEHOT.format(ZEROS="torch.zeros(x.size(0), int(x.size(1)))"), x=logits,
          runs=logits_runs, why="a one-hot of the argmax scattered into zeros(b, int(C)): 6 classes"),
        P("onehot_scatter_like", ONEHOT.format(ZEROS="torch.zeros_like(x)"), x=logits, runs=logits_runs,
          why="the one-hot scattered into zeros_like(x)"),
        P("ceil_chunks_math", CEIL_CHUNKS,
          why="pad the frames to math.ceil(T / 4) chunks of 4, then view(b, n, 4, d): 2 chunks at T = 5"),
    ]


# ---------------------------------------------------------------- real-model plumbing

MOBILEVIT = """
b, c, h, w = x.shape
nh, nw = {NH}, {NW}
p = x.reshape(b * c * nh, 2, nw, 2).transpose(1, 2).reshape(b, c, nh * nw, 4).transpose(1, 3)
p = p * self.g
return p.transpose(1, 3).reshape(b * c * nh, nw, 2, 2).transpose(1, 2).reshape(b, c, h, w)
"""

CONVNEXT = """
y = self.dw(x).permute(0, 2, 3, 1)
y = self.pw2(F.gelu(self.pw1(self.ln(y))))
return x + y.permute(0, 3, 1, 2)
"""

DETR_SINE = """
b, c, h, w = x.shape
not_mask = {ONES}
ys = not_mask.cumsum(1)
xs = not_mask.cumsum(2)
ys = ys / (ys[:, -1:, :] + 1e-6) * 6.2832
xs = xs / (xs[:, :, -1:] + 1e-6) * 6.2832
return x + torch.stack([xs.sin(), xs.cos(), ys.sin(), ys.cos()], 1)
"""

PERCEIVER = """
lat = self.latents.expand(x.size(0), -1, -1)
q, k, v = self.q(lat), self.k(x), self.v(x)
a = (q @ k.transpose(1, 2) / math.sqrt(8)).softmax(-1)
return lat + a @ v
"""

MIXER_SLICE_INT = """
T = int(x.size(1))
y = F.linear(x.transpose(1, 2), self.w[:T, :T], self.b[:T]).transpose(1, 2)
return x + y
"""

REL_SHIFT = """
b, h, q, k = {SIZES}
zero = x.new_zeros(b, h, q, 1)
xp = torch.cat([zero, x], -1).view(b, h, k + 1, q)
return xp[:, :, 1:].reshape(b, h, q, k)[..., :k // 2 + 1]
"""

UNET_CROP = """
d = F.relu(self.down(F.max_pool2d(x, 2)))
up = self.up(d)
th, tw = {TH}, {TW}
dh, dw = (x.size(2) - th) // 2, (x.size(3) - tw) // 2
return torch.cat([x[:, :, dh:dh + th, dw:dw + tw], up], 1)
"""

SAME_PAD = """
ih, iw = x.shape[-2:]
ph = max((math.ceil(ih / 2) - 1) * 2 + 3 - ih, 0)
pw = max((math.ceil(iw / 2) - 1) * 2 + 3 - iw, 0)
x = F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])
return self.conv(x)
"""

UNSHUFFLE_HEAD = """
y = self.body(F.pixel_unshuffle(x, 2))
return F.pixel_shuffle(self.tail(F.relu(y)), 2) + x
"""


def plumbing_models():
    def P(name, src, x=IMG, runs=IMG_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=PLUMBING)
    convnext = {"dw": "nn.Conv2d(4, 4, 7, padding=3, groups=4)", "ln": "nn.LayerNorm(4)",
                "pw1": "nn.Linear(4, 16)", "pw2": "nn.Linear(16, 4)"}
    perceiver = {"latents": "nn.Parameter(torch.randn(1, 3, 8))", "q": "nn.Linear(8, 8)",
                 "k": "nn.Linear(8, 8)", "v": "nn.Linear(8, 8)"}
    rel, rel_runs = (2, 2, 5, 9), [(1, 2, 5, 9), (3, 1, 7, 13), (2, 2, 3, 5), (1, 3, 10, 19)]
    unet = {"down": "nn.Conv2d(4, 4, 3)", "up": "nn.ConvTranspose2d(4, 4, 2, 2)"}
    unet_x, unet_runs = (2, 4, 12, 14), [(1, 4, 12, 14), (3, 4, 16, 12), (2, 4, 20, 20), (1, 4, 13, 15)]
    return [
        P("mobilevit_patches_int", MOBILEVIT.format(NH="int(h) // 2", NW="int(w) // 2"), runs=IMG_RUNS_EVEN,
          init={"g": "torch.randn(4, 1, 1)"},
          why="MobileViT unfold to 2 x 2 patches and back by reshape with int(h) // 2, int(w) // 2: 4, 5"),
        P("mobilevit_patches_traced", MOBILEVIT.format(NH="h // 2", NW="w // 2"), runs=IMG_RUNS_EVEN,
          init={"g": "torch.randn(4, 1, 1)"},
          why="the same patches with the traced sizes (eager needs even H, W too)"),
        P("convnext_ln_permute", CONVNEXT, init=convnext,
          why="a ConvNeXt block: depthwise 7 x 7, LayerNorm over channels by permute, MLP, residual"),
        P("detr_sine_ones_int", DETR_SINE.format(ONES="torch.ones(int(b), int(h), int(w))"),
          why="DETR-style sine position from the cumsum of a mask torch.ones(int(b), int(h), int(w))"),
        P("detr_sine_new_ones", DETR_SINE.format(ONES="x.new_ones(b, h, w)"),
          why="the same position from x.new_ones(b, h, w) of the traced sizes"),
        P("perceiver_latents", PERCEIVER, x=SEQ, runs=SEQ_RUNS, init=perceiver,
          why="Perceiver cross-attention: 3 learned latents expanded to the batch attend over the input"),
        P("mixer_token_slice_int", MIXER_SLICE_INT, x=SEQ, runs=SEQ_RUNS + [(1, 20, 8)],
          init={"w": "torch.randn(16, 16) * 0.2", "b": "torch.zeros(16)"},
          why="MLP-Mixer token mixing with a 16-token weight sliced to int(T) = 5"),
        P("mixer_token_linear", "x + self.tok(x.transpose(1, 2)).transpose(1, 2)", x=(2, 16, 8),
          runs=[(1, 16, 8), (3, 16, 8), (2, 12, 8), (4, 16, 8)], init={"tok": "nn.Linear(16, 16)"},
          why="MLP-Mixer token mixing by a Linear over the 16 tokens (eager needs 16 tokens too)"),
        P("rel_shift_int", REL_SHIFT.format(SIZES="(int(s) for s in x.shape)"), x=rel, runs=rel_runs,
          why="Transformer-XL / Conformer relative shift viewed with int() sizes"),
        P("rel_shift_traced", REL_SHIFT.format(SIZES="x.shape"), x=rel, runs=rel_runs,
          why="the same shift with the traced sizes"),
        P("unet_crop_int", UNET_CROP.format(TH="int(up.size(2))", TW="int(up.size(3))"), x=unet_x,
          runs=unet_runs, init=unet,
          why="U-Net skip cropped to the decoder's int() size, 8 x 10, and concatenated"),
        P("unet_crop_traced", UNET_CROP.format(TH="up.size(2)", TW="up.size(3)"), x=unet_x, runs=unet_runs,
          init=unet, why="the skip cropped to the decoder's traced size"),
        P("same_pad_math", SAME_PAD, runs=IMG_RUNS + [(2, 4, 11, 12)],
          init={"conv": "nn.Conv2d(4, 4, 3, stride=2)"},
          why="TF 'same' padding for a stride-2 conv from math.ceil of the sizes: (0, 1, 0, 1) at 8 x 10"),
        P("pixel_unshuffle_head", UNSHUFFLE_HEAD,
          runs=[(1, 4, 8, 10), (3, 4, 12, 6), (2, 4, 16, 12), (1, 4, 14, 22), (3, 4, 9, 7)],
          init={"body": "nn.Conv2d(16, 16, 3, padding=1)", "tail": "nn.Conv2d(16, 16, 1)"},
          why="pixel_unshuffle(2), a conv, pixel_shuffle(2) and a residual (eager needs even H, W too)"),
    ]


def all_modules():
    return eu.numbered(branch_models() + arithmetic_models() + plumbing_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_fresh.py", "three", final_before_linting=False)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("fresh", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
