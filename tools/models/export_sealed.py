#!/usr/bin/env python3
"""Export the "sealed modules" corpus (tests/corpus/sealed) and label it by running it.

A fourth corpus built the way tests/corpus/unseen, tests/corpus/fresh and tests/corpus/blind are,
after them: small PyTorch modules written for this corpus alone, in idioms that no other corpus
script uses (export_corpus.py, export_torch2.py, export_classes.py, export_unseen.py,
export_fresh.py, export_blind.py), each module's code, `why` and family final before the linter
was first run on it, and never used to tune the linter: every module is held out. Three families:

  real-model plumbing            SSD prior boxes from a nested list comprehension over range(h),
                                 range(w) against the model's prior buffer for its configured map;
                                 an Elman decoder unrolled over x.unbind(1) against nn.RNN; ALiBi
                                 distances from a list comprehension over range(T) against
                                 arange; a ViT position table resampled unless
                                 torch.jit.is_tracing(); Swin patch merging by strided slices; a
                                 wav2vec2 positional conv trimmed by one frame;
                                 nn.Transformer.generate_square_subsequent_mask.
  shape arithmetic               divmod of a length, math.prod of sizes against torch.Size.numel(),
                                 len(x) as the batch against x.shape[0], math.pow of a length
                                 against the ** operator, torch.full of 1.0 / T against new_ones
                                 divided by T, a view target of torch.Size + tuple, a ceiling by
                                 -(-T // 4).
  control flow on sizes          a loop count from math.log2 of a length, a loop with break
                                 looking for the next power of two, a transpose when taller than
                                 wide, a pad when not all(...) sides are multiples of 8, torch.cond
                                 on a length, a loop over the rank, a branch on membership of the
                                 length in a tuple, pads from a comprehension over reversed sizes,
                                 Whisper's pad-or-trim, a crop to the min of two inputs' sizes by
                                 zip.

About half take a size as a Python number (a list comprehension over a range, len(), math.pow,
torch.full's fill, a loop over a count) or branch on one, so that the export can bake it; the
others are lookalikes.

Each module is an export_corpus.M entry and is exported by export_unseen.py's `exports` (both
torch.onnx exporters: NAME.dynamo.onnx with Dim.AUTO, Dim.DYNAMIC or named Dims turning by module,
NAME.ts.onnx with dynamic_axes on every axis), driven by export_classes.py's `export_family`, and
labelled by torch2_runs.py: ONNX Runtime (1 thread) against eager PyTorch at the export size and 3-6
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

MAX_DIR = 1024 * 1024  # the directory's budget, labels included

PLUMBING = "real-model plumbing"
ARITHMETIC = "shape arithmetic"
CONTROL = "control flow on sizes"
FAMILIES = (PLUMBING, ARITHMETIC, CONTROL)

SEQ = eu.SEQ  # (2, 5, 8)
SEQ_RUNS = eu.SEQ_RUNS  # D kept (weights)
SEQ_RUNS_D = ec.SEQ_RUNS_D  # no weights: D varies too

# ---------------------------------------------------------------- real-model plumbing

SSD_DECODE = """
n, _, h, w = x.shape
pri = {PRIORS}
loc = self.loc(x).permute(0, 2, 3, 1).reshape(n, -1, 4)
cxcy = pri[None, :, :2] + loc[..., :2] * 0.1 * pri[None, :, 2:]
wh = pri[None, :, 2:] * torch.exp(loc[..., 2:] * 0.2)
return torch.cat([cxcy - wh / 2, cxcy + wh / 2], -1)
"""

# SSD's prior boxes of an 8 x 10 map, centre and size, row by row.
PRIORS_8X10 = "torch.tensor([[(j + 0.5) / 10, (i + 0.5) / 8, 0.2, 0.2] for i in range(8) for j in range(10)])"

ELMAN_UNBIND = """
h = x.new_zeros(x.size(0), 8)
outs = []
for xt in x.unbind(1):
    h = torch.tanh(self.ih(xt) + self.hh(h))
    outs.append(h)
return torch.stack(outs, 1)
"""

ALIBI = """
b, t, d = x.shape
dist = {DIST}
bias = self.slopes[:, None, None] * dist[None].float()
q = x.view(b, t, 2, 4).transpose(1, 2)
a = (q @ q.transpose(-1, -2) * 0.5 + bias).softmax(-1)
return (a @ q).transpose(1, 2).reshape(b, t, d)
"""

VIT_POS_GUARD = """
h, w = x.shape[-2:]
if not torch.jit.is_tracing() and h * w == 16 and h == w:
    return (x + self.pos).flatten(2).transpose(1, 2)
pos = F.interpolate(self.pos, size=(h, w), mode='bicubic', align_corners=False)
return (x + pos).flatten(2).transpose(1, 2)
"""

SWIN_MERGE = """
x = F.pad(x, (0, x.size(3) % 2, 0, x.size(2) % 2))
x0, x1 = x[:, :, 0::2, 0::2], x[:, :, 1::2, 0::2]
x2, x3 = x[:, :, 0::2, 1::2], x[:, :, 1::2, 1::2]
return self.reduce(torch.cat([x0, x1, x2, x3], 1))
"""

W2V_POS_CONV = """
y = self.conv(x.transpose(1, 2))[:, :, :-1]
return x + F.gelu(y).transpose(1, 2)
"""

DECODER_MASK = """
mask = nn.Transformer.generate_square_subsequent_mask(x.size(1))
s = x @ x.transpose(1, 2) * 0.35 + mask
return s.softmax(-1) @ x
"""


def plumbing_models():
    def P(name, src, x=eu.IMG, runs=eu.IMG_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=PLUMBING)
    loc = {"loc": "nn.Conv2d(4, 4, 3, padding=1)"}
    elman = {"ih": "nn.Linear(8, 8)", "hh": "nn.Linear(8, 8, bias=False)"}
    slopes = {"slopes": "torch.tensor([0.25, 0.0625])"}
    tok, tok_runs = (2, 8, 4, 4), [(1, 8, 4, 4), (3, 8, 6, 6), (2, 8, 5, 7), (1, 8, 8, 8)]
    return [
        P("ssd_priors_listcomp", SSD_DECODE.format(
            PRIORS="torch.tensor([[(j + 0.5) / w, (i + 0.5) / h, 0.2, 0.2] for i in range(h) for j in range(w)])"),
          init=loc,
          why="SSD box decoding against prior boxes built by a nested list comprehension over range(h), "
              "range(w): 80 priors of the 8 x 10 map in a torch.tensor"),
        P("ssd_priors_buffer", SSD_DECODE.format(PRIORS="self.pri"), init=dict(loc, pri=PRIORS_8X10),
          why="the same decoding against the model's prior buffer for its configured 8 x 10 map "
              "(eager fails at other maps too)"),
        P("elman_unbind_steps", ELMAN_UNBIND, x=SEQ, runs=SEQ_RUNS, init=elman,
          why="an Elman decoder unrolled by a Python loop over x.unbind(1): 5 steps, stacked"),
        P("elman_nn_rnn", "self.rnn(x)[0]", x=SEQ, runs=SEQ_RUNS,
          init={"rnn": "nn.RNN(8, 8, batch_first=True)"},
          why="the same Elman recurrence by nn.RNN over the whole sequence"),
        P("alibi_bias_listcomp", ALIBI.format(DIST="torch.tensor([[-abs(j - i) for j in range(t)] for i in range(t)])"),
          x=SEQ, runs=SEQ_RUNS, init=slopes,
          why="ALiBi attention over 2 heads, distances -|j - i| from a list comprehension over range(T): "
              "a 5 x 5 table"),
        P("alibi_bias_arange", ALIBI.format(DIST="-(torch.arange(t)[None, :] - torch.arange(t)[:, None]).abs()"),
          x=SEQ, runs=SEQ_RUNS, init=slopes, why="the same ALiBi distances from arange(t) of the traced length"),
        P("vit_pos_interp_tracing_guard", VIT_POS_GUARD, x=tok, runs=tok_runs,
          init={"pos": "nn.Parameter(torch.randn(1, 8, 4, 4))"},
          why="a ViT 4 x 4 position table returned as is at 16 square tokens unless torch.jit.is_tracing(), "
              "else resampled bicubically to (h, w): the early return matches at the export size 4 x 4"),
        P("swin_patch_merge_slices", SWIN_MERGE, init={"reduce": "nn.Conv2d(16, 8, 1)"},
          why="Swin patch merging: pad odd sides by size % 2 of the traced sizes, four strided slices "
              "[0::2, 1::2], concatenated, a 1 x 1 reduction"),
        P("wav2vec2_pos_conv_samepad", W2V_POS_CONV, x=SEQ, runs=SEQ_RUNS,
          init={"conv": "nn.Conv1d(8, 8, 4, padding=2, groups=2)"},
          why="wav2vec2's positional conv: an even kernel 4 with padding 2, the extra frame removed by "
              "[:, :, :-1]"),
        P("decoder_square_subsequent_mask", DECODER_MASK, x=SEQ, runs=SEQ_RUNS_D,
          why="decoder self-attention under nn.Transformer.generate_square_subsequent_mask(x.size(1))"),
    ]


# ---------------------------------------------------------------- shape arithmetic

DIVMOD = """
q, r = divmod(x.size(1), 4)
head = x[:, :q * 4].unflatten(1, (q, 4)).mean(2)
tail = x[:, q * 4:].sum(1, keepdim=True) / max(r, 1)
return torch.cat([head, tail], 1)
"""

FLATTEN_SOFTMAX = """
y = x.reshape(x.size(0), {N})
return y.softmax(-1).reshape(x.shape)
"""

BATCH_PICK = """
idx = x.norm(dim=-1).argmax(1)
return x[torch.arange({B}), idx]
"""

UNIFORM = """
w = {W}
return torch.einsum('btd,t->bd', x, w)
"""

CEIL_NEG = """
n = -(-x.size(1) // 4)
y = F.pad(x, (0, 0, 0, n * 4 - x.size(1)))
return y.view(x.size(0), n, 4, x.size(2)).amax(2)
"""


def arithmetic_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=ARITHMETIC)
    return [
        P("divmod_tail_mean", DIVMOD,
          why="q, r = divmod(T, 4): means of q blocks of 4 frames, then the r leftover frames' sum / max(r, 1) "
              "(q = 1, r = 1 at T = 5)"),
        P("flatten_math_prod", FLATTEN_SOFTMAX.format(N="math.prod(x.shape[1:])"), x=eu.IMG, runs=eu.IMG_RUNS_C,
          why="a softmax over each sample, flattened by reshape(b, math.prod(x.shape[1:])): 320"),
        P("flatten_size_numel", FLATTEN_SOFTMAX.format(N="x.shape[1:].numel()"), x=eu.IMG, runs=eu.IMG_RUNS_C,
          why="the same softmax flattened by reshape(b, x.shape[1:].numel()) (torch.Size.numel)"),
        P("len_batch_index_pick", BATCH_PICK.format(B="len(x)"),
          why="each sample's token of largest norm picked by x[torch.arange(len(x)), idx]: len(x) = 2"),
        P("shape0_batch_index_pick", BATCH_PICK.format(B="x.shape[0]"),
          why="the same pick with torch.arange(x.shape[0])"),
        P("sum_scale_math_pow", "x.sum(1) * math.pow(x.size(1), -0.5)",
          why="a sum over frames scaled by math.pow(T, -0.5): a float 5 ** -0.5"),
        P("sum_scale_pow_operator", "x.sum(1) * x.size(1) ** -0.5",
          why="the same scale by the ** operator on the size, T ** -0.5"),
        P("uniform_weights_torch_full", UNIFORM.format(W="torch.full((x.size(1),), 1.0 / x.size(1))"),
          why="a mean over frames by einsum with weights torch.full((T,), 1.0 / T): fill value 0.2"),
        P("uniform_weights_new_ones", UNIFORM.format(W="x.new_ones(x.size(1)) / x.size(1)"),
          why="the same weights as x.new_ones(T) / T"),
        P("shape_tuple_concat_view", "x.view(x.shape[:-1] + (2, 4)).transpose(-1, -2).reshape(x.shape)",
          runs=SEQ_RUNS,
          why="features split into 2 x 4 by a view to x.shape[:-1] + (2, 4) (torch.Size + tuple), transposed "
              "back to (b, t, 8) (eager needs 8 features too)"),
        P("ceil_neg_floordiv_pad", CEIL_NEG,
          why="pad the frames to n = -(-T // 4) chunks of 4 (a ceiling by negative floor division), then the "
              "max over each chunk"),
    ]


# ---------------------------------------------------------------- control flow on sizes

LOG2_LEVELS = """
for _ in range(int(math.log2(x.size(-1))) - 2):
    x = F.avg_pool1d(x, 2)
return x
"""

NEXT_POW2 = """
n = 1
for _ in range(16):
    if n >= x.size(-1):
        break
    n *= 2
return F.pad(x, (0, n - x.size(-1)))
"""

ORIENTATION = """
if x.size(2) > x.size(3):
    x = x.transpose(2, 3)
return self.conv(x)
"""

ALL_MULTIPLE = """
if not all(s % 8 == 0 for s in x.shape[2:]):
    x = F.pad(x, (0, -x.size(3) % 8, 0, -x.size(2) % 8))
return F.avg_pool2d(x, 8)
"""

COND = """
return torch.cond(x.size(1) > 8, lambda t: t - t.mean(1, keepdim=True), lambda t: t * 1.0, (x,))
"""

RANK_LOOP = """
for d in range(2, x.dim()):
    x = x.cumsum(d)
return x
"""

MEMBERSHIP = """
if x.size(1) in (1, 2):
    return x.mean(1)
a = self.score(x).softmax(1)
return (a * x).sum(1)
"""

PAD_LISTCOMP = """
pads = [p for s in reversed(x.shape[2:]) for p in (0, -s % 4)]
return F.avg_pool2d(F.pad(x, pads), 4)
"""

PAD_OR_TRIM = """
N = 48
if wav.size(-1) > N:
    wav = wav[:, :N]
else:
    wav = F.pad(wav, (0, N - wav.size(-1)))
return (wav.view(wav.size(0), 3, 16) * self.win).pow(2).sum(-1)
"""

ZIP_MIN_CROP = """
h, w = (min(p, q) for p, q in zip(a.shape[2:], b.shape[2:]))
return a[:, :, :h, :w] + b[:, :, :h, :w]
"""


def control_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=CONTROL)
    ct16_runs = [(1, 4, 16), (3, 2, 32), (2, 4, 8), (1, 3, 64), (2, 4, 12)]
    ct10_runs = [(1, 4, 10), (3, 2, 7), (2, 4, 16), (1, 3, 20), (2, 4, 3)]
    wav, wav_runs = {"wav": (2, 40)}, [{"wav": (1, 40)}, {"wav": (3, 30)}, {"wav": (2, 60)}, {"wav": (1, 48)},
                                       {"wav": (2, 100)}]
    ab = {"a": (2, 4, 8, 10), "b": (2, 4, 9, 9)}
    ab_runs = [{"a": (1, 4, 8, 10), "b": (1, 4, 9, 9)}, {"a": (3, 4, 12, 6), "b": (3, 4, 10, 8)},
               {"a": (2, 4, 7, 7), "b": (2, 4, 9, 9)}, {"a": (1, 4, 9, 9), "b": (1, 4, 8, 10)}]
    return [
        P("log2_pyramid_levels", LOG2_LEVELS, x=(2, 4, 16), runs=ct16_runs,
          why="a loop of int(math.log2(T)) - 2 avg_pool1d(2) levels: 2 pools at T = 16, down to 4 steps"),
        P("next_pow2_break_loop", NEXT_POW2, x=(2, 4, 10), runs=ct10_runs,
          why="a loop doubling n with a break once n >= T, then pad to n: the next power of two, 16 at T = 10"),
        P("orientation_transpose_branch", ORIENTATION, x=eu.IMG, runs=eu.IMG_RUNS,
          init={"conv": "nn.Conv2d(4, 4, 3, padding=1)"},
          why="transpose maps taller than wide before a conv: not taken at 8 x 10"),
        P("all_multiple_pad_branch", ALL_MULTIPLE, x=eu.IMG, runs=eu.IMG_RUNS_C,
          why="pad H, W up to multiples of 8 by -size % 8 unless all(s % 8 == 0 ...), then 8 x 8 pools: "
              "taken at 8 x 10"),
        P("torch_cond_center_long", COND, runs=SEQ_RUNS_D + [(2, 9, 8)],
          why="torch.cond(T > 8, centre the frames, copy them): the copy at T = 5"),
        P("cumsum_over_spatial_dims", RANK_LOOP, x=eu.IMG, runs=eu.IMG_RUNS_C,
          why="cumsum over every spatial axis by a loop over range(2, x.dim()): the rank, not a size"),
        P("membership_short_branch", MEMBERSHIP, runs=[(1, 5, 8), (3, 2, 8), (2, 1, 8), (4, 12, 8), (2, 7, 8)],
          init={"score": "nn.Linear(8, 1)"},
          why="plain mean when T in (1, 2), else attention pooling by a softmax of scores: not taken at T = 5"),
        P("pad_listcomp_reversed", PAD_LISTCOMP, x=eu.IMG, runs=eu.IMG_RUNS_C,
          why="F.pad by a list comprehension (0, -s % 4) over reversed(x.shape[2:]), then 4 x 4 pools: "
              "pads 2, 0 at 8 x 10"),
        P("whisper_pad_or_trim", PAD_OR_TRIM, x=wav, runs=wav_runs, init=eu.HANN,
          why="Whisper's pad-or-trim to 48 samples: the pad arm, N - T = 8, at T = 40; trim past 48"),
        P("crop_to_common_zip_min", ZIP_MIN_CROP, x=ab, runs=ab_runs,
          why="two maps cropped to their common size, min over zip(a.shape[2:], b.shape[2:]): h from a (8), "
              "w from b (9)"),
    ]


def all_modules():
    return eu.numbered(plumbing_models() + arithmetic_models() + control_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_sealed.py", "three", final_before_linting=True)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("sealed", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
