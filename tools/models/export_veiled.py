#!/usr/bin/env python3
"""Export the "veiled modules" corpus (tests/corpus/veiled) and label it by running it.

A fifth corpus built the way tests/corpus/unseen, tests/corpus/fresh, tests/corpus/blind and
tests/corpus/sealed are, after them: small PyTorch modules written for this corpus alone, in idioms
that no other corpus script uses (export_corpus.py, export_torch2.py, export_classes.py,
export_unseen.py, export_fresh.py, export_blind.py, export_sealed.py), each module's code, `why`
and family final before the linter was first run on it, and never used to tune the linter: every
module is held out. Three families:

  vision and point-cloud plumbing  a U-Net skip resized only when up.shape != skip.shape; a
                                   diffusion block's F.group_norm with x.size(1) // 2 groups
                                   against GroupNorm's own reshape to (n, c // 2, 2 * h * w);
                                   Deformable DETR's levels split back by H * W read from
                                   torch.as_tensor of the level shapes against the shapes
                                   themselves; an OCR resize to height 16 with the width
                                   round(w * 16 / h) against w * 16 // h; torchvision's
                                   clip_boxes_to_image, clamp(max=w); DGCNN's k nearest
                                   neighbours by cdist and topk; TSM's temporal shift by slice
                                   assignment into zeros_like.
  audio and sequence plumbing      frames by as_strided with wav.stride(0) against avg_pool1d
                                   energies; a Hann taper torch.hann_window(x.size(-1)) against
                                   its cosine formula over arange; log-n attention scaling by
                                   math.log(T); fairseq's make_positions by cumsum of the
                                   non-padding mask; a WaveNet gated causal dilated conv;
                                   pack_padded_sequence with lengths [T] * B; Transformer-XL's
                                   mask triu(..., diagonal=1 + mlen); an RNN-T joiner by
                                   broadcasting.
  sizes as Python values           a flatten by view(b, x.stride(0)); ShuffleNetV2's channel split
                                   at c >> 1; the next power of two by 1 << (T - 1).bit_length();
                                   FastSpeech's numpy sinusoid table; a flow warp normalized by
                                   x.new_tensor([w - 1, h - 1]); lookalikes: list(x.shape) edited
                                   for homogeneous coordinates, a square pad to torch.sym_max(h, w),
                                   the patch grid stored on self in forward, video frames folded by
                                   reshape(b * t, *x.shape[2:]), TSN segments by tensor_split.

About half take a size as a Python number (as_tensor, round(), math.log, a stride, a shift, a
bit length, numpy, new_tensor, a list of lengths, a clamp bound, the groups of group_norm, the
diagonal of triu) or branch on one, so that the export can bake it; the others are lookalikes.

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

VISION = "vision and point-cloud plumbing"
SEQUENCE = "audio and sequence plumbing"
PYTHON = "sizes as Python values"
FAMILIES = (VISION, SEQUENCE, PYTHON)

SEQ = eu.SEQ  # (2, 5, 8)
SEQ_RUNS = eu.SEQ_RUNS  # D kept (weights)
SEQ_RUNS_D = ec.SEQ_RUNS_D  # no weights: D varies too
# Channel pairs (group_norm, a channel split): even C on both sides of the export's 4, and one odd C,
# where eager fails too.
IMG_EVEN_C = [(1, 4, 8, 10), (3, 6, 9, 7), (2, 2, 16, 12), (1, 8, 13, 21), (2, 5, 8, 8)]

# ---------------------------------------------------------------- vision and point-cloud plumbing

UNET_MISMATCH = """
up = F.interpolate(low, scale_factor=2.0, mode='nearest')
if up.shape != skip.shape:
    up = F.interpolate(up, size=skip.shape[2:], mode='nearest')
return self.conv(torch.cat([up, skip], 1))
"""

GN_RESHAPE = """
n, c, h, w = x.shape
g = x.reshape(n, c // 2, 2 * h * w)
g = (g - g.mean(-1, keepdim=True)) * torch.rsqrt(g.var(-1, unbiased=False, keepdim=True) + 1e-5)
return g.reshape(x.shape)
"""

DEFORMABLE = """
src = torch.cat([a.flatten(2), b.flatten(2)], 2).transpose(1, 2)
shapes = {SHAPES}
value = self.proj(src)
levels = value.split([h * w for h, w in shapes], 1)
maps = [v.transpose(1, 2).reshape(v.size(0), v.size(2), h, w) for v, (h, w) in zip(levels, shapes)]
return maps[0] + F.interpolate(maps[1], size=maps[0].shape[2:], mode='bilinear', align_corners=False)
"""

OCR_RESIZE = """
h, w = x.shape[2:]
y = F.interpolate(x, size=(16, {W}), mode='bilinear', align_corners=False)
return y.mean(2).transpose(1, 2)
"""

CLIP_BOXES = """
h, w = x.shape[-2:]
boxes = self.box(x).flatten(2).transpose(1, 2) * 16
bx = boxes[..., 0::2].clamp(min=0, max=w)
by = boxes[..., 1::2].clamp(min=0, max=h)
return torch.stack((bx, by), -1).reshape(boxes.shape)
"""

DGCNN_KNN = """
idx = torch.cdist(x, x).topk(4, -1, largest=False).indices
nbr = x.gather(1, idx.flatten(1)[..., None].expand(-1, -1, x.size(2))).view(*idx.shape, x.size(2))
ctr = x[:, :, None].expand_as(nbr)
return self.mlp(torch.cat([nbr - ctr, ctr], -1)).amax(2)
"""

TSM_SHIFT = """
nt, c, h, w = x.shape
x = x.view(nt // 2, 2, c, h, w)
fold = c // 4
out = torch.zeros_like(x)
out[:, :-1, :fold] = x[:, 1:, :fold]
out[:, 1:, fold:2 * fold] = x[:, :-1, fold:2 * fold]
out[:, :, 2 * fold:] = x[:, :, 2 * fold:]
return out.view(nt, c, h, w)
"""


def vision_models():
    def P(name, src, x=eu.IMG, runs=eu.IMG_RUNS, init=None, why="", ints=None):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why, ints=ints), family=VISION)
    # The skip twice the low map (the export's, the branch not taken) and odd skips (taken).
    unet = {"low": (2, 4, 4, 5), "skip": (2, 4, 8, 10)}
    unet_runs = [{"low": (1, 4, 4, 5), "skip": (1, 4, 8, 10)}, {"low": (3, 4, 4, 5), "skip": (3, 4, 9, 11)},
                 {"low": (2, 4, 5, 5), "skip": (2, 4, 10, 10)}, {"low": (1, 4, 3, 7), "skip": (1, 4, 7, 15)},
                 {"low": (2, 4, 6, 4), "skip": (2, 4, 12, 8)}]
    levels = {"a": (2, 4, 8, 10), "b": (2, 4, 4, 5)}
    level_runs = [{"a": (1, 4, 8, 10), "b": (1, 4, 4, 5)}, {"a": (3, 4, 6, 6), "b": (3, 4, 3, 3)},
                  {"a": (2, 4, 9, 7), "b": (2, 4, 5, 4)}, {"a": (1, 4, 16, 12), "b": (1, 4, 8, 6)}]
    proj = {"proj": "nn.Linear(4, 4)"}
    pts, pts_runs = (2, 6, 3), [(1, 6, 3), (3, 9, 3), (2, 4, 3), (1, 20, 3), (2, 3, 3)]
    # TSM folds 2 segments into the batch: even frame counts, and 3 where eager fails too.
    tsm, tsm_runs = (4, 4, 4, 5), [(2, 4, 4, 5), (6, 8, 3, 3), (4, 4, 6, 7), (8, 12, 2, 2), (3, 4, 4, 5)]
    return [
        P("unet_skip_shape_mismatch_branch", UNET_MISMATCH, x=unet, runs=unet_runs,
          init={"conv": "nn.Conv2d(8, 4, 3, padding=1)"},
          why="a U-Net decoder upsamples by 2 and resizes to the skip only if up.shape != skip.shape: "
              "not taken at 4 x 5 against 8 x 10, where the shapes are equal"),
        P("diffusion_gn_groups_from_channels", "F.group_norm(x, x.size(1) // 2)", runs=IMG_EVEN_C,
          why="a diffusion block's GroupNorm in groups of 2 channels, the number of groups x.size(1) // 2 "
              "passed to F.group_norm: 2 groups at C = 4 (eager fails at odd C)"),
        P("group_norm_reshape_pairs", GN_RESHAPE, runs=IMG_EVEN_C,
          why="the same normalization written as GroupNorm's own reshape to (n, c // 2, 2 * h * w) of the "
              "traced sizes, moments over each group: (2, 2, 160) at the export size (eager fails at odd C too)"),
        P("deformable_detr_shapes_as_tensor", DEFORMABLE.format(
            SHAPES="torch.as_tensor([a.shape[-2:], b.shape[-2:]], dtype=torch.long)"),
          x=levels, runs=level_runs, init=proj,
          why="Deformable DETR's value: two levels flattened and concatenated, split back by h * w of the "
              "rows of torch.as_tensor of the level shapes (80 and 20 tokens), each viewed back to (h, w) "
              "from those rows, the coarse level resized to the fine one and added"),
        P("deformable_detr_shapes_list", DEFORMABLE.format(SHAPES="[a.shape[-2:], b.shape[-2:]]"),
          x=levels, runs=level_runs, init=proj,
          why="the same split and views by a Python list of the two traced torch.Size"),
        P("ocr_aspect_resize_round", OCR_RESIZE.format(W="round(w * 16 / h)"), runs=eu.IMG_RUNS_C + [(1, 4, 12, 10)],
          why="a CRNN input resized to height 16 keeping the aspect, width round(w * 16 / h) = 20 at 8 x 10, "
              "then the mean over height as a sequence of 20 columns"),
        P("ocr_aspect_resize_floordiv", OCR_RESIZE.format(W="w * 16 // h"), runs=eu.IMG_RUNS_C + [(1, 4, 12, 10)],
          why="the same resize with the width w * 16 // h of the traced sizes: 20 at 8 x 10"),
        P("clip_boxes_clamp_to_image", CLIP_BOXES, init={"box": "nn.Conv2d(4, 4, 1)"},
          why="torchvision's clip_boxes_to_image on per-cell boxes: x coordinates clamp(min=0, max=w), y "
              "clamp(min=0, max=h), the bounds the sizes 10 and 8 at the export size"),
        P("dgcnn_knn_edge_features", DGCNN_KNN, x=pts, runs=pts_runs, init={"mlp": "nn.Linear(6, 8)"},
          why="DGCNN EdgeConv: the model's k = 4 nearest points by cdist and topk, edge features "
              "(neighbour - centre, centre), max over the neighbours (eager fails below 4 points)"),
        P("tsm_temporal_shift_inplace", TSM_SHIFT, x=tsm, runs=tsm_runs,
          why="TSM's temporal shift over the model's 2 segments: fold = c // 4 channels shifted each way "
              "by slice assignment into zeros_like (1 at C = 4); eager needs an even number of frames"),
    ]


# ---------------------------------------------------------------- audio and sequence plumbing

AS_STRIDED = """
n = (wav.size(1) - 16) // 8 + 1
frames = wav.as_strided((wav.size(0), n, 16), (wav.stride(0), 8, 1))
return frames.pow(2).mean(-1)
"""

HANN_FORMULA = """
n = torch.arange(x.size(-1), dtype=x.dtype)
return x * (0.5 - 0.5 * torch.cos(2 * math.pi * n / x.size(-1)))
"""

LOGN_SCALE = """
q = x * (math.log(x.size(1)) / math.log(16))
return (q @ x.transpose(1, 2) * 0.35).softmax(-1) @ x
"""

MAKE_POSITIONS = """
mask = tok.ne(1).long()
pos = torch.cumsum(mask, 1) * mask + 1
return self.tok(tok) + self.pos(pos)
"""

WAVENET = """
a, b = self.conv(F.pad(x, (4, 0))).chunk(2, 1)
return x + torch.tanh(a) * torch.sigmoid(b)
"""

PACKED = """
lengths = [x.size(1)] * x.size(0)
packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)
out, _ = self.gru(packed)
return nn.utils.rnn.pad_packed_sequence(out, batch_first=True)[0]
"""

TRANSFO_XL = """
mlen, qlen = mem.size(1), x.size(1)
kv = torch.cat([mem, x], 1)
mask = torch.triu(x.new_ones(qlen, mlen + qlen), diagonal=1 + mlen).bool()
s = (x @ kv.transpose(1, 2) * 0.35).masked_fill(mask, float('-inf'))
return s.softmax(-1) @ kv
"""

RNNT_JOINER = """
return self.out(torch.tanh(self.enc(enc)[:, :, None] + self.dec(dec)[:, None]))
"""


def sequence_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why="", ints=None):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why, ints=ints), family=SEQUENCE)
    # Lengths on the hop (40, 64) and off it (23, 100), down to a single frame (16).
    wav = {"wav": (2, 40)}
    wav_runs = [{"wav": (1, 40)}, {"wav": (3, 64)}, {"wav": (2, 23)}, {"wav": (1, 100)}, {"wav": (2, 16)}]
    frames, frames_runs = (2, 6, 16), [(1, 6, 16), (3, 4, 32), (2, 9, 12), (1, 2, 7), (2, 6, 1)]
    tok = {"tok": (2, 7)}
    tok_runs = [{"tok": (1, 7)}, {"tok": (3, 12)}, {"tok": (2, 1)}, {"tok": (4, 20)}, {"tok": (1, 3)}]
    ct, ct_runs = (2, 4, 10), [(1, 4, 10), (3, 4, 7), (2, 4, 1), (1, 4, 33)]
    xl = {"x": (2, 3, 8), "mem": (2, 5, 8)}
    xl_runs = [{"x": (1, 3, 8), "mem": (1, 5, 8)}, {"x": (3, 1, 8), "mem": (3, 9, 8)},
               {"x": (2, 4, 6), "mem": (2, 2, 6)}, {"x": (1, 6, 4), "mem": (1, 12, 4)}]
    joint = {"enc": (2, 5, 8), "dec": (2, 3, 8)}
    joint_runs = [{"enc": (1, 5, 8), "dec": (1, 3, 8)}, {"enc": (3, 9, 8), "dec": (3, 1, 8)},
                  {"enc": (2, 1, 8), "dec": (2, 4, 8)}, {"enc": (1, 16, 8), "dec": (1, 7, 8)}]
    joiner = {"enc": "nn.Linear(8, 8)", "dec": "nn.Linear(8, 8)", "out": "nn.Linear(8, 6)"}
    return [
        P("frames_as_strided_energy", AS_STRIDED, x=wav, runs=wav_runs,
          why="16-sample frames at hop 8 by as_strided with sizes (b, (n - 16) // 8 + 1, 16) and strides "
              "(wav.stride(0), 8, 1), then each frame's energy: 4 frames, a row stride of 40 at n = 40"),
        P("frames_avg_pool_energy", "F.avg_pool1d(wav.pow(2).unsqueeze(1), 16, 8).squeeze(1)", x=wav,
          runs=wav_runs,
          why="the same energies by avg_pool1d(16, 8) of the squared samples (eager fails below 16 samples)"),
        P("hann_taper_window_of_length", "x * torch.hann_window(x.size(-1))", x=frames, runs=frames_runs,
          why="each frame tapered by torch.hann_window(x.size(-1)), a periodic Hann window as long as the "
              "frame: 16 samples at the export size"),
        P("hann_taper_cosine_arange", HANN_FORMULA, x=frames, runs=frames_runs,
          why="the same periodic Hann taper as 0.5 - 0.5 * cos(2 pi n / F) over arange(F) of the traced F "
              "(0 at F = 1, where hann_window gives 1)"),
        P("logn_attention_scale_math_log", LOGN_SCALE,
          why="log-n attention scaling: queries multiplied by math.log(T) / math.log(16), the length a Python "
              "number: 0.5805 at T = 5 (0 at T = 1, a uniform softmax)"),
        P("fairseq_make_positions_cumsum", MAKE_POSITIONS, x=tok, runs=tok_runs, ints={"tok": 10},
          init={"tok": "nn.Embedding(10, 8)", "pos": "nn.Embedding(24, 8)"},
          why="fairseq's make_positions: positions cumsum(mask) * mask + 1 of the non-padding tokens (padding "
              "index 1), learned token and position embeddings added"),
        P("wavenet_gated_causal_dilated", WAVENET, x=ct, runs=ct_runs, init={"conv": "nn.Conv1d(4, 8, 3, dilation=2)"},
          why="a WaveNet residual unit: causal left pad (4, 0) for a kernel 3 at dilation 2, gate "
              "tanh(a) * sigmoid(b) of the two halves"),
        P("gru_pack_padded_lengths_list", PACKED, runs=SEQ_RUNS, init={"gru": "nn.GRU(8, 8, batch_first=True)"},
          why="a GRU over pack_padded_sequence with lengths [x.size(1)] * x.size(0), a Python list: [5, 5] at "
              "the export size, unpacked by pad_packed_sequence"),
        P("transfo_xl_triu_diagonal_mlen", TRANSFO_XL, x=xl, runs=xl_runs,
          why="Transformer-XL attention over memory and segment under triu(ones(qlen, mlen + qlen), "
              "diagonal=1 + mlen): the diagonal 6 at mlen = 5"),
        P("rnnt_joiner_broadcast", RNNT_JOINER, x=joint, runs=joint_runs, init=joiner,
          why="an RNN-T joiner: encoder frames (b, T, 1, d) and predictor steps (b, 1, U, d) added by "
              "broadcasting, tanh, a Linear to the 6 outputs"),
    ]


# ---------------------------------------------------------------- sizes as Python values

SHUFFLE_SPLIT = """
n, c, h, w = x.shape
a, b = x[:, :c >> 1], x[:, c >> 1:]
y = torch.cat([a, F.relu(b - b.mean((2, 3), keepdim=True))], 1)
return y.view(n, 2, c >> 1, h, w).transpose(1, 2).reshape(x.shape)
"""

NEXT_POW2 = """
n = 1 << (x.size(-1) - 1).bit_length()
return F.pad(x, (0, n - x.size(-1)))
"""

NUMPY_SINUSOID = """
import numpy as np
t, d = x.shape[1:]
angle = np.arange(t)[:, None] / np.power(10000, 2 * (np.arange(d) // 2) / d)
angle[:, 0::2] = np.sin(angle[:, 0::2])
angle[:, 1::2] = np.cos(angle[:, 1::2])
return x + torch.from_numpy(angle).float()
"""

FLOW_WARP = """
n, _, h, w = x.shape
flow = self.flow(x)
ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')
grid = torch.stack([xs, ys], -1).float() + flow.permute(0, 2, 3, 1)
grid = 2 * grid / x.new_tensor([w - 1, h - 1]) - 1
return F.grid_sample(x, grid, align_corners=True)
"""

HOMOGENEOUS = """
shape = list(pts.shape)
shape[-1] = 1
ph = torch.cat([pts, pts.new_ones(shape)], -1)
return (ph @ self.pose.t())[..., :3]
"""

SYM_MAX_PAD = """
s = torch.sym_max(x.size(2), x.size(3))
return F.avg_pool2d(F.pad(x, (0, s - x.size(3), 0, s - x.size(2))), 2)
"""

GRID_ON_SELF = """
x = self.proj(x)
self.grid_size = x.shape[2:]
t = x.flatten(2).transpose(1, 2)
t = t + self.mix(t)
return t.transpose(1, 2).reshape(t.size(0), -1, *self.grid_size)
"""

VIDEO_FOLD = """
b, t = x.shape[:2]
y = self.conv(x.reshape(b * t, *x.shape[2:]))
return y.reshape(b, t, *y.shape[1:])
"""


def python_models():
    def P(name, src, x=eu.IMG, runs=eu.IMG_RUNS_C, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=PYTHON)
    # Next powers of two 16 (export), 8, 32, 4, and 16 and 17 on either side of a power.
    ct, ct_runs = (2, 4, 10), [(1, 4, 10), (3, 2, 7), (2, 4, 16), (1, 3, 20), (2, 4, 3), (1, 4, 17)]
    pts, pts_runs = (2, 6, 3), [(1, 6, 3), (3, 9, 3), (2, 1, 3), (1, 20, 3)]
    pose = {"pose": "torch.eye(4) + 0.1 * torch.arange(16.).view(4, 4)"}
    video = (2, 3, 4, 8, 10)
    video_runs = [(1, 3, 4, 8, 10), (3, 2, 4, 9, 7), (2, 5, 4, 6, 6), (1, 1, 4, 13, 21)]
    segs, segs_runs = (2, 7, 8), [(1, 7, 8), (3, 9, 6), (2, 3, 8), (4, 12, 10), (1, 8, 8)]
    return [
        P("flatten_view_stride0", "F.normalize(x.view(x.size(0), x.stride(0)), dim=1).view(x.shape)",
          why="each sample L2-normalized as a whole, flattened by view(b, x.stride(0)): the row stride of the "
              "contiguous input, 320 = 4 * 8 * 10"),
        P("shufflenet_split_rshift", SHUFFLE_SPLIT, runs=IMG_EVEN_C,
          why="ShuffleNetV2's channel split at c >> 1 (2 of 4 channels), one half centred, the halves "
              "shuffled by view(n, 2, c >> 1, h, w) (eager fails at odd C)"),
        P("next_pow2_bit_length", NEXT_POW2, x=ct, runs=ct_runs,
          why="pad the last axis to the next power of two, 1 << (T - 1).bit_length(): 16 at T = 10"),
        P("fastspeech_numpy_sinusoid", NUMPY_SINUSOID, x=SEQ, runs=SEQ_RUNS_D,
          why="FastSpeech's sinusoid table built in numpy from np.arange(T) and np.arange(D) of the sizes, "
              "added by torch.from_numpy: a 5 x 8 table at the export size"),
        P("flow_warp_new_tensor_norm", FLOW_WARP, runs=eu.IMG_RUNS, init={"flow": "nn.Conv2d(4, 2, 3, padding=1)"},
          why="backward warping by a predicted flow: pixel grid plus flow normalized to [-1, 1] by "
              "x.new_tensor([w - 1, h - 1]), [9, 7] at 8 x 10, then grid_sample"),
        P("homogeneous_coords_list_shape", HOMOGENEOUS, x={"pts": pts},
          runs=[{"pts": r} for r in pts_runs], init=pose,
          why="points made homogeneous by a column of new_ones(shape), shape = list(pts.shape) with its last "
              "entry set to 1, then a 4 x 4 pose"),
        P("square_pad_sym_max", SYM_MAX_PAD, runs=eu.IMG_RUNS_C + [(1, 4, 12, 7)],
          why="pad to a square of side torch.sym_max(h, w), 10 at 8 x 10, then 2 x 2 average pools"),
        P("patch_grid_stored_on_self", GRID_ON_SELF, runs=eu.IMG_RUNS,
          init={"proj": "nn.Conv2d(4, 4, 2, stride=2)", "mix": "nn.Linear(4, 4)"},
          why="a patch embedding stores its grid self.grid_size = x.shape[2:] (4 x 5 at 8 x 10) in forward, a "
              "token MLP, then the tokens reshaped back by *self.grid_size"),
        P("video_frames_star_unpack_reshape", VIDEO_FOLD, x=video, runs=video_runs,
          init={"conv": "nn.Conv2d(4, 4, 3, padding=1)"},
          why="a per-frame conv over a clip folded by reshape(b * t, *x.shape[2:]) and unfolded by "
              "reshape(b, t, *y.shape[1:])"),
        P("tsn_segments_tensor_split", "torch.stack([s.mean(1) for s in x.tensor_split(3, 1)], 1)", x=segs,
          runs=segs_runs,
          why="TSN's segment consensus: the frames in 3 near-equal segments by tensor_split(3, 1), 3, 2, 2 "
              "frames at T = 7, each averaged"),
    ]


def all_modules():
    return eu.numbered(vision_models() + sequence_models() + python_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_veiled.py", "three", final_before_linting=True)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("veiled", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
