#!/usr/bin/env python3
"""Export the "blind modules" corpus (tests/corpus/blind) and label it by running it.

A third corpus built the way tests/corpus/unseen and tests/corpus/fresh are, after them: small
PyTorch modules written for this corpus alone, in idioms that no other corpus script uses
(export_corpus.py, export_torch2.py, export_classes.py, export_unseen.py, export_fresh.py), each
module's code, `why` and labels final before the linter was first run on it, and never used to
tune the linter: every module is held out. Three families:

  real-model plumbing            Swin's shifted-window attention mask from region ids in Python
                                 lists of int(H), int(W) entries against window attention with a
                                 relative-position bias table; a KV cache concatenated to the new
                                 keys with a causal mask offset by the cache length; a U-Net skip
                                 cropped by negative F.pad against the decoder padded up to the
                                 skip; an FPN merge by repeat_interleave cropped to the lateral;
                                 boxes scaled to pixels by torch.tensor of the sizes; a YOLOv3 grid
                                 by arange(g).repeat(g, 1) with a float stride 64 / g; CLIP's
                                 attention pool with its own position table.
  shape arithmetic               reshape targets from torch.tensor(x.shape).tolist(), interpolate
                                 by a scale factor that is a ratio of sizes, F.pad up to a maximum
                                 length, DLRM's pairwise interactions by tril_indices(int(F)),
                                 F.one_hot with num_classes from the size, tile counts from
                                 math.ceil of a ratio of two inputs' lengths; lookalikes with the
                                 size read from the tensor or the model's configured constant.
  control flow on sizes          a context truncated past a length by a branch, a while loop
                                 halving until short, padding to a window multiple only when
                                 needed, a batch-of-one fast path, a loop over split() chunks, a
                                 loop over the batch by iterating the tensor, a square pad to
                                 max(h, w), top-k with k = min(k, C); lookalikes that slice
                                 unconditionally, loop over the model's constant levels, pad by a
                                 remainder of the traced length, unflatten, sort by gather, raise
                                 on a size the weights fix.

About half take a size as a Python int (int(), math, float arithmetic on sizes, torch.tensor of
sizes, tolist(), a loop over a size) or branch on one, so that the export can bake it; the others
are lookalikes.

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

SEQ = (2, 5, 8)

# ---------------------------------------------------------------- real-model plumbing

SWIN_SHIFT_MASK = """
B, C, H, W = x.shape
Hp, Wp = int(H), int(W)
rows = [0] * (Hp - 4) + [1] * 2 + [2] * 2
cols = [0] * (Wp - 4) + [1] * 2 + [2] * 2
img = (torch.tensor(rows)[:, None] * 3 + torch.tensor(cols)[None]).view(1, Hp, Wp, 1).float()
mw = img.view(1, Hp // 4, 4, Wp // 4, 4, 1).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16)
mask = (mw[:, None, :] - mw[:, :, None]).ne(0).float() * -100.0
t = torch.roll(x, (-2, -2), (2, 3)).view(B, C, H // 4, 4, W // 4, 4)
t = t.permute(0, 2, 4, 3, 5, 1).reshape(B, -1, 16, C)
a = (t @ t.transpose(-1, -2) * 0.5 + mask).softmax(-1)
o = (a @ t).view(B, H // 4, W // 4, 4, 4, C).permute(0, 5, 1, 3, 2, 4).reshape(B, C, H, W)
return torch.roll(o, (2, 2), (2, 3))
"""

SWIN_RELBIAS = """
B, C, H, W = x.shape
t = x.view(B, C, H // 4, 4, W // 4, 4).permute(0, 2, 4, 3, 5, 1).reshape(-1, 16, C)
qkv = self.qkv(t).view(t.size(0), 16, 3, 2, C // 2).permute(2, 0, 3, 1, 4)
q, k, v = qkv[0], qkv[1], qkv[2]
bias = self.table[self.index.view(-1)].view(16, 16, 2).permute(2, 0, 1)
a = (q @ k.transpose(-1, -2) * 0.7 + bias).softmax(-1)
o = (a @ v).transpose(1, 2).reshape(-1, 16, C)
return o.view(B, H // 4, W // 4, 4, 4, C).permute(0, 5, 1, 3, 2, 4).reshape(B, C, H, W)
"""

# Swin's relative position index of a 4 x 4 window into a (2 * 4 - 1) ** 2 table.
REL_INDEX = ("(lambda c: (c[0][:, None] - c[0][None] + 3) * 7 + c[1][:, None] - c[1][None] + 3)"
             "(torch.stack(torch.meshgrid(torch.arange(4), torch.arange(4), indexing='ij')).flatten(1))")

KV_CACHE = """
P = {P}
T = x.size(1)
kv = torch.cat([past, x], 1)
i = torch.arange(T)[:, None] + P
j = torch.arange(P + T)[None]
a = (x @ kv.transpose(1, 2) * 0.35).masked_fill(j > i, float('-inf')).softmax(-1)
return a @ kv
"""

UNET_PAD_UP = """
x1 = self.up(x1)
diffY = x2.size()[2] - x1.size()[2]
diffX = x2.size()[3] - x1.size()[3]
x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
return self.conv(torch.cat([x2, x1], dim=1))
"""

UNET_NEGPAD_CROP = """
up = self.up(low)
dh = int(skip.size(2)) - int(up.size(2))
dw = int(skip.size(3)) - int(up.size(3))
skip = F.pad(skip, [-(dw // 2), -(dw - dw // 2), -(dh // 2), -(dh - dh // 2)])
return self.conv(torch.cat([skip, up], 1))
"""

FPN_REPEAT = """
H, W = {HW}
up = top.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)[:, :, :H, :W]
return self.smooth(self.lateral(lat) + up)
"""

BOX_SCALE_TENSOR = """
n, _, h, w = x.shape
boxes = self.box(x).flatten(2).transpose(1, 2).sigmoid()
cx, cy, bw, bh = boxes.unbind(-1)
xyxy = torch.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], -1)
return xyxy * torch.tensor([w * 8, h * 8, w * 8, h * 8], dtype=torch.float32)
"""

BOX_SCALE_MUL = """
n, _, h, w = x.shape
boxes = self.box(x).flatten(2).transpose(1, 2).sigmoid()
cx, cy, bw, bh = boxes.unbind(-1)
sx, sy = w * 8, h * 8
return torch.stack([(cx - bw / 2) * sx, (cy - bh / 2) * sy, (cx + bw / 2) * sx, (cy + bh / 2) * sy], -1)
"""

YOLOV3_GRID = """
n, _, g, _ = x.shape
g = int(g)
stride = 64 / g
p = self.pred(x).view(n, 3, 5, g, g).permute(0, 1, 3, 4, 2)
gx = torch.arange(g).repeat(g, 1).view(1, 1, g, g).float()
gy = torch.arange(g).repeat(g, 1).t().view(1, 1, g, g).float()
bx = (p[..., 0].sigmoid() + gx) * stride
by = (p[..., 1].sigmoid() + gy) * stride
return torch.stack([bx, by, p[..., 2:].sigmoid().prod(-1)], -1).view(n, -1, 3)
"""

CLIP_ATTNPOOL = """
t = x.flatten(2).transpose(1, 2)
t = torch.cat([t.mean(1, keepdim=True), t], 1) + self.pos
q = self.q(t[:, :1])
a = (q @ self.k(t).transpose(1, 2) * 0.35).softmax(-1)
return (a @ self.v(t)).squeeze(1)
"""


def plumbing_models():
    def P(name, src, x=eu.IMG, runs=eu.IMG_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=PLUMBING)
    sq, sq_runs = (2, 4, 8, 8), [(1, 4, 8, 8), (3, 4, 12, 8), (2, 4, 16, 16), (1, 4, 8, 12), (1, 4, 10, 8)]
    kv = {"x": (2, 3, 8), "past": (2, 5, 8)}
    kv_runs = [{"x": (1, 3, 8), "past": (1, 5, 8)}, {"x": (3, 1, 8), "past": (3, 9, 8)},
               {"x": (2, 4, 6), "past": (2, 2, 6)}, {"x": (1, 6, 4), "past": (1, 12, 4)}]
    unet_up = {"up": "nn.ConvTranspose2d(4, 2, 2, 2)", "conv": "nn.Conv2d(4, 4, 3, padding=1)"}
    pad_x = {"x1": (2, 4, 4, 5), "x2": (2, 2, 9, 11)}
    pad_runs = [{"x1": (1, 4, 4, 5), "x2": (1, 2, 9, 11)}, {"x1": (3, 4, 6, 3), "x2": (3, 2, 12, 7)},
                {"x1": (2, 4, 5, 5), "x2": (2, 2, 10, 10)}, {"x1": (1, 4, 3, 7), "x2": (1, 2, 8, 15)}]
    crop_x = {"low": (2, 4, 4, 5), "skip": (2, 2, 10, 11)}
    crop_runs = [{"low": (1, 4, 4, 5), "skip": (1, 2, 10, 11)}, {"low": (3, 4, 6, 4), "skip": (3, 2, 12, 8)},
                 {"low": (2, 4, 5, 5), "skip": (2, 2, 13, 12)}, {"low": (1, 4, 3, 7), "skip": (1, 2, 8, 15)}]
    fpn = {"lateral": "nn.Conv2d(3, 4, 1)", "smooth": "nn.Conv2d(4, 4, 3, padding=1)"}
    fpn_x = {"top": (2, 4, 4, 5), "lat": (2, 3, 7, 10)}
    fpn_runs = [{"top": (1, 4, 4, 5), "lat": (1, 3, 7, 10)}, {"top": (3, 4, 6, 3), "lat": (3, 3, 12, 6)},
                {"top": (2, 4, 5, 6), "lat": (2, 3, 9, 11)}, {"top": (1, 4, 8, 8), "lat": (1, 3, 16, 15)}]
    box = {"box": "nn.Conv2d(4, 4, 1)"}
    attnpool = {"pos": "nn.Parameter(torch.randn(17, 8) * 0.1)", "q": "nn.Linear(8, 8)", "k": "nn.Linear(8, 8)",
                "v": "nn.Linear(8, 8)"}
    return [
        P("swin_shift_mask_int", SWIN_SHIFT_MASK, x=sq, runs=sq_runs,
          why="Swin shifted-window mask from region ids in Python lists of int(H), int(W) entries: 4 windows at 8 x 8"),
        P("swin_relbias_windows", SWIN_RELBIAS, x=sq, runs=sq_runs,
          init={"qkv": "nn.Linear(4, 12)", "table": "nn.Parameter(torch.randn(49, 2))", "index": REL_INDEX},
          why="4 x 4 window attention with a relative-position bias table, windows viewed with the traced sizes"),
        P("kv_cache_offset_int", KV_CACHE.format(P="int(past.size(1))"), x=kv, runs=kv_runs,
          why="attention over a KV cache concatenated to the new keys, causal mask offset by int(P) = 5"),
        P("kv_cache_offset_traced", KV_CACHE.format(P="past.size(1)"), x=kv, runs=kv_runs,
          why="the same cache attention with the offset P from the traced cache length"),
        P("unet_pad_up_to_skip", UNET_PAD_UP, x=pad_x, runs=pad_runs, init=unet_up,
          why="U-Net up block padding the upsampled map to the skip by diffs of x.size() (traced)"),
        P("unet_negpad_crop_int", UNET_NEGPAD_CROP, x=crop_x, runs=crop_runs, init=unet_up,
          why="the skip cropped to the upsampled map by F.pad with negative int() diffs: (0, -1, -1, -1)"),
        P("fpn_repeat_interleave_int", FPN_REPEAT.format(HW="int(lat.size(2)), int(lat.size(3))"), x=fpn_x,
          runs=fpn_runs, init=fpn,
          why="FPN top level upsampled by repeat_interleave(2) twice, cropped to int() lateral sizes 7 x 10"),
        P("fpn_repeat_interleave_like", FPN_REPEAT.format(HW="lat.shape[-2:]"), x=fpn_x, runs=fpn_runs, init=fpn,
          why="the same merge cropped to the lateral's traced sizes"),
        P("box_scale_tensor_of_sizes", BOX_SCALE_TENSOR, runs=eu.IMG_RUNS, init=box,
          why="normalized boxes scaled to pixels by torch.tensor([w * 8, h * 8, w * 8, h * 8]): 80, 64"),
        P("box_scale_mul_sizes", BOX_SCALE_MUL, runs=eu.IMG_RUNS, init=box,
          why="the same boxes, each coordinate multiplied by the traced w * 8 or h * 8"),
        P("yolov3_grid_repeat_int", YOLOV3_GRID, x=sq, runs=[(1, 4, 8, 8), (3, 4, 12, 12), (2, 4, 16, 16),
                                                              (1, 4, 4, 4), (1, 4, 6, 8)],
          init={"pred": "nn.Conv2d(4, 15, 1)"},
          why="YOLOv3 grid arange(g).repeat(g, 1) with g = int(H) = 8 and a float stride 64 / g = 8.0"),
        P("clip_attnpool_table", CLIP_ATTNPOOL, x=(2, 8, 4, 4),
          runs=[(1, 8, 4, 4), (3, 8, 4, 4), (2, 8, 2, 8), (1, 8, 5, 5), (2, 8, 4, 6)], init=attnpool,
          why="CLIP attention pool: mean token prepended, the model's own 17-row position table "
              "(eager needs 16 cells)"),
    ]


# ---------------------------------------------------------------- shape arithmetic

TOLIST_RESHAPE = """
b, t, d = torch.tensor(x.shape).tolist()
y = self.mlp(x.reshape(b * t, d))
return y.view(b, t, -1)
"""

VIEW_AS = """
return self.mlp(x.flatten(0, 1)).view_as(x)
"""

PAD_MAX_LEN = """
y = F.pad(x, (0, 0, 0, 12 - {T}))
return self.mix(y.transpose(1, 2)).transpose(1, 2)
"""

DLRM = """
Z = x @ x.transpose(1, 2)
li, lj = {LILJ}
return torch.cat([x.mean(1), Z[:, li, lj]], 1)
"""

TILE = """
reps = {REPS}
return x + pat.tile(1, reps, 1)[:, :x.size(1)]
"""


def arithmetic_models():
    def P(name, src, x=SEQ, runs=eu.SEQ_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=ARITHMETIC)
    mlp = {"mlp": "nn.Linear(8, 8)"}
    ct, ct_runs = (2, 4, 10), [(1, 4, 10), (3, 2, 7), (2, 4, 16), (1, 3, 23)]
    maxlen_runs = [(1, 5, 8), (3, 7, 8), (2, 12, 8), (4, 1, 8), (1, 13, 8)]
    fields, fields_runs = (2, 4, 8), [(1, 4, 8), (3, 6, 4), (2, 3, 8), (1, 5, 6)]
    logits, logits_runs = (2, 6), [(1, 6), (3, 8), (2, 4), (5, 11)]
    tile_x = {"pat": (2, 3, 8), "x": (2, 7, 8)}
    tile_runs = [{"pat": (1, 3, 8), "x": (1, 7, 8)}, {"pat": (3, 2, 6), "x": (3, 9, 6)},
                 {"pat": (2, 4, 8), "x": (2, 5, 8)}, {"pat": (1, 3, 4), "x": (1, 12, 4)},
                 {"pat": (2, 2, 8), "x": (2, 7, 8)}]
    tril4 = "torch.tril_indices(4, 4, -1)"
    return [
        P("tolist_shape_reshape", TOLIST_RESHAPE, init=mlp,
          why="a per-token MLP on reshape(b * t, d) with b, t, d = torch.tensor(x.shape).tolist(): 10 x 8"),
        P("flatten_view_as", VIEW_AS, init=mlp, why="the same MLP on flatten(0, 1), viewed back with view_as(x)"),
        P("interp_scale_ratio", "F.interpolate(x, scale_factor=float(16 / x.size(-1)), mode='linear')", x=ct,
          runs=ct_runs,
          why="resample to 16 steps by scale_factor=float(16 / T): a factor 1.6 at T = 10"),
        P("interp_fixed_size", "F.interpolate(x, size=16, mode='linear')", x=ct, runs=ct_runs,
          why="resample to the model's 16 steps by size=16"),
        P("pad_to_max_len_int", PAD_MAX_LEN.format(T="int(x.size(1))"), runs=maxlen_runs,
          init={"mix": "nn.Linear(12, 4)"},
          why="pad the frames up to the model's 12 by 12 - int(T) = 7, then a Linear over time"),
        P("pad_to_max_len_traced", PAD_MAX_LEN.format(T="x.size(1)"), runs=maxlen_runs,
          init={"mix": "nn.Linear(12, 4)"}, why="the same pad by 12 - T of the traced length"),
        P("dlrm_tril_indices_int", DLRM.format(LILJ="torch.tril_indices(int(x.size(1)), int(x.size(1)), -1)"),
          x=fields, runs=fields_runs,
          why="DLRM pairwise interactions gathered by tril_indices(int(F), int(F), -1): 6 pairs of 4 fields"),
        P("dlrm_tril_indices_config", DLRM.format(LILJ="self.li, self.lj"), x=fields, runs=fields_runs,
          init={"li": tril4 + "[0]", "lj": tril4 + "[1]"},
          why="the interactions of the model's configured 4 fields, index buffers (eager fails below 4 fields)"),
        P("onehot_num_classes_int", "F.one_hot(x.argmax(-1), int(x.size(-1))).to(x.dtype) * x", x=logits,
          runs=logits_runs, why="keep the top logit by F.one_hot(argmax, num_classes=int(C)): 6 classes"),
        P("onehot_num_classes_size", "F.one_hot(x.argmax(-1), x.size(-1)).to(x.dtype) * x", x=logits,
          runs=logits_runs, why="the same one-hot with num_classes=x.size(-1)"),
        P("tile_math_ceil", TILE.format(REPS="math.ceil(x.size(1) / pat.size(1))"), x=tile_x, runs=tile_runs,
          why="a pattern tiled over a longer input by math.ceil(Ty / Tx) = 3 repeats, cropped to Ty"),
        P("tile_ceil_floordiv", TILE.format(REPS="(x.size(1) + pat.size(1) - 1) // pat.size(1)"), x=tile_x,
          runs=tile_runs,
          why="the same tile count as (Ty + Tx - 1) // Tx of the traced lengths"),
    ]


# ---------------------------------------------------------------- control flow on sizes

TRUNCATE_BRANCH = """
if x.size(1) > 12:
    x = x[:, -12:]
return x + self.pos[-x.size(1):]
"""

TRUNCATE_SLICE = """
x = x[:, -12:]
return x + self.pos[-x.size(1):]
"""

WHILE_HALVING = """
x = self.conv(x)
while x.size(-1) > 4:
    x = F.avg_pool1d(x, 2)
return x
"""

FIXED_LEVELS = """
x = self.conv(x)
for _ in range(2):
    x = F.max_pool1d(x, 2, ceil_mode=True)
return x
"""

PAD_WHEN_NEEDED = """
if x.size(1) % 4:
    x = F.pad(x, (0, 0, 0, 4 - x.size(1) % 4))
return x.view(x.size(0), -1, 4, x.size(2)).amax(2)
"""

PAD_BY_REMAINDER = """
x = torch.cat([x, x.new_zeros(x.size(0), -x.size(1) % 4, x.size(2))], 1)
return x.view(x.size(0), -1, 4, x.size(2)).amax(2)
"""

BATCH_ONE = """
if x.size(0) == 1:
    return self.fc(x[0]).unsqueeze(0)
return self.fc(x)
"""

SPLIT_LOOP = """
outs = []
for c in x.split(4, 1):
    outs.append(c - c.mean(1, keepdim=True))
return torch.cat(outs, 1)
"""

UNFLATTEN_CHUNKS = """
c = x.unflatten(1, (-1, 4))
return (c - c.mean(2, keepdim=True)).flatten(1, 2)
"""

RAISE_ON_WIDTH = """
if x.size(-1) != 8:
    raise ValueError('expected 8 features')
return self.fc(x).relu().mean(1)
"""

SQUARE_PAD = """
s = max(x.size(2), x.size(3))
x = F.pad(x, (0, s - x.size(3), 0, s - x.size(2)))
return self.conv(x)
"""


def control_models():
    def P(name, src, x=SEQ, runs=eu.SEQ_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=CONTROL)
    pos = {"pos": "nn.Parameter(torch.randn(12, 8))"}
    trunc_runs = [(1, 5, 8), (3, 12, 8), (2, 16, 8), (1, 1, 8), (2, 30, 8)]
    conv1d = {"conv": "nn.Conv1d(4, 4, 3, padding=1)"}
    ct, ct_runs = (2, 4, 10), [(1, 4, 10), (3, 4, 7), (2, 4, 20), (1, 4, 3), (2, 4, 40)]
    win_runs = [(1, 8, 8), (3, 6, 8), (2, 12, 4), (1, 5, 6), (2, 16, 8)]
    points = (2, 6, 3)
    return [
        P("truncate_context_branch", TRUNCATE_BRANCH, runs=trunc_runs, init=pos,
          why="keep the last 12 frames when longer, then a 12-row position table aligned to the end: "
              "not taken at T = 5"),
        P("truncate_context_slice", TRUNCATE_SLICE, runs=trunc_runs, init=pos,
          why="the same truncation as an unconditional x[:, -12:] (a slice clamps)"),
        P("while_halving_pool", WHILE_HALVING, x=ct, runs=ct_runs, init=conv1d,
          why="a while loop halving the length by avg_pool1d until it is 4 or less: 2 pools at T = 10"),
        P("fixed_levels_pool", FIXED_LEVELS, x=ct, runs=ct_runs, init=conv1d,
          why="the model's 2 levels of ceil-mode max_pool1d(2) by a loop over range(2)"),
        P("pad_when_needed_branch", PAD_WHEN_NEEDED, x=(2, 8, 8), runs=win_runs,
          why="pad to a multiple of 4 frames only if T % 4, then max over windows of 4: not taken at T = 8"),
        P("pad_by_remainder", PAD_BY_REMAINDER, x=(2, 8, 8), runs=win_runs,
          why="the same windows after concatenating new_zeros of -T % 4 frames, no branch"),
        P("batch_one_fast_path", BATCH_ONE, x=(1, 5, 8), runs=[(1, 5, 8), (3, 5, 8), (2, 7, 8), (1, 1, 8)],
          init={"fc": "nn.Linear(8, 8)"},
          why="a batch-of-one fast path fc(x[0]).unsqueeze(0): taken at the export batch 1"),
        P("split_loop_chunks", SPLIT_LOOP, x=(2, 12, 8), runs=[(1, 12, 8), (3, 7, 8), (2, 16, 6), (1, 10, 8),
                                                               (2, 3, 8)],
          why="each chunk of x.split(4, 1) centred in a Python loop: 3 chunks of 4 at T = 12"),
        P("unflatten_chunks", UNFLATTEN_CHUNKS, x=(2, 12, 8), runs=[(1, 12, 8), (3, 8, 6), (2, 20, 8), (1, 10, 8)],
          why="chunks of 4 frames centred by unflatten(1, (-1, 4)) (eager needs a multiple of 4 too)"),
        P("for_sample_in_batch_sort", "torch.stack([xi[xi[:, 0].argsort()] for xi in x])", x=(2, 6, 3),
          runs=[(1, 6, 3), (3, 6, 3), (2, 9, 2), (4, 3, 5)],
          why="each sample's points sorted by their first coordinate in a loop over the batch (for xi in x)"),
        P("gather_batch_sort", "x.gather(1, x[..., 0].argsort(1)[..., None].expand_as(x))", x=points,
          runs=[(1, 6, 3), (3, 6, 3), (2, 9, 2), (4, 3, 5)],
          why="the same sort for the whole batch by argsort and gather"),
        P("raise_on_width", RAISE_ON_WIDTH, runs=eu.SEQ_RUNS + [(2, 5, 6)], init={"fc": "nn.Linear(8, 4)"},
          why="raise unless 8 features, the Linear's own width (eager fails at other widths too)"),
        P("square_pad_max", SQUARE_PAD, x=(2, 4, 6, 10),
          runs=[(1, 4, 6, 10), (3, 4, 12, 7), (2, 4, 9, 9), (1, 4, 5, 16)], init={"conv": "nn.Conv2d(4, 4, 3)"},
          why="pad to a square of side max(h, w) = 10 at 6 x 10 before a conv"),
        P("topk_k_min_size", "x.topk(min(8, x.size(-1)), -1).values.mean(-1)", x=(2, 6),
          runs=[(1, 6), (3, 10), (2, 4), (5, 8), (1, 12)],
          why="the mean of the top min(8, C) logits: k = C = 6 at the export size"),
    ]


def all_modules():
    return eu.numbered(plumbing_models() + arithmetic_models() + control_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_blind.py", "three", final_before_linting=True)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("blind", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
