#!/usr/bin/env python3
"""Export the "cloaked modules" corpus (tests/corpus/cloaked) and label it by running it.

A sixth corpus built the way tests/corpus/unseen, tests/corpus/fresh, tests/corpus/blind,
tests/corpus/sealed and tests/corpus/veiled are, after all five: small PyTorch modules written for
this corpus alone, in idioms that no other corpus script uses (export_corpus.py, export_torch2.py,
export_classes.py, export_unseen.py, export_fresh.py, export_blind.py, export_sealed.py,
export_veiled.py), each module's code, `why` and family final before the linter was first run on
it, and never used to tune the linter: every module is held out. Three families:

  detection and dense-prediction   YOLOv5's cached grid rebuilt only if grid.shape[2:4] !=
  heads                            p.shape[2:4] (exported at the cached size) against a grid built
                                   every call by broadcasting arange rows and columns;
                                   torchvision's anchor strides torch.empty(()).fill_(img_h //
                                   feat_h); keypoints from a heatmap argmax by idx % w and idx // w;
                                   an integral (soft-argmax) pose normalized by float(w) against
                                   / w; YOLOv8's stride tensor torch.full((h * w, 1), 8.0); mmdet's
                                   pre-NMS top-k only `if 0 < nms_pre < scores.shape[1]`.
  LLM serving plumbing             a rotary cos/sin cache recomputed only if the length exceeds the
                                   cached rows; a rotary table indexed by position ids arange(past,
                                   past + T); Hugging Face's causal mask torch.full of finfo.min,
                                   masked_fill_, and zeros for the past only `if past > 0`; the
                                   dynamic-NTK rotary base rescaled from T when T exceeds the
                                   trained length; the last token by a list index, nanoGPT's [-1]
                                   against [T - 1]; a static KV cache written by slice assignment;
                                   LongLoRA's shifted group attention with a group size
                                   math.floor(T * 0.25) against T // 4; vLLM's CUDA-graph batch
                                   bucket (B if B <= 2, 4 if B <= 4, else a multiple of 8); chunked
                                   prefill by a Python loop over range(0, T, 4).
  speech, audio and video front    ESPnet's subsampled length ((T - 1) // 2 - 1) // 2 for a mask;
  ends                             WeNet's chunk mask by a Python loop over range(T) with min()
                                   against its arange / torch.div(rounding_mode='trunc') form;
                                   frames collected by a Python loop against adjacent half-frame
                                   blocks concatenated; torchaudio's compute_deltas with groups =
                                   the folded batch * channels against the channels folded into the
                                   batch; SlowFast's pathway by index_select of linspace(0, T - 1, T
                                   // 4); ESPnet's relative positions sliced around the table's
                                   centre; an overlap-add by a Python loop of slice += over frames.

About half take a size as a Python number (float(), math.floor, a Python loop or range, min() of a
row bound, a list index, a fill_ value, linspace's end and steps, conv1d's groups) or branch on
one, so that the export can bake it; the others are lookalikes. The serving family's last two
modules were written after the first export, which left that family 4 breaking files (a test wants
5), each final before the linter first ran on it; mmseg's sliding-window inference was dropped
then for the directory's budget alone (DROPPED), its number kept so that no module's dynamo style
moved.

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

DETECTION = "detection and dense-prediction heads"
SERVING = "LLM serving plumbing"
FRONTEND = "speech, audio and video front ends"
FAMILIES = (DETECTION, SERVING, FRONTEND)

SEQ = eu.SEQ  # (2, 5, 8)
SEQ_RUNS = eu.SEQ_RUNS  # D kept (weights)
SEQ_RUNS_D = ec.SEQ_RUNS_D  # no weights: D varies too

# ---------------------------------------------------------------- detection and dense-prediction heads

YOLOV5_HEAD = """
bs, _, ny, nx = x.shape
p = self.m(x).view(bs, 3, 5, ny, nx).permute(0, 1, 3, 4, 2)
{GRID}
xy = (p[..., :2].sigmoid() * 2 - 0.5 + grid) * 8
return torch.cat((xy, p[..., 2:].sigmoid()), -1).view(bs, -1, 5)
"""

CACHED_GRID = """grid = self.grid
if grid.shape[2:4] != p.shape[2:4]:
    yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing='ij')
    grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()"""

BROADCAST_GRID = """gx = torch.arange(nx).expand(ny, nx)
gy = torch.arange(ny)[:, None].expand(ny, nx)
grid = torch.stack((gx, gy), -1).float()"""

# YOLOv5 builds the grid of its default input once; this one is the 8 x 10 map's.
GRID_8X10 = "torch.stack(torch.meshgrid(torch.arange(10.), torch.arange(8.), indexing='xy'), -1)[None, None]"

TV_ANCHORS = """
gh, gw = feat.shape[-2:]
sh = torch.empty((), dtype=torch.int64).fill_(img.size(-2) // gh)
sw = torch.empty((), dtype=torch.int64).fill_(img.size(-1) // gw)
sx = torch.arange(0, gw, dtype=torch.int32) * sw
sy = torch.arange(0, gh, dtype=torch.int32) * sh
yy, xx = torch.meshgrid(sy, sx, indexing='ij')
xx, yy = xx.reshape(-1), yy.reshape(-1)
shifts = torch.stack((xx, yy, xx, yy), 1)
anchors = (shifts.view(-1, 1, 4) + self.base.view(1, -1, 4)).reshape(-1, 4)
deltas = self.reg(feat).permute(0, 2, 3, 1).reshape(feat.size(0), -1, 4)
return anchors[None] + deltas
"""

ARGMAX_DIVMOD = """
heat = self.hm(x).flatten(2)
score, idx = heat.max(-1)
w = x.size(3)
return torch.stack(((idx % w).float(), (idx // w).float(), score), -1)
"""

INTEGRAL_POSE = """
n, _, h, w = x.shape
p = self.hm(x).flatten(2).softmax(-1).view(n, -1, h, w)
xs = (torch.arange(w, dtype=torch.float32) + 0.5) / {W}
ys = (torch.arange(h, dtype=torch.float32) + 0.5) / {H}
return torch.stack(((p.sum(2) * xs).sum(-1), (p.sum(3) * ys).sum(-1)), -1)
"""

SLIDE_INFERENCE = """
n, _, h, w = x.shape
hc, wc, hs, ws = 6, 6, 4, 4
hg = max(h - hc + hs - 1, 0) // hs + 1
wg = max(w - wc + ws - 1, 0) // ws + 1
out = x.new_zeros(n, 3, h, w)
cnt = x.new_zeros(1, 1, h, w)
for i in range(hg):
    for j in range(wg):
        y1, x1 = i * hs, j * ws
        y2, x2 = min(y1 + hc, h), min(x1 + wc, w)
        y1, x1 = max(y2 - hc, 0), max(x2 - wc, 0)
        out += F.pad(self.head(x[:, :, y1:y2, x1:x2]), (x1, w - x2, y1, h - y2))
        cnt[:, :, y1:y2, x1:x2] += 1
return out / cnt
"""

YOLOV8_ANCHORS = """
n, _, h, w = x.shape
sx = torch.arange(w, dtype=torch.float32) + 0.5
sy = torch.arange(h, dtype=torch.float32) + 0.5
sy, sx = torch.meshgrid(sy, sx, indexing='ij')
anchors = torch.stack((sx, sy), -1).view(-1, 2)
strides = torch.full((h * w, 1), 8.0)
lt, rb = self.reg(x).flatten(2).transpose(1, 2).relu().chunk(2, -1)
return torch.cat((anchors - lt, anchors + rb), -1) * strides
"""

NMS_PRE = """
scores = self.cls(x).flatten(1).sigmoid()
boxes = self.box(x).flatten(2).transpose(1, 2)
nms_pre = 64
if 0 < nms_pre < scores.shape[1]:
    scores, idx = scores.topk(nms_pre)
    boxes = boxes.gather(1, idx[..., None].expand(-1, -1, 4))
return torch.cat((boxes, scores[..., None]), -1)
"""


def detection_models():
    def P(name, src, x=eu.IMG, runs=eu.IMG_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=DETECTION)
    yolo = {"m": "nn.Conv2d(4, 15, 1)"}
    hm = {"hm": "nn.Conv2d(4, 3, 1)"}
    imgs = {"img": (2, 3, 32, 40), "feat": (2, 4, 8, 10)}
    # Strides 4 on both axes, and 8, 7 (a floor), 4 x 4 elsewhere.
    img_runs = [{"img": (1, 3, 32, 40), "feat": (1, 4, 8, 10)}, {"img": (3, 3, 36, 28), "feat": (3, 4, 9, 7)},
                {"img": (2, 3, 64, 48), "feat": (2, 4, 8, 6)}, {"img": (1, 3, 20, 84), "feat": (1, 4, 5, 21)},
                {"img": (2, 3, 30, 30), "feat": (2, 4, 4, 4)}]
    base = ("torch.tensor([[-8., -8., 8., 8.], [-11., -6., 11., 6.], [-6., -11., 6., 11.]])")
    return [
        P("yolov5_cached_grid_shape_check", YOLOV5_HEAD.format(GRID=CACHED_GRID), init=dict(yolo, grid=GRID_8X10),
          why="YOLOv5's Detect: the grid built for the default 8 x 10 map is rebuilt from arange(ny), arange(nx) "
              "only if grid.shape[2:4] != p.shape[2:4]; exported at 8 x 10, the branch is not taken"),
        P("yolov5_grid_broadcast_every_call", YOLOV5_HEAD.format(GRID=BROADCAST_GRID), init=yolo,
          why="the same head with the grid built every call from arange(nx) and arange(ny)[:, None] expanded to "
              "(ny, nx) of the traced sizes"),
        P("torchvision_anchor_strides_fill", TV_ANCHORS, x=imgs, runs=img_runs,
          init={"reg": "nn.Conv2d(4, 12, 1)", "base": base},
          why="torchvision's AnchorGenerator: strides torch.empty((), dtype=torch.int64).fill_(img_h // feat_h) "
              "(4 and 4 at 32 x 40 over 8 x 10), shifts arange(feat_w) * stride, 3 base anchors per cell, plus "
              "the regressed deltas"),
        P("keypoint_argmax_div_mod", ARGMAX_DIVMOD, init=hm,
          why="SimpleBaseline keypoints: each heatmap's argmax over h * w split into x = idx % w and "
              "y = idx // w of the traced width (10), with the peak score"),
        P("integral_pose_float_norm", INTEGRAL_POSE.format(W="float(w)", H="float(h)"), init=hm,
          why="integral (soft-argmax) pose: softmax over each heatmap, expected x and y over cell centres "
              "normalized by float(w) and float(h), Python floats 10.0 and 8.0 at the export size"),
        P("integral_pose_divide_traced", INTEGRAL_POSE.format(W="w", H="h"), init=hm,
          why="the same soft-argmax with the centres divided by the traced w and h"),
        P("mmseg_slide_inference_loops", SLIDE_INFERENCE, runs=eu.IMG_RUNS + [(2, 4, 5, 5)],
          init={"head": "nn.Conv2d(4, 3, 3, padding=1)"},
          why="mmseg's slide inference: 6 x 6 crops at stride 4, window counts and clamped bounds by Python "
              "max/min, loops over 2 x 2 windows at 8 x 10, logits F.pad-ded back and averaged by a count map"),
        P("yolov8_stride_tensor_full", YOLOV8_ANCHORS, init={"reg": "nn.Conv2d(4, 4, 1)"},
          why="YOLOv8's make_anchors: cell-centre anchor points and a stride tensor torch.full((h * w, 1), 8.0) of "
              "the traced sizes, ltrb distances decoded to boxes"),
        P("mmdet_nms_pre_topk_branch", NMS_PRE, runs=eu.IMG_RUNS + [(2, 4, 5, 6)],
          init={"cls": "nn.Conv2d(4, 1, 1)", "box": "nn.Conv2d(4, 4, 1)"},
          why="mmdet's pre-NMS selection: the top 64 candidates only `if 0 < nms_pre < scores.shape[1]`, taken at "
              "80 cells (8 x 10); below 64 cells eager keeps every candidate"),
    ]


# ---------------------------------------------------------------- LLM serving plumbing

ROPE_APPLY = """
x1, x2 = x.chunk(2, -1)
return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
"""

ROPE_EXTEND = """
t = x.size(1)
if t > self.cos.size(0):
    f = torch.arange(t, dtype=torch.float32)[:, None] * self.inv_freq
    cos, sin = f.cos(), f.sin()
else:
    cos, sin = self.cos[:t], self.sin[:t]
""" + ROPE_APPLY

ROPE_POSITION_IDS = """
p = past.size(1)
pos = torch.arange(p, p + x.size(1))
cos, sin = self.cos[pos], self.sin[pos]
x1, x2 = x.chunk(2, -1)
q = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
kv = torch.cat([past, q], 1)
return (q @ kv.transpose(1, 2) * 0.35).softmax(-1) @ kv
"""

HF_CAUSAL_MASK = """
t, p = x.size(1), past.size(1)
mask = torch.full((t, t), torch.finfo(x.dtype).min)
cond = torch.arange(mask.size(-1))
mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
if p > 0:
    mask = torch.cat([torch.zeros(t, p), mask], dim=-1)
kv = torch.cat([past, x], 1)
return (x @ kv.transpose(1, 2) * 0.35 + mask).softmax(-1) @ kv
"""

DYNAMIC_NTK = """
t = x.size(1)
base = 10000.0
if t > 8:
    base = base * ((2.0 * t / 8) - 1) ** (8 / 6)
inv_freq = 1.0 / (base ** (torch.arange(0, 8, 2, dtype=torch.float32) / 8))
f = torch.arange(t, dtype=torch.float32)[:, None] * inv_freq
cos, sin = f.cos(), f.sin()
""" + ROPE_APPLY

STATIC_CACHE = """
b, t, d = x.shape
p = past.size(1)
cache = x.new_zeros(b, 16, d)
cache[:, :p] = past
cache[:, p:p + t] = x
kv = cache[:, :p + t]
return (x @ kv.transpose(1, 2) * 0.35).softmax(-1) @ kv
"""

LONGLORA = """
b, t, d = x.shape
g = {G}
s = g // 2
h = x.view(b, t, 2, d // 2).transpose(1, 2)
h = torch.cat([h[:, :1], torch.cat([h[:, 1:, s:], h[:, 1:, :s]], 2)], 1)
q = h.reshape(b * 2 * (t // g), g, d // 2)
a = ((q @ q.transpose(1, 2)) * 0.5).softmax(-1) @ q
a = a.view(b, 2, t, d // 2)
a = torch.cat([a[:, :1], torch.cat([a[:, 1:, t - s:], a[:, 1:, :t - s]], 2)], 1)
return a.transpose(1, 2).reshape(b, t, d)
"""

ROPE_INV_FREQ = "1.0 / 10000 ** (torch.arange(0, 8, 2).float() / 8)"

VLLM_BUCKET = """
b = x.size(0)
if b <= 2:
    n = b
elif b <= 4:
    n = 4
else:
    n = (b + 7) // 8 * 8
y = self.mlp(F.pad(x, (0, 0, 0, n - b)))
return y[:b]
"""

CHUNKED_PREFILL = """
t = x.size(1)
kv = x[:, :0]
outs = []
for s in range(0, t, 4):
    q = x[:, s:s + 4]
    kv = torch.cat([kv, q], 1)
    mask = torch.ones(q.size(1), kv.size(1), dtype=torch.bool).tril(kv.size(1) - q.size(1))
    a = (q @ kv.transpose(1, 2) * 0.35).masked_fill(~mask, float('-inf')).softmax(-1)
    outs.append(a @ kv)
return torch.cat(outs, 1)
"""


def serving_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=SERVING)
    rope8 = {"inv_freq": ROPE_INV_FREQ,
             "cos": "torch.cos(torch.arange(8.)[:, None] * (%s))" % ROPE_INV_FREQ,
             "sin": "torch.sin(torch.arange(8.)[:, None] * (%s))" % ROPE_INV_FREQ}
    rope16 = {"cos": "torch.cos(torch.arange(16.)[:, None] * (%s))" % ROPE_INV_FREQ,
              "sin": "torch.sin(torch.arange(16.)[:, None] * (%s))" % ROPE_INV_FREQ}
    cached = {"x": (2, 5, 8), "past": (2, 3, 8)}
    # Past lengths 0 (prefill) and 1, totals up to the 16 rows; the last total (20) past them.
    cached_runs = [{"x": (1, 5, 8), "past": (1, 3, 8)}, {"x": (3, 2, 8), "past": (3, 9, 8)},
                   {"x": (2, 7, 8), "past": (2, 0, 8)}, {"x": (1, 1, 8), "past": (1, 12, 8)},
                   {"x": (2, 4, 8), "past": (2, 1, 8)}, {"x": (2, 10, 8), "past": (2, 10, 8)}]
    cached_runs_d = [{"x": (1, 5, 8), "past": (1, 3, 8)}, {"x": (3, 2, 6), "past": (3, 9, 6)},
                     {"x": (2, 7, 8), "past": (2, 0, 8)}, {"x": (1, 1, 8), "past": (1, 1, 8)},
                     {"x": (4, 12, 10), "past": (4, 4, 10)}]
    static_runs = [{"x": (1, 5, 8), "past": (1, 3, 8)}, {"x": (3, 2, 6), "past": (3, 9, 6)},
                   {"x": (2, 7, 8), "past": (2, 0, 8)}, {"x": (1, 1, 8), "past": (1, 12, 8)},
                   {"x": (2, 10, 8), "past": (2, 10, 8)}]
    ntk_runs = [(1, 12, 8), (3, 9, 8), (2, 16, 8), (1, 5, 8), (2, 3, 8), (1, 8, 8)]
    group_x = (2, 8, 8)
    group_runs = [(1, 8, 8), (3, 12, 8), (2, 16, 6), (1, 4, 8), (2, 10, 8), (1, 9, 8)]
    head = {"head": "nn.Linear(8, 10)"}
    return [
        P("rope_cache_extend_branch", ROPE_EXTEND, runs=SEQ_RUNS + [(1, 9, 8)], init=rope8,
          why="a rotary cos/sin cache of 8 positions, recomputed from arange(T) only if T > self.cos.size(0) and "
              "sliced [:T] otherwise: not taken at T = 5, taken at T = 9 and 12"),
        P("rope_table_index_position_ids", ROPE_POSITION_IDS, x=cached, runs=cached_runs, init=rope16,
          why="a 16-row rotary table indexed by position ids arange(past, past + T), the new keys rotated and "
              "attended with the cached ones (eager fails past 16 positions)"),
        P("hf_causal_mask_finfo_past_branch", HF_CAUSAL_MASK, x=cached, runs=cached_runs_d,
          why="Hugging Face's _make_causal_mask: torch.full((T, T), finfo.min), masked_fill_ of the lower "
              "triangle, zeros(T, past) prepended only if past > 0 (taken at past 3; the arms agree at 0)"),
        P("dynamic_ntk_rope_base_branch", DYNAMIC_NTK, x=(2, 12, 8), runs=ntk_runs,
          why="dynamic-NTK rotary scaling: the base rescaled by ((2 T / 8) - 1) ** (8 / 6) only if T > 8, the "
              "trained length; exported at T = 12, where the branch is taken"),
        P("nanogpt_last_token_list_minus1", "self.head(x[:, [-1], :])", runs=SEQ_RUNS + [(2, 16, 8)], init=head,
          why="nanoGPT's inference: logits of the last position only, x[:, [-1], :] keeping the time axis"),
        P("last_token_list_index_len", "self.head(x[:, [x.size(1) - 1], :])", runs=SEQ_RUNS + [(2, 16, 8)],
          init=head,
          why="the same last position as a list index [x.size(1) - 1] computed in Python: [4] at T = 5"),
        P("static_kv_cache_slice_assign", STATIC_CACHE, x=cached, runs=static_runs,
          why="a static KV cache of 16 slots: cache[:, :past] = past, cache[:, past:past + T] = x by slice "
              "assignment, attention over cache[:, :past + T] (eager fails past 16 slots)"),
        P("longlora_group_size_math_floor", LONGLORA.format(G="math.floor(t * 0.25)"), x=group_x, runs=group_runs,
          why="LongLoRA's shifted sparse attention: groups of g = math.floor(T * 0.25) tokens (2 at T = 8), half "
              "the features shifted by g // 2; eager needs T a multiple of g"),
        P("longlora_group_size_floordiv", LONGLORA.format(G="t // 4"), x=group_x, runs=group_runs,
          why="the same grouping with g = T // 4 of the traced length"),
    ]


def serving_models_added():
    """Two serving modules written after the first export, which left the family 4 breaking files
    (three dynamo exports failed): final before the linter first ran on them, numbered after the
    others so that no earlier module's number (its dynamo style) moved."""
    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=SERVING)
    return [
        P("vllm_cuda_graph_batch_bucket", VLLM_BUCKET, x=(3, 8),
          runs=[(1, 8), (2, 8), (4, 8), (7, 8), (12, 8), (16, 8)], init={"mlp": "nn.Linear(8, 8)"},
          why="vLLM's _get_graph_batch_size: the decode batch padded to a captured size (B if B <= 2, 4 if "
              "B <= 4, else the next multiple of 8), a Linear, the padding rows sliced off; at the export "
              "batch 3 the captured size is 4"),
        P("chunked_prefill_range_loop", CHUNKED_PREFILL, x=(2, 10, 8),
          runs=[(1, 10, 8), (3, 7, 6), (2, 13, 8), (1, 1, 8), (4, 16, 10), (2, 24, 8)],
          why="chunked prefill: the prompt attended in chunks of 4 by a Python loop over range(0, T, 4), each "
              "chunk against the keys so far under ones(n, S).tril(S - n): 3 chunks at T = 10"),
    ]


# ---------------------------------------------------------------- speech, audio and video front ends

ESPNET_SUBSAMPLE = """
b, t, f = x.shape
y = F.relu(self.c2(F.relu(self.c1(x.unsqueeze(1)))))
y = self.out(y.transpose(1, 2).flatten(2))
t_out = ((t - 1) // 2 - 1) // 2
mask = torch.ones(t_out, t_out, dtype=torch.bool).tril()
s = (y @ y.transpose(1, 2) * 0.35).masked_fill(~mask, float('-inf'))
return s.softmax(-1) @ y
"""

CHUNK_ATTEND = """
s = (x @ x.transpose(1, 2) * 0.35).masked_fill(~mask, float('-inf'))
return s.softmax(-1) @ x
"""

WENET_CHUNK_LOOP = """
t = x.size(1)
mask = torch.zeros(t, t, dtype=torch.bool)
for i in range(t):
    ending = min((i // 4 + 1) * 4, t)
    mask[i, 0:ending] = True
""" + CHUNK_ATTEND

WENET_CHUNK_ARANGE = """
pos = torch.arange(x.size(1))
limit = (torch.div(pos, 4, rounding_mode='trunc') + 1) * 4
mask = pos.unsqueeze(0) < limit.unsqueeze(1)
""" + CHUNK_ATTEND

FRAMES_LOOP = """
b, n = wav.shape
frames = []
for i in range((n - 16) // 8 + 1):
    frames.append(wav[:, i * 8:i * 8 + 16])
return torch.stack(frames, 1) * self.win
"""

FRAMES_HALF_BLOCKS = """
b, n = wav.shape
blocks = wav[:, :n // 8 * 8].view(b, -1, 8)
return torch.cat([blocks[:, :-1], blocks[:, 1:]], -1) * self.win
"""

DELTAS_GROUPS = """
y = x.reshape(1, -1, x.size(-1))
n = 2
denom = n * (n + 1) * (2 * n + 1) / 3
y = F.pad(y, (n, n), mode='replicate')
kernel = torch.arange(-n, n + 1, dtype=x.dtype).repeat(y.shape[1], 1, 1)
return (F.conv1d(y, kernel, groups=y.shape[1]) / denom).reshape(x.shape)
"""

DELTAS_BATCH = """
y = x.reshape(-1, 1, x.size(-1))
n = 2
denom = n * (n + 1) * (2 * n + 1) / 3
y = F.pad(y, (n, n), mode='replicate')
kernel = torch.arange(-n, n + 1, dtype=x.dtype).view(1, 1, -1)
return (F.conv1d(y, kernel) / denom).reshape(x.shape)
"""

SLOWFAST = """
t = x.size(2)
slow = torch.index_select(x, 2, torch.linspace(0, t - 1, t // 4).long())
return slow.mean((3, 4))
"""

RELPOS_CENTRE = """
t = x.size(1)
c = self.pe.size(1) // 2
pos = self.pe[:, c - t + 1:c + t]
return (x @ pos.transpose(1, 2) * 0.35).softmax(-1)
"""

OVERLAP_ADD = """
b, n, w = frames.shape
y = frames.new_zeros(b, (n - 1) * 8 + w)
for i in range(n):
    y[:, i * 8:i * 8 + w] += frames[:, i] * self.win
return y
"""


def frontend_models():
    def P(name, src, x=SEQ, runs=SEQ_RUNS_D, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=FRONTEND)
    spec, spec_runs = (2, 20, 8), [(1, 20, 8), (3, 33, 8), (2, 7, 8), (4, 50, 8), (1, 9, 8)]
    subsample = {"c1": "nn.Conv2d(1, 4, 3, 2)", "c2": "nn.Conv2d(4, 4, 3, 2)", "out": "nn.Linear(4, 8)"}
    chunk, chunk_runs = (2, 10, 8), [(1, 10, 8), (3, 7, 6), (2, 13, 8), (4, 4, 10), (1, 1, 8)]
    wav = {"wav": (2, 40)}
    # On the hop (40, 64) and off it (23, 100), down to one frame (16).
    wav_runs = [{"wav": (1, 40)}, {"wav": (3, 64)}, {"wav": (2, 23)}, {"wav": (1, 100)}, {"wav": (2, 16)}]
    hann = {"win": "torch.hann_window(16)"}
    ct, ct_runs = (2, 4, 10), [(1, 4, 10), (3, 4, 7), (2, 6, 12), (4, 3, 23), (2, 4, 2)]
    video = (2, 3, 8, 4, 5)
    video_runs = [(1, 3, 8, 4, 5), (3, 3, 12, 4, 4), (2, 2, 16, 3, 3), (1, 3, 4, 6, 6), (2, 3, 9, 2, 2)]
    frames = {"frames": (2, 4, 16)}
    frames_runs = [{"frames": (1, 4, 16)}, {"frames": (3, 6, 16)}, {"frames": (2, 2, 16)},
                   {"frames": (1, 9, 16)}, {"frames": (2, 1, 16)}]
    return [
        P("espnet_subsample_len_formula", ESPNET_SUBSAMPLE, x=spec, runs=spec_runs, init=subsample,
          why="ESPnet's Conv2dSubsampling4 (two 3 x 3 stride-2 convs), then a causal mask "
              "torch.ones(t_out, t_out).tril() with t_out = ((T - 1) // 2 - 1) // 2 computed in Python: 4 at T = 20"),
        P("wenet_chunk_mask_python_loop", WENET_CHUNK_LOOP, x=chunk, runs=chunk_runs,
          why="WeNet's subsequent_chunk_mask: rows of zeros(T, T) set True up to min((i // 4 + 1) * 4, T) in a "
              "Python loop over range(T), 10 rows at T = 10, then chunk-causal attention"),
        P("wenet_chunk_mask_arange_div", WENET_CHUNK_ARANGE, x=chunk, runs=chunk_runs,
          why="the same chunk mask vectorized as WeNet writes it now: arange(T) < (torch.div(arange(T), 4, "
              "rounding_mode='trunc') + 1) * 4"),
        P("frames_python_loop_stack", FRAMES_LOOP, x=wav, runs=wav_runs, init=hann,
          why="16-sample frames at hop 8 sliced in a Python loop over range((n - 16) // 8 + 1), 4 frames at "
              "n = 40, stacked and Hann-windowed (eager fails below 16 samples)"),
        P("frames_adjacent_half_blocks", FRAMES_HALF_BLOCKS, x=wav, runs=wav_runs, init=hann,
          why="the same frames as neighbouring 8-sample blocks of view(b, -1, 8) concatenated, "
              "cat([blocks[:, :-1], blocks[:, 1:]], -1), Hann-windowed"),
        P("torchaudio_deltas_groups_batch_channels", DELTAS_GROUPS, x=ct, runs=ct_runs,
          why="torchaudio's compute_deltas: (B, C, T) reshaped to (1, B * C, T), replicate pad, conv1d by "
              "arange(-2, 3) repeated and groups = B * C (8 at the export size)"),
        P("deltas_channels_into_batch", DELTAS_BATCH, x=ct, runs=ct_runs,
          why="the same deltas with batch and channels folded into the batch, reshape(-1, 1, T), and one kernel"),
        P("slowfast_pack_pathway_linspace", SLOWFAST, x=video, runs=video_runs,
          why="SlowFast's PackPathway: the slow frames by index_select of linspace(0, T - 1, T // 4).long(), "
              "2 of 8 frames at T = 8 (frames 0 and 7), then pooled over space"),
        P("espnet_relpos_centre_slice", RELPOS_CENTRE, runs=SEQ_RUNS + [(2, 16, 8)],
          init={"pe": "torch.randn(1, 31, 8)"},
          why="ESPnet's RelPositionalEncoding: the 2 T - 1 relative positions sliced around the table's centre, "
              "pe[:, c - T + 1:c + T] with c = 15, scored against each frame"),
        P("istft_overlap_add_loop", OVERLAP_ADD, x=frames, runs=frames_runs, init=hann,
          why="iSTFT-style overlap-add: windowed 16-sample frames added at hop 8 by y[:, i * 8:i * 8 + 16] += in a "
              "Python loop over range(n), into new_zeros(b, (n - 1) * 8 + 16): 4 frames, 40 samples"),
    ]


# Dropped after the first export, for the directory's budget alone (before any linter output was
# read): its two files, labels and intermediate shapes were about 300 KB, a third of MAX_DIR.
DROPPED = {"mmseg_slide_inference_loops"}


def all_modules():
    # Numbered in the order written, so that each module keeps its dynamo style.
    mods = eu.numbered(detection_models() + serving_models() + frontend_models() + serving_models_added())
    return [e for e in mods if e["name"] not in DROPPED]


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_cloaked.py", "three", final_before_linting=True)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("cloaked", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
