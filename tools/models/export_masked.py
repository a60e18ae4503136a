#!/usr/bin/env python3
"""Export the "masked modules" corpus (tests/corpus/masked) and label it by running it.

A ninth corpus built the way tests/corpus/unseen, tests/corpus/fresh, tests/corpus/blind,
tests/corpus/sealed, tests/corpus/veiled, tests/corpus/cloaked, tests/corpus/shrouded and
tests/corpus/obscured are, after all eight: small PyTorch modules written for this corpus alone, in
idioms that no other corpus script uses (export_corpus.py, export_torch2.py, export_classes.py,
export_unseen.py, export_fresh.py, export_blind.py, export_sealed.py, export_veiled.py,
export_cloaked.py, export_shrouded.py, export_obscured.py), each module's code, `why` and family
final before the linter was first run on it, and never used to tune the linter: every module is
held out. Three families:

  OCR and document models          CTC greedy decoding, repeats collapsed against the previous
                                   frame pred[:, :t - 1] with t = int(T) against F.pad of
                                   pred[:, :-1] with value -1; LayoutLM's boxes scaled to a
                                   1000-unit page by torch.tensor([1000 / w, 1000 / h, ...]) of the
                                   page's sizes against boxes * 1000 / w of the symbolic sizes,
                                   bucketed into nn.Embedding rows; Pix2Struct's variable-resolution
                                   patch grid, rows and columns from math.sqrt and math.floor of
                                   the image's sizes, the image resized to the grid by
                                   F.interpolate with row and column embeddings; ViTSTR's first 6
                                   tokens read as characters (6 the patch columns at the export
                                   width); a CRNN's height collapsed by F.max_pool2d with kernel
                                   (int(h), 1) and squeeze(2) against amax over the height;
                                   Chargrid's character embeddings scattered by scatter_add into
                                   new_zeros(b, 4, h * w) at the row-major cells y * int(w) + x.
  self-supervised and contrastive  SimCLR's NT-Xent, self-similarity masked by torch.eye(2 * n) and
  learning                         targets torch.cat of arange(n, 2 * n) and arange(n) with n =
                                   int(N), against an arange comparison and (i + n) % (2 * n) of
                                   the traced batch; MAE's masking by argsort of a learned score,
                                   len_keep = int(L * (1 - 0.75)) against L // 4 of the traced
                                   length, the binary mask restored by gather; DINO's multi-crop
                                   loss, the number of crops int(S) // (int(T) // 2) of the two
                                   inputs' batches, chunked and looped over in Python; Barlow
                                   Twins' cross-correlation divided by int(N) against a mean of
                                   outer products, the off-diagonal by flatten()[:-1].view(3, 5)
                                   of a 4-feature projector (4 the export batch); SwAV's
                                   Sinkhorn-Knopp iterations dividing by Python K and B, B
                                   multiplied back at the end; MoCo's logits against a queue of
                                   4 keys (4 the export batch); a 2 x 2 jigsaw pretext input, tiles
                                   cut by Python slice bounds i * t:(i + 1) * t with t = int(h) // 2
                                   and put back in a fixed permutation by torch.cat.
  scientific and structure models  NeRF's volume rendering, sample depths 2 + arange(n) * 4 / (n -
                                   1) with n = int(S) against the traced S, transmittance by
                                   exp(-cumsum) shifted by one sample; a PDE step with a
                                   five-point Laplacian on the unit square, spacing 1 / (int(n) -
                                   1) against a fixed spacing 0.125 (1 / 8 at the 9-point export
                                   grid); a weather model's polar rows rolled by half the
                                   longitudes by torch.roll(..., w // 2) and longitudes wrapped by
                                   F.pad(mode='circular'), against the same roll and wrap by
                                   slices and torch.cat; AlphaFold's homodimer residue index with
                                   a gap of 100 after int(L) // 2 residues, relative positions
                                   clipped to +-8 into an nn.Embedding; an MSA outer-product mean
                                   over the first 4 rows (4 the export depth); a molecular-dynamics
                                   trajectory coarse-grained by F.avg_pool1d with stride
                                   max(1, round(int(T) / 16)), 1 at the export length and up to
                                   T = 23, 2 from 24; an ocean model's Coriolis term, cell-centre
                                   latitudes (arange(h) + 0.5) * (math.pi / int(h)) - pi / 2 of the
                                   traced rows with a Python float step.

About half take a size as a Python number (int() of a size in a slice bound, torch.eye's size,
arange's ends, a Python float divisor, math.sqrt and math.floor of sizes, F.interpolate's size, a
pooling kernel, a chunk count and a Python loop over it, torch.roll's shift, round() of a ratio, a
row stride, a Python float step) or branch on one, so that the export can bake it; the others are
lookalikes. Some lookalikes hold literals equal to a size of the example input on purpose (6
tokens, 4 queue keys, a view(3, 5) of a 4 x 4 matrix, 4 MSA rows, a spacing 1 / 8); SwAV's B
cancels out by design; Pix2Struct's grid and the trajectory's stride move only at other aspect
ratios and at lengths far from the example. The last module of each family (Chargrid, the jigsaw,
the Coriolis term) was written after the first export, which left the corpus 17 breaking files of
47, and appended after the others so that no module's dynamo style moved; each was final before
the linter first ran on it.

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

OCR = "OCR and document models"
SSL = "self-supervised and contrastive learning"
SCIENCE = "scientific and structure models"
FAMILIES = (OCR, SSL, SCIENCE)

# ---------------------------------------------------------------- OCR and document models

CTC_GREEDY = """
pred = self.cls(x).argmax(-1)
{PREV}
keep = (pred != prev) & (pred != 0)
return torch.where(keep, pred, torch.full_like(pred, -1))
"""

CTC_PYTHON_END = """t = int(pred.size(1))
prev = torch.cat([pred.new_full((pred.size(0), 1), -1), pred[:, :t - 1]], 1)"""

CTC_PAD_SHIFT = "prev = F.pad(pred[:, :-1], (1, 0), value=-1)"

LAYOUT = """
h, w = page.shape[-2:]
{BUCKETS}
e = self.x_emb(xs).sum(2) + self.y_emb(ys).sum(2)
return e + self.patch(page).mean((2, 3))[:, None]
"""

LAYOUT_TENSOR = """scale = torch.tensor([1000 / w, 1000 / h, 1000 / w, 1000 / h])
q = (boxes * scale).long().clamp(0, 1000) // 100
xs, ys = q[..., 0::2], q[..., 1::2]"""

LAYOUT_SYMBOLIC = """xs = (boxes[..., 0::2] * 1000 / w).long().clamp(0, 1000) // 100
ys = (boxes[..., 1::2] * 1000 / h).long().clamp(0, 1000) // 100"""

PIX2STRUCT = """
b = x.size(0)
h, w = x.shape[-2:]
scale = math.sqrt(6 * (2 / h) * (2 / w))
rows = max(min(math.floor(scale * h / 2), 6), 1)
cols = max(min(math.floor(scale * w / 2), 6), 1)
x = F.interpolate(x, size=(rows * 2, cols * 2), mode='bilinear', align_corners=False)
p = x.view(b, 3, rows, 2, cols, 2).permute(0, 2, 4, 1, 3, 5).reshape(b, rows * cols, 12)
r = torch.arange(rows)[:, None].expand(rows, cols).reshape(-1)
c = torch.arange(cols)[None, :].expand(rows, cols).reshape(-1)
return self.proj(p) + self.row(r) + self.col(c)
"""

VITSTR = """
t = self.patch(x).flatten(2).transpose(1, 2)
t = t + F.gelu(self.enc(t))
return self.head(t[:, :6])
"""

CRNN = """
y = F.relu(self.conv(x))
{COLLAPSE}
return self.fc(y.transpose(1, 2)).log_softmax(-1)
"""

CRNN_MAXPOOL = "y = F.max_pool2d(y, (int(y.size(2)), 1)).squeeze(2)"
CRNN_AMAX = "y = y.amax(2)"


def ocr_models():
    def P(name, src, x, runs, init=None, ints=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, ints=ints, why=why), family=OCR)
    # (batch, frames, features): features kept (the classifier's); one frame, and up to 24.
    ctc_runs = [(1, 10, 8), (3, 16, 8), (2, 5, 8), (1, 1, 8), (4, 24, 8)]
    cls = {"cls": "nn.Linear(8, 5)"}
    # A one-channel page and pixel boxes from [0, 8): every page is at least 8 high and wide.
    page = {"page": (2, 1, 8, 10), "boxes": (2, 5, 4)}
    page_runs = [{"page": (1, 1, 8, 10), "boxes": (1, 3, 4)}, {"page": (3, 1, 16, 12), "boxes": (3, 5, 4)},
                 {"page": (2, 1, 9, 20), "boxes": (2, 7, 4)}, {"page": (1, 1, 32, 32), "boxes": (1, 2, 4)}]
    layout = {"x_emb": "nn.Embedding(11, 8)", "y_emb": "nn.Embedding(11, 8)",
              "patch": "nn.Conv2d(1, 8, 2, stride=2)"}
    # Grids 2 x 3 at 8 x 12 and 16 x 24 (the same aspect), 2 x 2 at 8 x 8, 1 x 4 at 6 x 20,
    # 4 x 1 at 30 x 10.
    pix_runs = [(1, 3, 8, 12), (2, 3, 16, 24), (3, 3, 8, 8), (1, 3, 6, 20), (2, 3, 30, 10)]
    pix = {"proj": "nn.Linear(12, 8)", "row": "nn.Embedding(6, 8)", "col": "nn.Embedding(6, 8)"}
    # 4 x 4 patches: 12 tokens at 8 x 24, 8 at 8 x 16, 3 at 4 x 12, 30 at 12 x 40, 1 at 4 x 4.
    vit_runs = [(1, 1, 8, 24), (3, 1, 8, 16), (2, 1, 4, 12), (1, 1, 12, 40), (2, 1, 4, 4)]
    vit = {"patch": "nn.Conv2d(1, 8, 4, stride=4)", "enc": "nn.Linear(8, 8)", "head": "nn.Linear(8, 5)"}
    # Text lines: feature heights 4 (export), 8, 2, 3 and 1 after the stride-2 conv; widths vary.
    crnn_runs = [(1, 1, 8, 20), (3, 1, 16, 12), (2, 1, 4, 9), (1, 1, 6, 30), (2, 1, 1, 7)]
    crnn = {"conv": "nn.Conv2d(1, 8, 3, stride=2, padding=1)", "fc": "nn.Linear(8, 5)"}
    return [
        P("ctc_greedy_collapse_python_end", CTC_GREEDY.format(PREV=CTC_PYTHON_END), (2, 10, 8), ctc_runs,
          init=cls,
          why="CTC greedy decoding: the argmax label per frame kept where it differs from the previous "
              "frame's and is not the blank 0, the previous frames pred[:, :t - 1] with t = int(T) (9 at the "
              "export size) after a -1 column, removed labels -1"),
        P("ctc_greedy_collapse_pad_shift", CTC_GREEDY.format(PREV=CTC_PAD_SHIFT), (2, 10, 8), ctc_runs, init=cls,
          why="the same decoding with the previous frames by F.pad(pred[:, :-1], (1, 0), value=-1)"),
        P("layoutlm_bbox_scale_tensor_floats", LAYOUT.format(BUCKETS=LAYOUT_TENSOR), page, page_runs,
          init=layout, ints={"boxes": 8},
          why="LayoutLM's 2-D positions: pixel boxes scaled to a 1000-unit page by torch.tensor([1000 / w, "
              "1000 / h, 1000 / w, 1000 / h]) of the page's sizes ([100, 125, 100, 125] at 8 x 10), bucketed "
              "by // 100 into x and y nn.Embedding rows, added to the pooled page patches"),
        P("layoutlm_bbox_divide_symbolic", LAYOUT.format(BUCKETS=LAYOUT_SYMBOLIC), page, page_runs,
          init=layout, ints={"boxes": 8},
          why="the same 2-D positions with the x and y coordinates scaled by boxes * 1000 / w and / h of the "
              "page's symbolic sizes"),
        P("pix2struct_patch_grid_math_sqrt", PIX2STRUCT, (2, 3, 8, 12), pix_runs, init=pix,
          why="Pix2Struct's variable-resolution patches for at most 6 patches of 2 x 2: scale = math.sqrt(6 * "
              "(2 / h) * (2 / w)), rows and columns math.floor(scale * h / 2) and (scale * w / 2) clipped by "
              "min and max (2 x 3 at 8 x 12), the image resized to the grid by F.interpolate, the patches "
              "viewed out and added to row and column nn.Embedding rows"),
        P("vitstr_first_six_tokens", VITSTR, (2, 1, 8, 24), vit_runs, init=vit,
          why="ViTSTR's reading head: 4 x 4 patch tokens through a residual GELU layer, the first 6 tokens (the "
              "model's maximum text length, also the number of patch columns at the export width 24) read "
              "as characters by a Linear"),
        P("crnn_height_maxpool_int_kernel", CRNN.format(COLLAPSE=CRNN_MAXPOOL), (2, 1, 8, 20), crnn_runs,
          init=crnn,
          why="a CRNN's text-line features collapsed over the height by F.max_pool2d with kernel (int(h), 1) "
              "(4 at the export height) and squeeze(2), the columns classified per frame by a Linear and "
              "log_softmax"),
        P("crnn_height_amax", CRNN.format(COLLAPSE=CRNN_AMAX), (2, 1, 8, 20), crnn_runs, init=crnn,
          why="the same CRNN with the height collapsed by amax(2)"),
    ]


# ---------------------------------------------------------------- self-supervised and contrastive learning

NTXENT_EYE = """
n = int(z1.size(0))
z = F.normalize(self.proj(torch.cat([z1, z2])), dim=1)
sim = z @ z.t() / 0.5
sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float('-inf'))
target = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
return F.cross_entropy(sim, target, reduction='none')
"""

NTXENT_ARANGE = """
n = z1.size(0)
z = F.normalize(self.proj(torch.cat([z1, z2])), dim=1)
sim = z @ z.t() / 0.5
i = torch.arange(2 * n)
sim = sim.masked_fill(i[:, None] == i[None], float('-inf'))
return F.cross_entropy(sim, (i + n) % (2 * n), reduction='none')
"""

MAE = """
b, l, d = x.shape
keep = {KEEP}
ids = self.score(x).squeeze(-1).argsort(1)
restore = ids.argsort(1)
kept = x.gather(1, ids[:, :keep, None].expand(-1, -1, d))
mask = torch.ones(b, l)
mask[:, :keep] = 0
return self.enc(kept), torch.gather(mask, 1, restore)
"""

DINO = """
b = int(t.size(0)) // 2
crops = int(s.size(0)) // b
sp = (self.head(s) / 0.1).log_softmax(-1).chunk(crops)
tp = ((self.head(t) - self.center) / 0.04).softmax(-1).chunk(2)
loss = 0
for i, q in enumerate(tp):
    for v in range(crops):
        if v != i:
            loss = loss + (-q * sp[v]).sum(-1)
return loss / (2 * crops - 2)
"""

BARLOW = """
a = self.proj(z1)
b = self.proj(z2)
a = (a - a.mean(0)) / a.std(0)
b = (b - b.mean(0)) / b.std(0)
{CORR}
on = (torch.diagonal(c) - 1).pow(2).sum()
off = c.flatten()[:-1].view(3, 5)[:, 1:].flatten().pow(2).sum()
return on + 0.005 * off, c
"""

BARLOW_INT = """n = int(z1.size(0))
c = a.t() @ b / n"""

BARLOW_MEAN = "c = (a[:, :, None] * b[:, None, :]).mean(0)"

SINKHORN = """
p = F.normalize(self.proj(x), dim=1) @ F.normalize(self.prototypes, dim=1).t()
q = torch.exp(p / 0.05).t()
k, b = int(q.shape[0]), int(q.shape[1])
q = q / q.sum()
for _ in range(3):
    q = q / q.sum(1, keepdim=True) / k
    q = q / q.sum(0, keepdim=True) / b
q = q * b
return q.t(), (p / 0.1).log_softmax(1)
"""

MOCO = """
q = F.normalize(self.fq(x), dim=1)
k = F.normalize(self.fk(x_aug), dim=1)
pos = (q * k).sum(1, keepdim=True)
neg = q @ F.normalize(self.queue, dim=0)
return torch.cat([pos, neg], 1) / 0.07
"""


def ssl_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=SSL)
    pair = {"z1": (4, 8), "z2": (4, 8)}
    # Two views of the same batch: batches 1 to 9 (Barlow Twins' std over the batch needs 2).
    pair_runs = [{"z1": (n, 8), "z2": (n, 8)} for n in (4, 1, 3, 6, 9)]
    barlow_runs = [{"z1": (n, 8), "z2": (n, 8)} for n in (4, 2, 3, 7, 16)]
    proj = {"proj": "nn.Linear(8, 4)"}
    # Token counts 8 (keep 2), 12 (3), 4 (1), 9 (2, as at export), 16 (4), 20 (5).
    mae_runs = [(1, 8, 8), (3, 12, 8), (2, 4, 8), (1, 9, 8), (2, 16, 8), (1, 20, 8)]
    mae = {"score": "nn.Linear(8, 1)", "enc": "nn.Linear(8, 8)"}
    # Teacher: 2 global crops of b images; student: every crop of the same b images.
    dino = {"s": (8, 8), "t": (4, 8)}
    dino_runs = [{"s": (8, 8), "t": (4, 8)}, {"s": (4, 8), "t": (2, 8)}, {"s": (12, 8), "t": (6, 8)},
                 {"s": (12, 8), "t": (4, 8)}, {"s": (4, 8), "t": (4, 8)}]
    dino_init = {"head": "nn.Linear(8, 6)", "center": "torch.randn(6) * 0.1"}
    swav_runs = [(4, 8), (1, 8), (3, 8), (7, 8), (16, 8)]
    swav = {"proj": "nn.Linear(8, 4)", "prototypes": "nn.Parameter(torch.randn(5, 4))"}
    moco = {"x": (4, 8), "x_aug": (4, 8)}
    moco_runs = [{"x": (n, 8), "x_aug": (n, 8)} for n in (4, 1, 3, 9, 5)]
    moco_init = {"fq": "nn.Linear(8, 4)", "fk": "nn.Linear(8, 4)", "queue": "torch.randn(4, 4)"}
    return [
        P("simclr_ntxent_eye_python_batch", NTXENT_EYE, pair, pair_runs, init=proj,
          why="SimCLR's NT-Xent: both views projected and normalised, cosine similarities at temperature "
              "0.5, the self-similarities masked by torch.eye(2 * n) and the positives targeted by "
              "torch.cat([arange(n, 2 * n), arange(n)]) with n = int(N) (4 at the export batch), per-sample "
              "F.cross_entropy"),
        P("simclr_ntxent_arange_mask", NTXENT_ARANGE, pair, pair_runs, init=proj,
          why="the same loss with the self-similarities masked by comparing i = arange(2 * N) with itself "
              "and the targets (i + N) % (2 * N) of the traced batch"),
        P("mae_argsort_keep_int_share", MAE.format(KEEP="int(l * (1 - 0.75))"), (2, 8, 8), mae_runs, init=mae,
          why="MAE's masking with a learned score in place of noise: tokens ordered by argsort, len_keep = "
              "int(L * (1 - 0.75)) (2 at L = 8) gathered and encoded, the binary mask (0 kept, 1 removed) "
              "put back in token order by gather with the inverse argsort"),
        P("mae_argsort_keep_traced_share", MAE.format(KEEP="l // 4"), (2, 8, 8), mae_runs, init=mae,
          why="the same masking with len_keep = L // 4 of the traced length"),
        P("dino_multicrop_python_crop_count", DINO, dino, dino_runs, init=dino_init,
          why="DINO's multi-crop loss: the number of crops int(S) // (int(T) // 2) from the student's and "
              "teacher's batches (4 at the export sizes), the student's outputs chunked into that many crops, "
              "the centred, sharpened teacher's into its 2 global crops, cross-entropies summed by a Python "
              "loop over every pair of different crops"),
        P("barlow_twins_python_batch_divisor", BARLOW.format(CORR=BARLOW_INT), pair, barlow_runs, init=proj,
          why="Barlow Twins: both views projected to 4 features and standardised over the batch, the "
              "cross-correlation a.t() @ b divided by n = int(N) (4 at the export batch), the loss of its "
              "diagonal against 1 and its off-diagonal by flatten()[:-1].view(3, 5)[:, 1:]"),
        P("barlow_twins_outer_mean_view_3_5", BARLOW.format(CORR=BARLOW_MEAN), pair, barlow_runs, init=proj,
          why="the same loss with the cross-correlation as the batch mean of outer products; the "
              "off-diagonal's view(3, 5) belongs to the 4 x 4 matrix of the 4-feature projector, not to the "
              "export batch 4"),
        P("swav_sinkhorn_python_k_and_b", SINKHORN, (4, 8), swav_runs, init=swav,
          why="SwAV's Sinkhorn-Knopp codes: exp of prototype scores over 0.05, three rounds of row sums divided "
              "by K and column sums divided by B with K, B = int() of the score matrix's sizes (5, 4 at the "
              "export batch), multiplied back by B, beside the swapped-prediction log_softmax"),
        P("moco_logits_queue_of_four_keys", MOCO, moco, moco_runs, init=moco_init,
          why="MoCo's contrastive logits: the positive q . k and the negatives against a queue buffer of 4 "
              "keys (the queue's length, also the export batch), concatenated, at temperature 0.07"),
    ]


# ---------------------------------------------------------------- scientific and structure models

NERF = """
n = {N}
t = 2.0 + torch.arange(n, dtype=torch.float32) * (4.0 / (n - 1))
d = torch.cat([t[1:] - t[:-1], torch.full((1,), 1e10)])
tau = F.relu(sigma) * d
trans = torch.exp(-torch.cat([torch.zeros_like(tau[:, :1]), tau[:, :-1].cumsum(1)], 1))
w = (1 - torch.exp(-tau)) * trans
return (w[..., None] * torch.sigmoid(rgb)).sum(1), (w * t).sum(1)
"""

LAPLACE = """
h = {H}
c = u[..., 1:-1, 1:-1]
lap = (u[..., 2:, 1:-1] + u[..., :-2, 1:-1] + u[..., 1:-1, 2:] + u[..., 1:-1, :-2] - 4 * c) / (h * h)
return self.net(torch.cat([c, 0.001 * lap], 1))
"""

POLAR_ROLL = """
w = x.shape[-1]
north = torch.roll(x[..., :1, :], w // 2, -1)
south = torch.roll(x[..., -1:, :], w // 2, -1)
y = torch.cat([north, x, south], -2)
return self.conv(F.pad(y, (1, 1, 0, 0), mode='circular'))
"""

POLAR_SLICES = """
w = x.shape[-1]
s = w - w // 2
north = torch.cat([x[..., :1, s:], x[..., :1, :s]], -1)
south = torch.cat([x[..., -1:, s:], x[..., -1:, :s]], -1)
y = torch.cat([north, x, south], -2)
return self.conv(torch.cat([y[..., -1:], y, y[..., :1]], -1))
"""

DIMER = """
l = int(s.size(1))
half = l // 2
ri = torch.cat([torch.arange(half), torch.arange(half, l) + 100])
d = (ri[:, None] - ri[None]).clamp(-8, 8) + 8
return self.rel(d) + self.left(s)[:, :, None] + self.right(s)[:, None]
"""

MSA_OUTER = """
c = m[:4]
a = self.a(c)
b = self.b(c)
o = torch.einsum('sic,sjd->ijcd', a, b) / c.shape[0]
return self.out(o.flatten(2))
"""

COARSE = """
stride = max(1, round(int(x.size(-1)) / 16))
return self.conv(F.avg_pool1d(x, stride))
"""


def science_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=SCIENCE)
    # (rays, samples): at least 2 samples (the spacing divides by n - 1 in eager too).
    rays = {"sigma": (6, 8), "rgb": (6, 8, 3)}
    ray_runs = [{"sigma": (r, n), "rgb": (r, n, 3)} for r, n in ((6, 8), (1, 4), (10, 16), (3, 2), (2, 5),
                                                                 (4, 33))]
    # Square grids 9 (export), 5, 17, 3, 33 and one 9 x 12 grid (the spacing follows the width).
    grid = {"u": (2, 1, 9, 9)}
    grid_runs = [{"u": s} for s in [(1, 1, 9, 9), (3, 1, 5, 5), (2, 1, 17, 17), (1, 1, 3, 3), (1, 1, 33, 33),
                                    (2, 1, 9, 12)]]
    pde = {"net": "nn.Conv2d(2, 2, 3, padding=1)"}
    # (batch, variables, latitudes, longitudes): even and odd longitudes from 7 to 20.
    globe_runs = [(1, 2, 6, 12), (3, 2, 8, 16), (2, 2, 5, 10), (1, 2, 9, 20), (2, 2, 4, 7)]
    globe = {"conv": "nn.Conv2d(2, 4, 3)"}
    # Chain lengths 6 (export: 3 + 3), 10, 3, 7 and 1.
    chains = {"s": (2, 6, 8)}
    dimer_runs = [{"s": s} for s in [(1, 6, 8), (3, 10, 8), (2, 3, 8), (1, 7, 8), (2, 1, 8)]]
    dimer = {"rel": "nn.Embedding(17, 4)", "left": "nn.Linear(8, 4)", "right": "nn.Linear(8, 4)"}
    # MSA depths 4 (export), 6, 2, 9 and residues 5, 3, 7, 1.
    rows = {"m": (4, 5, 8)}
    msa_runs = [{"m": s} for s in [(4, 5, 8), (6, 3, 8), (2, 7, 8), (9, 1, 8), (4, 8, 8)]]
    msa = {"a": "nn.Linear(8, 2)", "b": "nn.Linear(8, 2)", "out": "nn.Linear(4, 4)"}
    # Strides max(1, round(T / 16)): 1 up to T = 23, 2 from 24 to 40 (round half to even), 4 at 64.
    md_runs = [(2, 3, 12), (1, 3, 20), (3, 3, 8), (2, 3, 23), (1, 3, 40), (2, 3, 64)]
    md = {"conv": "nn.Conv1d(3, 4, 3, padding=1)"}
    return [
        P("nerf_render_python_sample_count", NERF.format(N="int(sigma.size(1))"), rays, ray_runs,
          why="NeRF's volume rendering: sample depths t = 2 + arange(n) * 4 / (n - 1) between near 2 and far "
              "6 with n = int(S) (8 at the export size), gaps closed by 1e10, transmittance exp(-cumsum) "
              "shifted by one sample, colour and depth as weighted sums"),
        P("nerf_render_traced_sample_count", NERF.format(N="sigma.shape[1]"), rays, ray_runs,
          why="the same rendering with the depths from n = S of the traced sizes"),
        P("pde_laplacian_python_spacing", LAPLACE.format(H="1.0 / (int(u.size(-1)) - 1)"), grid,
          grid_runs, init=pde,
          why="a learned PDE step on the unit square: the five-point Laplacian of the interior divided by h^2 "
              "with the grid spacing h = 1 / (int(n) - 1) (1 / 8 on the 9-point export grid), with the interior "
              "through a 3 x 3 conv"),
        P("pde_laplacian_fixed_spacing_eighth", LAPLACE.format(H="0.125"), grid, grid_runs, init=pde,
          why="the same step with the model's fixed physical spacing h = 0.125, which is also 1 / (9 - 1) of "
              "the export grid"),
        P("weather_polar_roll_half_longitudes", POLAR_ROLL, (2, 2, 6, 12), globe_runs, init=globe,
          why="a global weather model's padding: the northmost and southmost latitude rows rolled by half the "
              "longitudes with torch.roll(row, w // 2, -1) (6 at 12 longitudes) and stacked across the poles, "
              "the longitudes wrapped by F.pad(mode='circular'), then a 3 x 3 conv"),
        P("weather_polar_half_slices", POLAR_SLICES, (2, 2, 6, 12), globe_runs, init=globe,
          why="the same polar padding with the half turn by slices at w - w // 2 concatenated and the "
              "longitudes wrapped by torch.cat of the last and first columns"),
        P("alphafold_dimer_index_gap_python_half", DIMER, chains, dimer_runs, init=dimer,
          why="AlphaFold's homodimer trick: residue indices torch.cat of arange(l // 2) and arange(l // 2, l) + "
              "100 with l = int(L) (a gap after 3 of 6 residues), relative positions clipped to +-8 into an "
              "nn.Embedding pair bias, plus the left and right single projections"),
        P("alphafold_msa_outer_mean_first_four", MSA_OUTER, rows, msa_runs, init=msa,
          why="an MSA outer-product mean over the first 4 sequences (the model's cluster count, also the "
              "export depth) by m[:4], an einsum of the two projections divided by the rows kept, a Linear"),
        P("md_coarse_grain_round_stride", COARSE, (2, 3, 12), md_runs, init=md,
          why="a molecular-dynamics trajectory coarse-grained by F.avg_pool1d with stride max(1, round(int(T) "
              "/ 16)): 1 at the export length 12 and every length up to 23, 2 from 24, then a Conv1d"),
    ]


# ---------------------------------------------------------------- written after the first export

CHARGRID = """
h, w = page.shape[-2:]
feat = self.emb(chars).transpose(1, 2)
idx = boxes[..., 1] * int(w) + boxes[..., 0]
grid = page.new_zeros(page.size(0), 4, h * w)
grid = grid.scatter_add(2, idx[:, None].expand(-1, 4, -1), feat)
return self.conv(torch.cat([page, grid.view(page.size(0), 4, h, w)], 1))
"""

JIGSAW = """
t = int(x.size(2)) // 2
s = int(x.size(3)) // 2
tiles = [x[..., i * t:(i + 1) * t, j * s:(j + 1) * s] for i in range(2) for j in range(2)]
tiles = [tiles[k] for k in (2, 0, 3, 1)]
y = torch.cat([torch.cat(tiles[:2], -1), torch.cat(tiles[2:], -1)], -2)
return self.conv(y)
"""

CORIOLIS = """
h = x.size(2)
lat = (torch.arange(h, dtype=torch.float32) + 0.5) * (math.pi / int(h)) - math.pi / 2
f = 2 * 7.29e-5 * torch.sin(lat) * 1e4
u, v = x[:, :1], x[:, 1:2]
return self.conv(torch.cat([x, f[:, None] * v, -f[:, None] * u], 1))
"""


def late_models():
    # One more module in each family, appended after the others so that no module's dynamo style moves.
    page = {"page": (2, 1, 8, 10), "chars": (2, 5), "boxes": (2, 5, 2)}
    # Character cells (x, y) from [0, 8): every page is at least 8 high and wide.
    page_runs = [{"page": (1, 1, 8, 10), "chars": (1, 3), "boxes": (1, 3, 2)},
                 {"page": (3, 1, 12, 16), "chars": (3, 6), "boxes": (3, 6, 2)},
                 {"page": (2, 1, 9, 8), "chars": (2, 4), "boxes": (2, 4, 2)},
                 {"page": (1, 1, 16, 12), "chars": (1, 9), "boxes": (1, 9, 2)}]
    grid = {"emb": "nn.Embedding(10, 4)", "conv": "nn.Conv2d(5, 4, 3, padding=1)"}
    # Even and odd sides (eager drops the last row or column of an odd side).
    jig_runs = [(1, 3, 8, 8), (3, 3, 12, 12), (2, 3, 6, 10), (1, 3, 16, 8), (2, 3, 9, 9)]
    jig = {"conv": "nn.Conv2d(3, 4, 3, padding=1)"}
    # (batch, u and v winds, latitudes, longitudes): latitudes 6 (export), 8, 5, 12 and 6 again.
    wind_runs = [(1, 2, 6, 12), (3, 2, 8, 16), (2, 2, 5, 10), (1, 2, 12, 7), (2, 2, 6, 20)]
    wind = {"conv": "nn.Conv2d(4, 2, 3, padding=1)"}
    return [
        dict(ec.M("chargrid_scatter_row_major_int_width", CHARGRID, x=page, runs=page_runs, init=grid,
                  ints={"chars": 10, "boxes": 8},
                  why="Chargrid: character embeddings scattered by scatter_add into a page-sized grid "
                      "new_zeros(b, 4, h * w) at the row-major cells y * int(w) + x (the row stride 10 at the "
                      "export width), viewed to the page, concatenated with it, a 3 x 3 conv"), family=OCR),
        dict(ec.M("jigsaw_tiles_python_slice_bounds", JIGSAW, x=(2, 3, 8, 8), runs=jig_runs, init=jig,
                  why="a 2 x 2 jigsaw pretext input: tiles cut by Python slice bounds i * t:(i + 1) * t and j * s:(j "
                      "+ 1) * s with t, s = int(h) // 2, int(w) // 2 (4, 4 at 8 x 8), put back in the fixed "
                      "permutation (2, 0, 3, 1) by torch.cat, a 3 x 3 conv"), family=SSL),
        dict(ec.M("ocean_coriolis_python_latitude_step", CORIOLIS, x=(2, 2, 6, 12), runs=wind_runs, init=wind,
                  why="an ocean model's Coriolis term: cell-centre latitudes (arange(h) + 0.5) * (math.pi / int(h)) "
                      "- pi / 2 of the traced rows with the step a Python float (pi / 6 at 6 rows), f = 2 omega "
                      "sin(latitude) times the v and u winds, concatenated, a 3 x 3 conv"), family=SCIENCE),
    ]


def all_modules():
    # Numbered in the order written, so that each module keeps its dynamo style.
    return eu.numbered(ocr_models() + ssl_models() + science_models() + late_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_masked.py", "three", final_before_linting=True)


# export_unseen.py's exports of a module, with memory addresses dropped from the notes.
exports = eu.exports_scrubbed


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("masked", __doc__, all_modules(), exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
