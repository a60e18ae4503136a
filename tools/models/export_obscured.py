#!/usr/bin/env python3
"""Export the "obscured modules" corpus (tests/corpus/obscured) and label it by running it.

An eighth corpus built the way tests/corpus/unseen, tests/corpus/fresh, tests/corpus/blind,
tests/corpus/sealed, tests/corpus/veiled, tests/corpus/cloaked and tests/corpus/shrouded are,
after all seven: small PyTorch modules written for this corpus alone, in idioms that no other
corpus script uses (export_corpus.py, export_torch2.py, export_classes.py, export_unseen.py,
export_fresh.py, export_blind.py, export_sealed.py, export_veiled.py, export_cloaked.py,
export_shrouded.py), each module's code, `why` and family final before the linter was first run
on it, and never used to tune the linter: every module is held out. Three families:

  generative image models          SDXL's micro-conditioning time ids torch.tensor([[h * 8, w * 8,
                                   0, 0, h * 8, w * 8]]) of the latent's sizes, Fourier features
                                   through an F.silu MLP, against a DDPM timestep embedding
                                   broadcast by t.expand(x.shape[0]); classifier-free guidance, the
                                   batch doubled by torch.cat([x] * 2) and split at n =
                                   int(x.shape[0]) against eps.chunk(2); a UNet attention block by
                                   torch.bmm over the h * w positions only `if h * w <= 64`; a
                                   VQ-VAE quantizer by argmin of codebook distances viewed back to
                                   int(b), int(h), int(w) against the traced sizes; StyleGAN's
                                   minibatch standard deviation in groups of Python's min(4, N)
                                   against torch.min of torch.as_tensor; Flux's latent packing into
                                   2 x 2 patches with position ids written into torch.zeros(h, w,
                                   2), h and w int() halves of the latent against the traced
                                   halves.
  time-series and forecasting      PatchTST's patches by unfold from the end-aligned start (L - 4)
                                   % 2 of int(L) against the traced length; Autoformer's series
                                   decomposition by an nn.AvgPool1d built in forward with its
                                   kernel min(7, the largest odd k <= L), ends padded by repeating
                                   the first and last steps; TimesNet's periods 2 and 3 folded into
                                   2-D for a conv, padded only `if L % p != 0`, weighed by the
                                   torch.fft.rfft amplitude at bin L // p, against an F.pad by (p -
                                   L % p) % p of the traced length; lag features gathered by
                                   torch.tensor of a list comprehension over range(4, L) against
                                   arange minus a lags buffer; RevIN over time by torch.var_mean
                                   with Bessel's correction n / (n - 1) of a Python count against
                                   correction=1; a linear-trend forecast over a 4-step horizon by
                                   torch.addcmul, its centre (L - 1) / 2 and denominator Python
                                   floats, against the centre and sums of squares of the traced
                                   arange.
  video and volumetric models      ViViT's tubelets by nn.Conv3d, tokens reshaped to the int()
                                   grid and a temporal position table sliced to int(T') against
                                   flatten and the traced T'; an X3D-style head whose
                                   nn.AvgPool3d((T, 1, 1)) over all frames is built in forward;
                                   a clip of 4 frames sampled at the stride int(T) // 4 against
                                   the traced T // 4; TimeSformer's divided space-time attention,
                                   time and space folded into the batch by int(b) * int(n) and
                                   int(b) * int(t) against flatten(0, 1); 2.5-D slabs of three
                                   neighbouring slices stacked by a Python loop over range(int(D))
                                   against unfold of the depth; UNETR's tokens back to a cube of
                                   side round(N ** (1 / 3)) for an nn.ConvTranspose3d against the
                                   grid of the nn.Conv3d patch embedding.

About half take a size as a Python number (torch.tensor of sizes, int(), a Python slice bound, an
if, min(), a Python float, a list comprehension over a range, a module built in forward with a
size as its kernel, a slice step, products of int() sizes, a Python loop over a range, round() of
a cube root) or branch on one, so that the export can bake it; the others are lookalikes.

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

GENERATIVE = "generative image models"
FORECAST = "time-series and forecasting"
VIDEO = "video and volumetric models"
FAMILIES = (GENERATIVE, FORECAST, VIDEO)

# ---------------------------------------------------------------- generative image models

SDXL_TIME_IDS = """
h, w = x.shape[-2:]
ids = torch.tensor([[h * 8, w * 8, 0, 0, h * 8, w * 8]], dtype=torch.float32)
freqs = torch.exp(-math.log(10000.0) * torch.arange(4, dtype=torch.float32) / 4)
e = ids[..., None] * freqs
e = torch.cat([e.sin(), e.cos()], -1).flatten(1)
e = self.fc2(F.silu(self.fc1(e)))
return self.conv(x) + e[:, :, None, None]
"""

TIMESTEP_EXPAND = """
t = t.expand(x.shape[0])
freqs = torch.exp(-math.log(10000.0) * torch.arange(4, dtype=torch.float32) / 4)
e = t[:, None] * 1000 * freqs[None]
e = torch.cat([e.cos(), e.sin()], -1)
e = self.fc2(F.silu(self.fc1(e)))
return self.conv(x) + e[:, :, None, None]
"""

CFG = """
{N}
eps = self.unet(torch.cat([x] * 2)) + self.proj(torch.cat([torch.zeros_like(emb), emb]))[:, :, None, None]
{SPLIT}
return uncond + 7.5 * (text - uncond)
"""

CFG_INT = "n = int(x.shape[0])", "uncond, text = eps[:n], eps[n:]"
CFG_CHUNK = "", "uncond, text = eps.chunk(2)"

ATTN_LOW_RES = """
b, c, h, w = x.shape
if h * w <= 64:
    q = self.q(x).flatten(2)
    k = self.k(x).flatten(2)
    v = self.v(x).flatten(2)
    a = torch.bmm(q.transpose(1, 2), k).mul(0.5).softmax(-1)
    x = x + self.o(torch.bmm(v, a.transpose(1, 2)).view(b, c, h, w))
return self.conv(x)
"""

VQ = """
b, c, h, w = z.shape
zf = z.permute(0, 2, 3, 1).reshape(-1, c)
d = zf.pow(2).sum(1, keepdim=True) - 2 * zf @ self.codebook.t() + self.codebook.pow(2).sum(1)
idx = d.argmin(1)
zq = self.codebook[idx].view({VIEW})
return zq.permute(0, 3, 1, 2)
"""

MINIBATCH_STD = """
n, c, h, w = x.shape
g = {G}
y = x.reshape(g, -1, 1, c, h, w)
y = y - y.mean(0)
y = y.square().mean(0)
y = (y + 1e-8).sqrt()
y = y.mean([2, 3, 4])
y = y.reshape(-1, 1, 1, 1)
y = y.repeat(g, 1, h, w)
return self.conv(torch.cat([x, y], 1))
"""

FLUX_PACK = """
b, c = x.shape[:2]
h, w = {HW}
tok = x.view(b, c, h, 2, w, 2).permute(0, 2, 4, 1, 3, 5).reshape(b, h * w, c * 4)
ids = torch.zeros(h, w, 2)
ids[..., 0] = ids[..., 0] + torch.arange(h)[:, None]
ids[..., 1] = ids[..., 1] + torch.arange(w)[None, :]
return self.proj(tok) + self.pos(ids.reshape(h * w, 2))
"""


def generative_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=GENERATIVE)
    latent = (2, 4, 8, 10)
    # Channels kept (conv weights); heights and widths from 6 to 16, odd ones among them.
    latent_runs = [(1, 4, 8, 10), (3, 4, 9, 7), (2, 4, 16, 12), (1, 4, 6, 6)]
    cond = {"fc1": "nn.Linear(48, 16)", "fc2": "nn.Linear(16, 4)", "conv": "nn.Conv2d(4, 4, 3, padding=1)"}
    tstep = {"x": (2, 4, 8, 10), "t": (1,)}
    # One timestep for the whole batch (t stays (1,)): expand broadcasts it to every batch.
    tstep_runs = [{"x": (1, 4, 8, 10), "t": (1,)}, {"x": (3, 4, 9, 7), "t": (1,)},
                  {"x": (2, 4, 16, 12), "t": (1,)}, {"x": (4, 4, 6, 6), "t": (1,)}]
    tcond = dict(cond, fc1="nn.Linear(8, 16)")
    cfg = {"x": (2, 4, 8, 10), "emb": (2, 8)}
    # The text embedding has the latent's batch, as a pipeline gives it.
    cfg_runs = [{"x": (1, 4, 8, 10), "emb": (1, 8)}, {"x": (3, 4, 9, 7), "emb": (3, 8)},
                {"x": (4, 4, 6, 6), "emb": (4, 8)}, {"x": (2, 4, 16, 12), "emb": (2, 8)}]
    unet = {"unet": "nn.Conv2d(4, 4, 3, padding=1)", "proj": "nn.Linear(8, 4)"}
    attn = {"q": "nn.Conv2d(4, 4, 1)", "k": "nn.Conv2d(4, 4, 1)", "v": "nn.Conv2d(4, 4, 1)",
            "o": "nn.Conv2d(4, 4, 1)", "conv": "nn.Conv2d(4, 4, 3, padding=1)"}
    # 64, 60 and 16 positions attend in eager; 96 and 81 do not.
    attn_runs = [(1, 4, 8, 8), (3, 4, 6, 10), (2, 4, 12, 8), (1, 4, 4, 4), (2, 4, 9, 9)]
    vq = {"z": (2, 4, 8, 10)}
    vq_runs = [{"z": s} for s in [(1, 4, 8, 10), (3, 4, 9, 7), (2, 4, 16, 12), (1, 4, 5, 5)]]
    codebook = {"codebook": "torch.randn(16, 4)"}
    # Groups min(4, N): 1, 3 and 4 divide N = 1, 3, 4, and 4 divides 8 (eager needs N % g == 0).
    mbstd_runs = [(1, 4, 8, 10), (3, 4, 6, 6), (4, 4, 8, 10), (8, 4, 5, 7)]
    mbstd = {"conv": "nn.Conv2d(5, 4, 3, padding=1)"}
    # Even heights and widths only: the view into 2 x 2 patches needs them (eager too).
    flux_runs = [(1, 4, 8, 10), (3, 4, 6, 4), (2, 4, 12, 8), (1, 4, 2, 2), (2, 4, 4, 14)]
    flux = {"proj": "nn.Linear(16, 8)", "pos": "nn.Linear(2, 8)"}
    return [
        P("sdxl_time_ids_tensor_of_sizes", SDXL_TIME_IDS, latent, latent_runs, init=cond,
          why="SDXL's micro-conditioning: the original size, crop corner and target size as time ids "
              "torch.tensor([[h * 8, w * 8, 0, 0, h * 8, w * 8]]) of the latent's sizes ([64, 80, 0, 0, 64, 80] "
              "at 8 x 10), Fourier features through Linear, F.silu, Linear, added to a conv of the latent"),
        P("timestep_embed_silu_expand_batch", TIMESTEP_EXPAND, tstep, tstep_runs, init=tcond,
          why="a DDPM timestep embedding: one timestep broadcast to the batch by t.expand(x.shape[0]) as "
              "diffusers does, sin/cos features through Linear, F.silu, Linear, added to a conv of the latent"),
        P("cfg_guidance_int_batch_split", CFG.format(N=CFG_INT[0], SPLIT=CFG_INT[1]), cfg, cfg_runs, init=unet,
          why="classifier-free guidance: the latent batch doubled by torch.cat([x] * 2), the null and text "
              "conditionings stacked the same way, the noise prediction split at n = int(x.shape[0]) (2 at the "
              "export size) into eps[:n] and eps[n:], combined with guidance scale 7.5"),
        P("cfg_guidance_chunk_halves", CFG.format(N=CFG_CHUNK[0], SPLIT=CFG_CHUNK[1]), cfg, cfg_runs, init=unet,
          why="the same guidance with the prediction split by eps.chunk(2), as diffusers' pipelines do"),
        P("unet_attention_low_resolution_if", ATTN_LOW_RES, (2, 4, 8, 8), attn_runs, init=attn,
          why="a diffusion UNet's attention only at low resolution: `if h * w <= 64`, q, k, v 1 x 1 convs "
              "flattened over the positions and attended by torch.bmm, viewed back and added; taken at the "
              "8 x 8 export size, skipped by eager above 64 positions"),
        P("vq_codebook_argmin_int_view", VQ.format(VIEW="int(b), int(h), int(w), c"), vq, vq_runs, init=codebook,
          why="a VQ-VAE quantizer: each latent vector's nearest of 16 codes by argmin of |z|^2 - 2 z.e + |e|^2, "
              "the codes viewed back to (int(b), int(h), int(w), c) = (2, 8, 10, 4) and permuted to channels first"),
        P("vq_codebook_argmin_traced_view", VQ.format(VIEW="b, h, w, c"), vq, vq_runs, init=codebook,
          why="the same quantizer with the codes viewed back to (b, h, w, c) of the traced sizes"),
        P("minibatch_std_python_min_group", MINIBATCH_STD.format(G="min(4, n)"), latent, mbstd_runs, init=mbstd,
          why="StyleGAN's minibatch standard deviation: the batch in groups of g = min(4, N) by Python's min (2 "
              "at N = 2), each group's std averaged to one feature map repeated g times, concatenated, a conv"),
        P("minibatch_std_tensor_min_group",
          MINIBATCH_STD.format(G="torch.min(torch.as_tensor(4), torch.as_tensor(n))"), latent, mbstd_runs,
          init=mbstd,
          why="the same layer with g = torch.min(torch.as_tensor(4), torch.as_tensor(N)), as StyleGAN2-ADA "
              "writes it so that tracing keeps N"),
        P("flux_pack_latents_int_halves", FLUX_PACK.format(HW="int(x.shape[2]) // 2, int(x.shape[3]) // 2"),
          latent, flux_runs, init=flux,
          why="Flux's latent packing: 2 x 2 patches viewed into h * w tokens of 4c features with h, w = "
              "int(H) // 2, int(W) // 2 (4, 5 at 8 x 10), position ids written into torch.zeros(h, w, 2) from "
              "arange(h) and arange(w), both projected and added"),
        P("flux_pack_latents_traced_halves", FLUX_PACK.format(HW="x.shape[2] // 2, x.shape[3] // 2"),
          latent, flux_runs, init=flux,
          why="the same packing with h, w = H // 2, W // 2 of the traced sizes"),
    ]


# ---------------------------------------------------------------- time-series and forecasting

PATCHTST = """
start = {START}
p = x[:, start:].unfold(1, 4, 2)
return self.embed(p).transpose(1, 2)
"""

DECOMP_KERNEL_MIN = """
l = x.size(1)
k = min(self.k, (l - 1) // 2 * 2 + 1)
front = x[:, :1].repeat(1, (k - 1) // 2, 1)
end = x[:, -1:].repeat(1, (k - 1) // 2, 1)
trend = nn.AvgPool1d(k, stride=1)(torch.cat([front, x, end], 1).transpose(1, 2)).transpose(1, 2)
return torch.cat([x - trend, trend], -1)
"""

TIMESNET = """
b, l, c = x.shape
{L}
amp = torch.fft.rfft(x, dim=1).abs().mean(-1)
outs, score = [], []
for p in (2, 3):
{PAD}
    y = y.reshape(b, -1, p, c).permute(0, 3, 1, 2)
    y = self.conv(y).permute(0, 2, 3, 1).reshape(b, -1, c)
    outs.append(y[:, :l])
    score.append(amp[:, l // p])
w = torch.stack(score, -1).softmax(-1)
return x + (torch.stack(outs, -1) * w[:, None, None]).sum(-1)
"""

TIMESNET_IF_PAD = """    y = x
    if l % p != 0:
        y = torch.cat([x, x.new_zeros(b, p - l % p, c)], 1)"""

TIMESNET_F_PAD = "    y = F.pad(x, (0, 0, 0, (p - l % p) % p))"

LAGS_LIST = """
l = int(x.size(1))
idx = torch.tensor([[t - g for g in (1, 2, 4)] for t in range(4, l)])
return torch.cat([x[:, 4:, None], x[:, idx]], 2).flatten(2)
"""

LAGS_ARANGE = """
idx = torch.arange(4, x.size(1))[:, None] - self.lags
return torch.cat([x[:, 4:, None], x[:, idx]], 2).flatten(2)
"""

REVIN = """
{VAR}
std = torch.sqrt(var + 1e-5)
z = (x - mu) / std * self.w + self.b
y = self.mix(z)
return (y - self.b) / (self.w + 1e-10) * std + mu
"""

REVIN_BESSEL = """n = int(x.size(1))
var, mu = torch.var_mean(x, 1, keepdim=True, correction=0)
var = var * n / (n - 1)"""

REVIN_CORRECTION = "var, mu = torch.var_mean(x, 1, keepdim=True, correction=1)"

TREND_PYTHON = """
l = int(x.size(1))
t = torch.arange(l, dtype=torch.float32)[None, :, None]
tm = (l - 1) / 2
xm = x.mean(1, keepdim=True)
slope = ((t - tm) * (x - xm)).sum(1, keepdim=True) / (l * (l * l - 1) / 12)
steps = torch.arange(l, l + 4, dtype=torch.float32)[None, :, None] - tm
return torch.addcmul(xm, slope, steps)
"""

TREND_TENSOR = """
t = torch.arange(x.size(1), dtype=torch.float32)[None, :, None]
tm = t.mean(1, keepdim=True)
xm = x.mean(1, keepdim=True)
slope = ((t - tm) * (x - xm)).sum(1, keepdim=True) / (t - tm).pow(2).sum(1, keepdim=True)
steps = torch.arange(4, dtype=torch.float32)[None, :, None] + x.size(1) - tm
return torch.addcmul(xm, slope, steps)
"""


def forecast_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=FORECAST)
    # (batch, length, channels). Lengths of at least one patch (4); start (L - 4) % 2 is 1 at 11, 9
    # and 7, 0 at 12, 4 and 20; channels vary (the Linear embeds a patch's 4 steps).
    patch_runs = [(1, 11, 4), (3, 12, 4), (2, 4, 4), (1, 9, 6), (4, 20, 4), (2, 7, 3)]
    embed = {"embed": "nn.Linear(4, 8)"}
    # Kernels min(7, largest odd <= L): 5 at 5 and 6, 7 at 12 and 20, 3 at 3, 1 at 1.
    decomp_runs = [(1, 5, 4), (3, 12, 4), (2, 3, 6), (1, 1, 4), (4, 6, 2), (2, 20, 4)]
    # Channels kept (the conv's); L = 1 pads one step for p = 2 and two for p = 3.
    times_runs = [(1, 10, 4), (3, 12, 4), (2, 7, 4), (1, 9, 4), (4, 16, 4), (2, 1, 4)]
    times = {"conv": "nn.Conv2d(4, 4, 3, padding=1)"}
    # Lengths above the largest lag, 4 (eager's index table is empty, and float, at L = 4).
    lag_runs = [(1, 9, 4), (3, 12, 2), (2, 5, 4), (4, 20, 3), (1, 8, 4)]
    # Channels kept (affine weights and the channel mix); L >= 2 for the unbiased variance.
    revin_runs = [(1, 9, 4), (3, 16, 4), (2, 4, 4), (1, 2, 4), (4, 12, 4)]
    revin = {"w": "torch.rand(4) + 0.5", "b": "torch.randn(4)", "mix": "nn.Linear(4, 4)"}
    # L >= 2: the slope's denominator is 0 at one step.
    trend_runs = [(1, 9, 4), (3, 16, 4), (2, 4, 6), (1, 2, 4), (4, 12, 3)]
    return [
        P("patchtst_end_aligned_start_int", PATCHTST.format(START="(int(x.size(1)) - 4) % 2"), (2, 11, 4),
          patch_runs, init=embed,
          why="PatchTST's patchify as Hugging Face writes it: the first (L - 4) % 2 steps dropped so that the "
              "patches of 4 at stride 2 end at the last step, from int(L) (start 1 at L = 11), unfold over "
              "time, each patch embedded by a Linear"),
        P("patchtst_end_aligned_start_traced", PATCHTST.format(START="(x.size(1) - 4) % 2"), (2, 11, 4),
          patch_runs, init=embed,
          why="the same end-aligned patches with the start (L - 4) % 2 of the traced length"),
        P("series_decomp_avgpool_kernel_min_length", DECOMP_KERNEL_MIN, (2, 5, 4), decomp_runs, init={"k": "7"},
          why="Autoformer's series decomposition: the trend a moving average by nn.AvgPool1d(k, stride=1) built "
              "in forward, k = min(7, the largest odd k <= L) by Python's min (5 at L = 5), the ends padded by "
              "repeating the first and last steps (k - 1) // 2 times; seasonal part and trend concatenated"),
        P("timesnet_period_fold_python_if_pad", TIMESNET.format(L="l = int(l)", PAD=TIMESNET_IF_PAD), (2, 10, 4),
          times_runs, init=times,
          why="TimesNet's block for periods 2 and 3: the series padded with new_zeros only `if L % p != 0` of "
              "int(L) (for p = 3 alone at L = 10), folded to (L / p, p) for a 2-D conv, cut back to L, weighed by "
              "the softmax of torch.fft.rfft amplitudes at bins L // p (5 and 3)"),
        P("timesnet_period_fold_traced_pad", TIMESNET.format(L="", PAD=TIMESNET_F_PAD), (2, 10, 4), times_runs,
          init=times,
          why="the same block padded by F.pad of (p - L % p) % p, cut back and weighed at L // p, all of the "
              "traced length"),
        P("lag_features_list_comprehension_table", LAGS_LIST, (2, 9, 4), lag_runs,
          why="DeepAR-style lag features: the values 1, 2 and 4 steps back gathered by an index table "
              "torch.tensor of a list comprehension over range(4, int(L)) (5 rows at L = 9), concatenated "
              "with the current value"),
        P("lag_features_arange_minus_lags", LAGS_ARANGE, (2, 9, 4), lag_runs, init={"lags": "torch.tensor([1, 2, 4])"},
          why="the same lag table as arange(4, L)[:, None] minus a lags buffer, of the traced length"),
        P("revin_var_mean_bessel_python_count", REVIN.format(VAR=REVIN_BESSEL), (2, 9, 4), revin_runs, init=revin,
          why="RevIN over time: mean and population variance by torch.var_mean, turned unbiased by n / (n - 1) "
              "with n = int(L) (9 / 8 at the export size), affine normalisation, a channel mix, denormalised"),
        P("revin_var_mean_correction_one", REVIN.format(VAR=REVIN_CORRECTION), (2, 9, 4), revin_runs, init=revin,
          why="the same RevIN with the unbiased variance by torch.var_mean(correction=1)"),
        P("trend_forecast_addcmul_python_centre", TREND_PYTHON, (2, 9, 4), trend_runs,
          why="a linear-trend forecast over a 4-step horizon: the least-squares slope over t = arange(int(L)) with "
              "the centre (L - 1) / 2 and the denominator L (L^2 - 1) / 12 as Python floats (4.0 and 60.0 at "
              "L = 9), the forecast torch.addcmul(mean, slope, steps L .. L + 3 less the centre)"),
        P("trend_forecast_addcmul_tensor_centre", TREND_TENSOR, (2, 9, 4), trend_runs,
          why="the same forecast with the centre, the sum of squares and the horizon steps computed from "
              "arange(L) of the traced length"),
    ]


# ---------------------------------------------------------------- video and volumetric models

TUBELET_INT = """
y = self.tube(x)
b, d = y.shape[:2]
t, h, w = (int(s) for s in y.shape[2:])
tok = y.permute(0, 2, 3, 4, 1).reshape(b, t, h * w, d)
return tok + self.tpos[:t, None]
"""

TUBELET_FLATTEN = """
y = self.tube(x)
tok = y.flatten(3).permute(0, 2, 3, 1)
return tok + self.tpos[:y.size(2), None]
"""

X3D_HEAD = """
y = F.relu(self.conv(x))
y = nn.AvgPool3d((y.size(2), 1, 1))(y)
return self.head(y.amax((3, 4)).flatten(1))
"""

CLIP_STRIDE = """
step = {STEP}
clip = x[:, :, ::step][:, :, :4]
return self.conv(clip)
"""

DIVIDED_ATTN = """
b, t, n, d = x.shape
{FOLD}
xt = (xt @ xt.transpose(1, 2) * 0.35).softmax(-1) @ xt
x = x + xt.view(b, n, t, d).transpose(1, 2)
{FOLD_S}
xs = (xs @ xs.transpose(1, 2) * 0.35).softmax(-1) @ xs
return x + xs.view(b, t, n, d)
"""

DIVIDED_INT = ("bn, bt = int(b) * int(n), int(b) * int(t)\nxt = self.qt(x).transpose(1, 2).reshape(bn, t, d)",
               "xs = self.qs(x).reshape(bt, n, d)")
DIVIDED_FLATTEN = ("xt = self.qt(x).transpose(1, 2).flatten(0, 1)", "xs = self.qs(x).flatten(0, 1)")

SLABS = """
xp = F.pad(x, (0, 0, 0, 0, 1, 1))
{SLABS}
y = self.conv(slabs.flatten(0, 1).flatten(1, 2))
return y.unflatten(0, (x.size(0), -1)).transpose(1, 2)
"""

SLABS_LOOP = """d = int(x.size(2))
slabs = torch.stack([xp[:, :, i:i + 3] for i in range(d)], 1)"""

SLABS_UNFOLD = "slabs = xp.unfold(2, 3, 1).permute(0, 2, 1, 5, 3, 4)"

UNETR_CUBE = """
b, n, d = x.shape
s = round(n ** (1 / 3))
v = self.norm(x).transpose(1, 2).reshape(b, d, s, s, s)
return self.up(v)
"""

UNETR_GRID = """
y = self.embed(x)
tok = self.norm(y.flatten(2).transpose(1, 2))
v = tok.transpose(1, 2).reshape(y.shape)
return self.up(v)
"""


def video_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=VIDEO)
    clip = (2, 3, 4, 8, 8)
    # Tubelets 2 x 4 x 4: T >= 2, H, W >= 4 (floors at 5, 9); grids 2 x 2 x 2 (export and 5 x 9 x 8),
    # 3 x 2 x 3, 4 x 1 x 1, 1 x 3 x 2; at most 8 tubelet rows (the table's length).
    tube_runs = [(1, 3, 4, 8, 8), (2, 3, 6, 8, 12), (1, 3, 8, 4, 4), (3, 3, 2, 12, 8), (2, 3, 5, 9, 8)]
    tube = {"tube": "nn.Conv3d(3, 8, (2, 4, 4), stride=(2, 4, 4))", "tpos": "nn.Parameter(torch.randn(8, 8))"}
    # Every T pools to one frame in eager, whatever its length.
    head_runs = [(1, 3, 4, 6, 6), (3, 3, 8, 5, 7), (2, 3, 2, 6, 6), (1, 3, 5, 4, 4), (2, 3, 12, 3, 3)]
    head = {"conv": "nn.Conv3d(3, 6, (3, 1, 1), padding=(1, 0, 0))", "head": "nn.Linear(6, 5)"}
    # Strides max(T // 4, 1): 2 at 8 and 9, 3 at 12, 1 at 4 and 3, 4 at 16; below 4 frames the clip
    # keeps them all.
    stride_runs = [(1, 3, 8, 6, 6), (3, 3, 12, 5, 5), (2, 3, 9, 6, 4), (1, 3, 4, 4, 4), (2, 3, 16, 3, 3),
                   (1, 3, 3, 6, 6)]
    # The traced stride T // 4 is 0 below 4 frames, which eager refuses: T >= 4 only.
    stride_runs_4 = stride_runs[:-1]
    sample = {"conv": "nn.Conv3d(3, 4, 3, padding=1)"}
    # (batch, frames, patches per frame, width); the width kept (the projections').
    st_runs = [(1, 4, 6, 8), (3, 2, 5, 8), (2, 8, 4, 8), (1, 1, 9, 8), (4, 3, 3, 8)]
    st = {"qt": "nn.Linear(8, 8)", "qs": "nn.Linear(8, 8)"}
    vol = (2, 2, 5, 6, 6)
    # Channels kept (3 slices of 2 channels into the 2-D conv); depth 1 and depths up to 12.
    slab_runs = [(1, 2, 5, 6, 6), (3, 2, 8, 4, 5), (2, 2, 1, 6, 6), (1, 2, 3, 7, 3), (2, 2, 12, 5, 5)]
    slab = {"conv": "nn.Conv2d(6, 4, 3, padding=1)"}
    # Cubes of tokens only (8, 27, 1, 64): eager's reshape needs N = side ** 3.
    cube_runs = [(1, 8, 8), (3, 27, 8), (2, 1, 8), (1, 64, 8)]
    cube = {"norm": "nn.LayerNorm(8)", "up": "nn.ConvTranspose3d(8, 2, 2, stride=2)"}
    # Patches 2 x 2 x 2: every side at least 2 (floors at odd sides are eager's too).
    grid_runs = [(1, 2, 4, 4, 4), (3, 2, 6, 4, 8), (2, 2, 2, 2, 2), (1, 2, 8, 6, 4), (2, 2, 5, 4, 3)]
    grid = dict(cube, embed="nn.Conv3d(2, 8, 2, stride=2)")
    return [
        P("vivit_tubelet_conv3d_int_grid", TUBELET_INT, clip, tube_runs, init=tube,
          why="ViViT's tubelet embedding: nn.Conv3d with kernel and stride 2 x 4 x 4, the tokens reshaped to "
              "(b, t, h * w, d) with t, h, w int() of the tubelet grid (2, 2, 2 at 4 x 8 x 8), a temporal "
              "position table sliced to [:t]"),
        P("vivit_tubelet_conv3d_flatten", TUBELET_FLATTEN, clip, tube_runs, init=tube,
          why="the same tubelets flattened over space by flatten(3) and permuted, the table sliced to the traced "
              "number of tubelet rows"),
        P("x3d_head_avgpool3d_module_all_frames", X3D_HEAD, (2, 3, 4, 6, 6), head_runs, init=head,
          why="an X3D-style head: a temporal nn.Conv3d, then nn.AvgPool3d((T, 1, 1)) built in forward over all "
              "the frames (4 at the export size), the spatial max, flatten(1) and a Linear classifier"),
        P("clip_sampling_python_stride", CLIP_STRIDE.format(STEP="max(int(x.size(2)) // 4, 1)"), (2, 3, 8, 6, 6),
          stride_runs, init=sample,
          why="a clip of 4 frames sampled at a uniform stride: x[:, :, ::step][:, :, :4] with step = "
              "max(int(T) // 4, 1) (2 at T = 8), then a 3 x 3 x 3 nn.Conv3d"),
        P("clip_sampling_traced_stride", CLIP_STRIDE.format(STEP="x.size(2) // 4"), (2, 3, 8, 6, 6),
          stride_runs_4, init=sample,
          why="the same sampling with the stride T // 4 of the traced length (eager needs T >= 4)"),
        P("timesformer_divided_attn_int_products", DIVIDED_ATTN.format(FOLD=DIVIDED_INT[0], FOLD_S=DIVIDED_INT[1]),
          (2, 4, 6, 8), st_runs, init=st,
          why="TimeSformer's divided space-time attention: time attention with the patches folded into the "
              "batch by reshape(int(b) * int(n), t, d) (12 at 2 x 6), then space attention with the frames "
              "folded by reshape(int(b) * int(t), n, d) (8 at 2 x 4), each viewed back and added"),
        P("timesformer_divided_attn_flatten", DIVIDED_ATTN.format(FOLD=DIVIDED_FLATTEN[0],
                                                                  FOLD_S=DIVIDED_FLATTEN[1]),
          (2, 4, 6, 8), st_runs, init=st,
          why="the same divided attention with the folds by flatten(0, 1)"),
        P("slabs_2p5d_python_loop_slices", SLABS.format(SLABS=SLABS_LOOP), vol, slab_runs, init=slab,
          why="2.5-D segmentation of a volume: the depth zero-padded by one, each slice with its two neighbours "
              "stacked by a Python loop over range(int(D)) (5 slabs at D = 5), the slabs through a 2-D conv as "
              "a batch and unflattened back to (b, c, D, h, w)"),
        P("slabs_2p5d_unfold_depth", SLABS.format(SLABS=SLABS_UNFOLD), vol, slab_runs, init=slab,
          why="the same slabs of three slices by unfold(2, 3, 1) of the padded depth, permuted"),
        P("unetr_tokens_cube_root_side", UNETR_CUBE, (2, 8, 8), cube_runs, init=cube,
          why="UNETR's decoder input: N tokens normalised and reshaped to a cube of side round(N ** (1 / 3)) (2 at "
              "N = 8), upsampled by an nn.ConvTranspose3d of stride 2"),
        P("unetr_tokens_conv3d_grid", UNETR_GRID, (2, 2, 4, 4, 4), grid_runs, init=grid,
          why="the same decoder input from a volume: tokens of an nn.Conv3d patch embedding, normalised and "
              "reshaped back to the embedding's traced grid, upsampled by the nn.ConvTranspose3d"),
    ]


def all_modules():
    # Numbered in the order written, so that each module keeps its dynamo style.
    return eu.numbered(generative_models() + forecast_models() + video_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_obscured.py", "three", final_before_linting=True)


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("obscured", __doc__, all_modules(), eu.exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
