#!/usr/bin/env python3
"""Export the "shrouded modules" corpus (tests/corpus/shrouded) and label it by running it.

A seventh corpus built the way tests/corpus/unseen, tests/corpus/fresh, tests/corpus/blind,
tests/corpus/sealed, tests/corpus/veiled and tests/corpus/cloaked are, after all six: small PyTorch
modules written for this corpus alone, in idioms that no other corpus script uses (export_corpus.py,
export_torch2.py, export_classes.py, export_unseen.py, export_fresh.py, export_blind.py,
export_sealed.py, export_veiled.py, export_cloaked.py), each module's code, `why` and family final
before the linter was first run on it, and never used to tune the linter: every module is held out.
Three families:

  multi-input length arithmetic    a KV cache's causal mask by torch.full_like(scores, -inf).triu(P
                                   + 1); a rolling KV window sliced from max(P + T - 4, 0) by
                                   Python's max against the negative slice [:, -4:]; vision-language
                                   tokens, image patches placed on a side = math.isqrt(N) grid
                                   against the grid of the feature map, with text positions after
                                   the patch rows, all looked up by F.embedding; monotonic
                                   cross-attention over encoder frames, the bias added by
                                   torch.baddbmm, with the ratio float(S) / T against the integer
                                   comparison j * T <= (i + 1) * S; streaming gain control whose
                                   running peak over a left-context cache and the chunk is taken by
                                   a Python loop of torch.max against a masked amax; speculative
                                   decoding's verification positions gathered by take_along_dim of
                                   torch.tensor(range(T - 1, T + K)) against arange(K + 1) + T - 1.
  segmentation and restoration     an upsampler by nn.PixelShuffle(r) built in forward with r the
  decoders                         ratio of a target's height to the input's against a depth-to-space
                                   view by the same ratio; a restoration self-ensemble of rot90
                                   quarter turns only if h == w against every quarter turn; tiled
                                   inference by a Python loop over range(0, W, 4) and index_add
                                   against the tiles folded into the batch by movedim; a
                                   super-resolution zoom by F.affine_grid to int(h * 1.5) against 2 *
                                   h; alignment to a reference by interpolate to the sizes of
                                   torch._shape_as_tensor read by .item() against nn.Upsample built
                                   with size=ref.shape[-2:].
  tabular, recommendation and      a GNN's mean aggregation by index_add over the nodes; a dense
  graph models                     adjacency torch.zeros(n, n).index_put(..., accumulate=True) with n
                                   = int(x.shape[0]) against x.shape[0]; a kNN radius by kthvalue
                                   with k = round(N ** 0.5) against the configured k; farthest point
                                   sampling of N // 2 points by a Python loop over new_full distances
                                   and torch.minimum against the configured number of points; DLRM's
                                   pairwise interactions by torch.triu_indices(F, F, 1) against
                                   masked_select of an arange comparison; TabTransformer's column
                                   offsets into a shared table by arange(C) * 4 against
                                   torch.tensor of a list over range(C).

About half take a size as a Python number (Python's max, math.isqrt, float(), a Python loop or
range, an if, torch.tensor of a range or of a list, nn.PixelShuffle's factor, int() of a scaled size,
.item(), kthvalue's k, triu_indices' sizes) or branch on one, so that the export can bake it; the
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

MULTI = "multi-input length arithmetic"
DECODERS = "segmentation and restoration decoders"
TABULAR = "tabular, recommendation and graph models"
FAMILIES = (MULTI, DECODERS, TABULAR)

# ---------------------------------------------------------------- multi-input length arithmetic

KV_FULL_LIKE_TRIU = """
p = past.size(1)
kv = torch.cat([past, x], 1)
s = x @ kv.transpose(1, 2) * 0.35
s = s + torch.full_like(s, float('-inf')).triu(p + 1)
return s.softmax(-1) @ kv
"""

ROLLING_WINDOW = """
kv = torch.cat([past, x], 1)
kv = kv{SLICE}
return (x @ kv.transpose(1, 2) * 0.35).softmax(-1) @ kv
"""

VL_ISQRT = """
n, t = img.size(1), txt.size(1)
side = math.isqrt(n)
pos = torch.arange(n)
rows = F.embedding(pos // side, self.row)
cols = F.embedding(pos % side, self.col)
tpos = F.embedding(torch.arange(side, side + t), self.row)
return torch.cat([img + rows + cols, txt + tpos], 1)
"""

VL_FEATURE_MAP = """
h, w = fmap.shape[-2:]
img = fmap.flatten(2).transpose(1, 2)
pos = torch.arange(h * w)
rows = F.embedding(pos // w, self.row)
cols = F.embedding(pos % w, self.col)
tpos = F.embedding(torch.arange(h, h + txt.size(1)), self.row)
return torch.cat([img + rows + cols, txt + tpos], 1)
"""

MONOTONIC = """
t, s = x.size(1), enc.size(1)
{ALLOWED}
bias = torch.zeros(t, s).masked_fill(~allowed, float('-inf'))
a = torch.baddbmm(bias.expand(x.size(0), t, s), x, enc.transpose(1, 2), alpha=0.35)
return a.softmax(-1) @ enc
"""

MONOTONIC_FLOAT = """r = float(s) / t
allowed = torch.arange(s)[None] <= (torch.arange(t)[:, None] + 1) * r"""

MONOTONIC_INT = "allowed = torch.arange(s)[None] * t <= (torch.arange(t)[:, None] + 1) * s"

AGC_LOOP = """
c = cache.size(1)
seq = torch.cat([cache, x], 1).abs()
peak = torch.full_like(seq[:, 0], 1e-3)
outs = []
for i in range(c + x.size(1)):
    peak = torch.max(peak, seq[:, i])
    if i >= c:
        outs.append(x[:, i - c] / peak)
return torch.stack(outs, 1)
"""

AGC_MASKED_AMAX = """
c, t = cache.size(1), x.size(1)
seq = torch.cat([cache, x], 1).abs().clamp(min=1e-3)
seen = torch.arange(c + t)[None] <= torch.arange(c, c + t)[:, None]
peak = (seq[:, None] * seen[None, :, :, None]).amax(2)
return x / peak
"""

SPECULATIVE = """
t, k = x.size(1), draft.size(1)
h = torch.cat([x, draft], 1)
idx = {IDX}
return self.head(torch.take_along_dim(h, idx[None, :, None], 1))
"""


def multi_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=MULTI)
    kv = {"x": (2, 5, 8), "past": (2, 3, 8)}
    # Totals P + T from 1 to 13, past 0 (prefill) among them; 3 (2 + 1) is below the window of 4.
    kv_runs = [{"x": (1, 5, 8), "past": (1, 3, 8)}, {"x": (3, 2, 6), "past": (3, 1, 6)},
               {"x": (2, 7, 8), "past": (2, 0, 8)}, {"x": (1, 1, 10), "past": (1, 12, 10)},
               {"x": (4, 3, 8), "past": (4, 9, 8)}, {"x": (2, 1, 8), "past": (2, 1, 8)}]
    agc = {"x": (2, 5, 8), "cache": (2, 3, 8)}
    agc_runs = [{"x": (1, 5, 8), "cache": (1, 3, 8)}, {"x": (3, 2, 6), "cache": (3, 1, 6)},
                {"x": (2, 7, 8), "cache": (2, 0, 8)}, {"x": (1, 1, 10), "cache": (1, 12, 10)},
                {"x": (4, 3, 8), "cache": (4, 9, 8)}]
    tables = {"row": "torch.randn(32, 8)", "col": "torch.randn(32, 8)"}
    vl = {"img": (2, 9, 8), "txt": (2, 5, 8)}
    # Square patch counts 4, 16, 1 and one that is not (6).
    vl_runs = [{"img": (1, 9, 8), "txt": (1, 5, 8)}, {"img": (3, 4, 8), "txt": (3, 7, 8)},
               {"img": (2, 16, 8), "txt": (2, 2, 8)}, {"img": (1, 1, 8), "txt": (1, 3, 8)},
               {"img": (2, 6, 8), "txt": (2, 5, 8)}]
    fmap = {"fmap": (2, 8, 3, 3), "txt": (2, 5, 8)}
    fmap_runs = [{"fmap": (1, 8, 3, 3), "txt": (1, 5, 8)}, {"fmap": (3, 8, 2, 2), "txt": (3, 7, 8)},
                 {"fmap": (2, 8, 4, 4), "txt": (2, 2, 8)}, {"fmap": (1, 8, 1, 1), "txt": (1, 3, 8)},
                 {"fmap": (2, 8, 2, 3), "txt": (2, 5, 8)}]
    cross = {"x": (2, 5, 8), "enc": (2, 10, 8)}
    # Encoder/decoder ratios 2, 7 / 3, 7 / 2, 3, 4 / 7 and 9 / 4: no (i + 1) * S / T short of S is a
    # whole number unless the ratio is one.
    cross_runs = [{"x": (1, 5, 8), "enc": (1, 10, 8)}, {"x": (3, 3, 8), "enc": (3, 7, 8)},
                  {"x": (2, 2, 6), "enc": (2, 7, 6)}, {"x": (1, 1, 8), "enc": (1, 3, 8)},
                  {"x": (2, 7, 10), "enc": (2, 4, 10)}, {"x": (4, 4, 8), "enc": (4, 9, 8)}]
    spec = {"x": (2, 5, 8), "draft": (2, 3, 8)}
    spec_runs = [{"x": (1, 5, 8), "draft": (1, 3, 8)}, {"x": (3, 2, 8), "draft": (3, 4, 8)},
                 {"x": (2, 7, 8), "draft": (2, 1, 8)}, {"x": (1, 1, 8), "draft": (1, 6, 8)},
                 {"x": (4, 9, 8), "draft": (4, 2, 8)}, {"x": (2, 4, 8), "draft": (2, 0, 8)}]
    head = {"head": "nn.Linear(8, 10)"}
    return [
        P("kv_mask_full_like_triu_past", KV_FULL_LIKE_TRIU, kv, kv_runs,
          why="a KV cache's causal mask: torch.full_like(scores, -inf).triu(P + 1) over the P + T keys, P the "
              "past's length read from the tensor, added to the scores of the new tokens"),
        P("rolling_kv_window_python_max", ROLLING_WINDOW.format(SLICE="[:, max(kv.size(1) - 4, 0):]"), kv, kv_runs,
          why="a rolling KV cache keeping the last 4 of the P + T positions, sliced from max(P + T - 4, 0) by "
              "Python's max (4 at 3 + 5); below 4 positions eager keeps them all"),
        P("rolling_kv_window_negative_slice", ROLLING_WINDOW.format(SLICE="[:, -4:]"), kv, kv_runs,
          why="the same rolling window as the negative slice [:, -4:], which keeps every position below 4"),
        P("vl_patch_grid_isqrt_side", VL_ISQRT, vl, vl_runs, init=tables,
          why="vision-language tokens: N image patches on a grid of side math.isqrt(N) (3 at N = 9), row "
              "pos // side and column pos % side looked up by F.embedding, the text tokens positioned from "
              "side on, patches and text concatenated"),
        P("vl_patch_grid_feature_map", VL_FEATURE_MAP, fmap, fmap_runs, init=tables,
          why="the same 2-D positions for patches flattened from an h x w feature map, rows pos // w and columns "
              "pos % w of its traced sizes, text positioned from h on"),
        P("cross_attn_monotonic_float_ratio", MONOTONIC.format(ALLOWED=MONOTONIC_FLOAT), cross, cross_runs,
          why="monotonic cross-attention: decoder step i sees encoder frames j <= (i + 1) * r with r = float(S) / "
              "T through a Python float (S = 10 at the export size), the -inf bias added by torch.baddbmm"),
        P("cross_attn_monotonic_integer_compare", MONOTONIC.format(ALLOWED=MONOTONIC_INT), cross, cross_runs,
          why="the same monotonic mask compared in integers, j * T <= (i + 1) * S, of the traced lengths"),
        P("streaming_gain_peak_python_loop", AGC_LOOP, agc, agc_runs,
          why="streaming gain control: each chunk frame divided by the running peak of |x| over a left-context "
              "cache and the frames so far, a Python loop over range(C + T) (8 steps) of torch.max with an if "
              "i >= C picking the chunk's frames"),
        P("streaming_gain_peak_masked_amax", AGC_MASKED_AMAX, agc, agc_runs,
          why="the same running peak as an amax over cache and chunk masked by arange(C + T) <= arange(C, C + T) "
              "of the traced lengths"),
        P("speculative_verify_tensor_range", SPECULATIVE.format(IDX="torch.tensor(range(t - 1, t + k))"), spec,
          spec_runs, init=head,
          why="speculative decoding's verification: the target's logits at the last context position and the K "
              "draft positions, gathered by take_along_dim of torch.tensor(range(T - 1, T + K)) (4 .. 7 at "
              "T = 5, K = 3)"),
        P("speculative_verify_arange_offset", SPECULATIVE.format(IDX="torch.arange(k + 1) + (t - 1)"), spec,
          spec_runs, init=head,
          why="the same verification positions as arange(K + 1) + (T - 1) of the traced lengths"),
    ]


# ---------------------------------------------------------------- segmentation and restoration decoders

PIXELSHUFFLE_RATIO = """
r = ref.size(2) // x.size(2)
y = nn.PixelShuffle(r)(x)
return y.mean(1, keepdim=True) + ref
"""

DEPTH_TO_SPACE_RATIO = """
b, c, h, w = x.shape
r = ref.size(2) // h
y = x.view(b, c // (r * r), r, r, h, w).permute(0, 1, 4, 2, 5, 3).reshape(b, -1, h * r, w * r)
return y.mean(1, keepdim=True) + ref
"""

SELF_ENSEMBLE = """
{KS}
out = 0
for k in ks:
    out = out + torch.rot90(self.conv(torch.rot90(x, k, (2, 3))), -k, (2, 3))
return out / len(ks)
"""

SQUARE_ONLY = """h, w = x.shape[-2:]
ks = (0, 1, 2, 3) if h == w else (0, 2)"""

TILES_LOOP = """
b, c, h, w = x.shape
out = x.new_zeros(b, 3, h, w)
for x0 in range(0, w, 4):
    y = self.conv(x[..., x0:x0 + 4])
    out = out.index_add(3, torch.arange(x0, x0 + y.size(3)), y)
return out
"""

TILES_BATCH = """
b, c, h, w = x.shape
t = x.view(b, c, h, w // 4, 4).movedim(3, 1).reshape(-1, c, h, 4)
y = self.conv(t)
return y.view(b, w // 4, -1, h, 4).movedim(1, 3).reshape(b, -1, h, w)
"""

AFFINE_ZOOM = """
b, c, h, w = x.shape
grid = F.affine_grid(self.theta.expand(b, 2, 3), [b, c, {H}, {W}], align_corners=False)
return self.conv(F.grid_sample(x, grid, mode='bilinear', align_corners=False))
"""

ALIGN_ITEM = """
hw = torch._shape_as_tensor(ref)[2:]
up = F.interpolate(x, size=(hw[0].item(), hw[1].item()), mode='bilinear', align_corners=False)
return self.fuse(torch.cat([up, ref], 1))
"""

ALIGN_UPSAMPLE = """
up = nn.Upsample(size=ref.shape[-2:], mode='bilinear', align_corners=False)(x)
return self.fuse(torch.cat([up, ref], 1))
"""


def decoder_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=DECODERS)
    shuffle = {"x": (2, 16, 4, 5), "ref": (2, 1, 8, 10)}
    # Ratios 2, 4, 1, 2 and 4.
    shuffle_runs = [{"x": (1, 16, 4, 5), "ref": (1, 1, 8, 10)}, {"x": (3, 16, 3, 2), "ref": (3, 1, 12, 8)},
                    {"x": (2, 16, 5, 5), "ref": (2, 1, 5, 5)}, {"x": (1, 16, 6, 4), "ref": (1, 1, 12, 8)},
                    {"x": (2, 16, 2, 3), "ref": (2, 1, 8, 12)}]
    conv = {"conv": "nn.Conv2d(4, 4, 3, padding=1)"}
    # Square maps among them (8 x 8, 6 x 6, 5 x 5).
    ensemble_runs = [(1, 4, 8, 10), (3, 4, 8, 8), (2, 4, 6, 6), (1, 4, 12, 7), (2, 4, 5, 5)]
    tiles_x = (2, 4, 6, 12)
    tiles_runs = [(1, 4, 6, 12), (3, 4, 5, 16), (2, 4, 7, 10), (1, 4, 4, 4), (2, 4, 6, 20)]
    tiles_batch_runs = [(1, 4, 6, 12), (3, 4, 5, 16), (2, 4, 7, 8), (1, 4, 4, 4), (2, 4, 6, 20), (2, 4, 6, 10)]
    tile_conv = {"conv": "nn.Conv2d(4, 3, 3, padding=1)"}
    zoom_x = (2, 4, 6, 8)
    zoom_runs = [(1, 4, 6, 8), (3, 4, 5, 7), (2, 4, 10, 12), (1, 4, 3, 9)]
    zoom = dict(conv, theta="torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])", scale="1.5")
    align = {"x": (2, 4, 4, 5), "ref": (2, 4, 8, 10)}
    align_runs = [{"x": (1, 4, 4, 5), "ref": (1, 4, 8, 10)}, {"x": (3, 4, 3, 3), "ref": (3, 4, 9, 7)},
                  {"x": (2, 4, 8, 10), "ref": (2, 4, 8, 10)}, {"x": (1, 4, 2, 6), "ref": (1, 4, 12, 5)}]
    fuse = {"fuse": "nn.Conv2d(8, 4, 1)"}
    return [
        P("pixelshuffle_module_target_ratio", PIXELSHUFFLE_RATIO, shuffle, shuffle_runs,
          why="an upsampler to a target's size: factor r = ref.size(2) // x.size(2) (2 at 4 x 5 to 8 x 10), "
              "nn.PixelShuffle(r) built in forward (its factor a Python int), channels averaged, the target added"),
        P("depth_to_space_view_target_ratio", DEPTH_TO_SPACE_RATIO, shuffle, shuffle_runs,
          why="the same depth-to-space by view(b, c // (r * r), r, r, h, w), permute and reshape with r of the "
              "traced heights"),
        P("self_ensemble_rot90_square_only", SELF_ENSEMBLE.format(KS=SQUARE_ONLY), x=(2, 4, 8, 10),
          runs=ensemble_runs, init=conv,
          why="a restoration self-ensemble: the conv over rot90 turns of the input, each turned back and "
              "averaged, all four quarter turns only if h == w and the half turns (0, 2) otherwise: two at 8 x 10"),
        P("self_ensemble_rot90_every_quarter", SELF_ENSEMBLE.format(KS="ks = (0, 1, 2, 3)"), x=(2, 4, 8, 10),
          runs=ensemble_runs, init=conv,
          why="the same self-ensemble over every quarter turn whatever the map's sides"),
        P("tiled_inference_range_index_add", TILES_LOOP, x=tiles_x, runs=tiles_runs, init=tile_conv,
          why="tiled inference: 4-column tiles through the conv one at a time in a Python loop over range(0, W, "
              "4) (3 tiles at W = 12), each added into new_zeros at its columns by index_add"),
        P("tiled_inference_tiles_into_batch", TILES_BATCH, x=tiles_x, runs=tiles_batch_runs, init=tile_conv,
          why="the same 4-column tiles folded into the batch by view and movedim, one conv call, unfolded back "
              "(eager needs W a multiple of 4)"),
        P("sr_affine_grid_int_scaled", AFFINE_ZOOM.format(H="int(h * self.scale)", W="int(w * self.scale)"),
          x=zoom_x, runs=zoom_runs, init=zoom,
          why="a super-resolution zoom by 1.5: F.affine_grid of the identity to [b, c, int(h * 1.5), int(w * "
              "1.5)] (9 x 12 at 6 x 8), grid_sample, a conv"),
        P("sr_affine_grid_doubled", AFFINE_ZOOM.format(H="2 * h", W="2 * w"), x=zoom_x, runs=zoom_runs, init=zoom,
          why="the same zoom by 2 with the size [b, c, 2 * h, 2 * w] of the traced sizes"),
        P("align_interpolate_shape_tensor_item", ALIGN_ITEM, align, align_runs, init=fuse,
          why="features aligned to a reference frame: the reference's size read by torch._shape_as_tensor and "
              "given to interpolate through .item() (8, 10 at the export size), fused with it by a 1 x 1 conv"),
        P("align_upsample_module_ref_size", ALIGN_UPSAMPLE, align, align_runs, init=fuse,
          why="the same alignment by nn.Upsample(size=ref.shape[-2:]) built in forward from the traced sizes"),
    ]


# ---------------------------------------------------------------- tabular, recommendation and graph models

GNN_INDEX_ADD = """
src, dst = edges[0], edges[1]
agg = x.new_zeros(x.shape).index_add(0, dst, x[src])
deg = x.new_zeros(x.size(0)).index_add(0, dst, torch.ones_like(dst, dtype=x.dtype))
return self.lin(agg / deg.clamp(min=1)[:, None]) + x
"""

GNN_DENSE = """
n = {N}
adj = torch.zeros(n, n).index_put((edges[1], edges[0]), torch.ones(edges.size(1)), accumulate=True)
return self.lin(adj @ x / adj.sum(1, keepdim=True).clamp(min=1)) + x
"""

KNN_RADIUS = """
d = (p[:, :, None] - p[:, None]).pow(2).sum(-1)
k = {K}
r = d.kthvalue(k, -1, keepdim=True).values
m = (d <= r).to(p.dtype)
return (m @ self.proj(p)) / m.sum(-1, keepdim=True)
"""

FPS = """
b, n, _ = p.shape
dist = p.new_full((b, n), 1e10)
idx = torch.zeros(b, dtype=torch.long)
picked = []
for _ in range({M}):
    picked.append(idx)
    c = torch.take_along_dim(p, idx[:, None, None], 1)
    dist = torch.minimum(dist, (p - c).pow(2).sum(-1))
    idx = dist.argmax(-1)
return torch.take_along_dim(p, torch.stack(picked, 1)[..., None], 1)
"""

DLRM_TRIU_INDICES = """
f = x.size(1)
z = x @ x.transpose(1, 2)
i, j = torch.triu_indices(f, f, 1)
return torch.cat([x[:, 0], z[:, i, j]], 1)
"""

DLRM_MASKED_SELECT = """
b, f, _ = x.shape
z = x @ x.transpose(1, 2)
upper = torch.arange(f)[:, None] < torch.arange(f)[None]
return torch.cat([x[:, 0], z.masked_select(upper).view(b, -1)], 1)
"""

TAB_COLUMNS = """
c = x_cat.size(1)
e = F.embedding(x_cat + {OFFSETS}, self.table) + self.col[:c]
a = (e @ e.transpose(1, 2) * 0.35).softmax(-1) @ e
return a.mean(1)
"""


def tabular_models():
    def P(name, src, x, runs, init=None, ints=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, ints=ints, why=why), family=TABULAR)
    graph = {"x": (6, 8), "edges": (2, 10)}
    # Edge ends drawn from [0, 4): every node count is at least 4.
    graph_runs = [{"x": (4, 8), "edges": (2, 7)}, {"x": (9, 8), "edges": (2, 3)}, {"x": (12, 8), "edges": (2, 16)},
                  {"x": (5, 8), "edges": (2, 1)}, {"x": (7, 8), "edges": (2, 10)}]
    edges = {"edges": 4}
    lin = {"lin": "nn.Linear(8, 8)"}
    pts = {"p": (2, 6, 3)}
    # round(N ** 0.5): 2 at 6 and 3, 3 at 9 and 12, 4 at 16, 1 at 2.
    pts_runs = [{"p": s} for s in [(1, 6, 3), (3, 3, 3), (2, 9, 3), (1, 16, 3), (2, 2, 3), (4, 12, 3)]]
    proj = {"proj": "nn.Linear(3, 8)"}
    fps_runs = [{"p": s} for s in [(1, 6, 3), (3, 8, 3), (2, 4, 3), (1, 10, 3), (2, 3, 3)]]
    feats_runs = ec.SEQ_RUNS_D + [(2, 3, 8)]
    tab_x = {"x_cat": (2, 5)}
    tab_runs = [{"x_cat": s} for s in [(1, 5), (3, 3), (2, 8), (1, 1), (4, 6)]]
    tab = {"table": "torch.randn(32, 8)", "col": "torch.randn(8, 8)"}
    return [
        P("gnn_mean_index_add_nodes", GNN_INDEX_ADD, graph, graph_runs, init=lin, ints=edges,
          why="a GNN layer's mean aggregation: messages x[src] summed into new_zeros of the node features by "
              "index_add over dst, divided by in-degrees counted the same way, a Linear and a residual"),
        P("gnn_dense_adjacency_int_nodes", GNN_DENSE.format(N="int(x.shape[0])"), graph, graph_runs, init=lin,
          ints=edges,
          why="the same mean aggregation through a dense adjacency torch.zeros(n, n).index_put((dst, src), ones, "
              "accumulate=True) with n = int(x.shape[0]) (6 nodes at the export size)"),
        P("gnn_dense_adjacency_shape_nodes", GNN_DENSE.format(N="x.shape[0]"), graph, graph_runs, init=lin,
          ints=edges,
          why="the same dense adjacency with n = x.shape[0] of the traced node count"),
        P("knn_radius_kthvalue_sqrt_k", KNN_RADIUS.format(K="round(p.size(1) ** 0.5)"), pts, pts_runs, init=proj,
          why="a point cloud's kNN neighbourhoods: each point's radius is the squared distance to its k-th "
              "nearest (itself counted) by kthvalue with k = round(N ** 0.5) (2 at N = 6), features averaged "
              "over the points within it"),
        P("knn_radius_kthvalue_fixed_k", KNN_RADIUS.format(K="2"), pts, pts_runs, init=proj,
          why="the same neighbourhoods with the configured k = 2 (eager needs 2 points)"),
        P("fps_half_points_python_loop", FPS.format(M="n // 2"), pts, fps_runs,
          why="farthest point sampling of N // 2 points (3 at N = 6) by a Python loop: distances kept in "
              "new_full((B, N), 1e10), lowered by torch.minimum with each pick's, the next pick their argmax"),
        P("fps_fixed_npoint_python_loop", FPS.format(M="3"), pts, fps_runs,
          why="the same sampling of the configured 3 points, whatever N (picks repeat below 3 points)"),
        P("dlrm_interaction_triu_indices", DLRM_TRIU_INDICES, (2, 5, 8), feats_runs,
          why="DLRM's dot interaction: the F feature vectors' pairwise dot products above the diagonal, taken by "
              "torch.triu_indices(F, F, 1) (F = 5: 10 pairs), after the dense vector"),
        P("dlrm_interaction_masked_select", DLRM_MASKED_SELECT, (2, 5, 8), feats_runs,
          why="the same pairs by masked_select of arange(F)[:, None] < arange(F)[None], viewed to (B, -1)"),
        P("tabtransformer_column_offsets_arange", TAB_COLUMNS.format(OFFSETS="torch.arange(c) * 4"), tab_x,
          tab_runs, init=tab, ints={"x_cat": 4},
          why="TabTransformer's column embedding: each of C categorical columns (4 values) offset into a shared "
              "table by arange(C) * 4, a column embedding added, attention across the columns, their mean"),
        P("tabtransformer_column_offsets_list", TAB_COLUMNS.format(OFFSETS="torch.tensor([4 * j for j in range(c)])"),
          tab_x, tab_runs, init=tab, ints={"x_cat": 4},
          why="the same column offsets as torch.tensor of a list [4 * j for j in range(C)] (5 columns at the "
              "export size)"),
    ]


def all_modules():
    # Numbered in the order written, so that each module keeps its dynamo style.
    return eu.numbered(multi_models() + decoder_models() + tabular_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_shrouded.py", "three", final_before_linting=True)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("shrouded", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
