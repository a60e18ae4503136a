#!/usr/bin/env python3
"""Export the "hidden modules" corpus (tests/corpus/hidden) and label it by running it.

A tenth corpus built the way tests/corpus/unseen, tests/corpus/fresh, tests/corpus/blind,
tests/corpus/sealed, tests/corpus/veiled, tests/corpus/cloaked, tests/corpus/shrouded,
tests/corpus/obscured and tests/corpus/masked are, after all nine: small PyTorch modules written for
this corpus alone, in idioms that no other corpus script uses (export_corpus.py, export_torch2.py,
export_classes.py, export_unseen.py, export_fresh.py, export_blind.py, export_sealed.py,
export_veiled.py, export_cloaked.py, export_shrouded.py, export_obscured.py, export_masked.py),
each module's code, `why` and family final before the linter was first run on it, and never used
to tune the linter: every module is held out. Three families:

  speech synthesis and vocoders    FastPitch's length regulator, phoneme boundaries F.pad of the
                                   durations' cumsum compared with arange(max_len) for the frames,
                                   max_len = int(T) of the teacher-forced mel against the traced T;
                                   a HiFi-GAN upsampling nn.ConvTranspose1d called with output_size
                                   [int(T) * 4], which its stride, kernel and padding give at every
                                   length; WaveRNN's fold_with_overlap, the number of folds (T - 2)
                                   // 6 bumped by one when a remainder is left and a Python loop of
                                   slices, against F.pad by (2 - T) % 6 and unfold(1, 8, 6);
                                   FastPitch's average pitch per phoneme by gather from padded
                                   cumsums at the durations' ends, expand(bs, n_formants, l) of
                                   .size(); HiFi-GAN's period discriminator reflect-padding only
                                   `if t % 3 != 0` before view(b, c, t // 3, 3); Tacotron 2's
                                   decoder inputs grouped two frames a step by view(b,
                                   int(T / 2), -1) after a go frame of new_zeros; VITS's
                                   generate_path, sequence_mask of the flat cumulative durations
                                   and a shifted difference by F.pad of a nested pad list;
                                   DC-TTS's guided attention weights over grids divided by
                                   Python's max(n - 1, 1).
  reinforcement learning and       CleanRL's GAE by a Python loop over reversed(range(T)) against
  control                          discounted returns from a Toeplitz matrix 0.9 ** (j - i) of
                                   arange differences; Monte Carlo returns with discounts
                                   torch.full((int(T),), 0.9).cumprod(0) and a flipped cumsum;
                                   sb3-contrib's recurrent PPO sequences, features reshaped to
                                   (n_seq, -1, 4), an nn.LSTMCell stepped by zip over the time axis
                                   with episode starts resetting the state; TorchBeast's
                                   time-major batch, T, B, *_ = x.shape, flattened for a conv torso
                                   and viewed back to (T, B, actions); QMIX's hypernetwork mixer
                                   for its 3 agents by view(-1, 1, 3) and bmm; a mean-field Q
                                   function whose neighbours' mean action divides by Python max(n
                                   - 1, 1) of int(N); a Gaussian policy's trajectory log-likelihood
                                   with t, a = actions.shape[1:] in its constant term; prioritized
                                   replay's importance weights (len(priorities) * P) ** -beta,
                                   normalized by their max; a Decision Transformer's history of its
                                   last 5 steps left-padded by new_zeros of 5 - t, return, state and
                                   action tokens interleaved by stack and reshape(b, 15, 8).
  medical and remote-sensing       MONAI's sliding-window inference, the scan's window count
  imaging                          int(math.ceil(float(size - 4) / 2)) + 1, last start clamped by
                                   min(), windows weighted by a Gaussian importance map and
                                   placed by F.pad into the full slice, against F.unfold and F.fold
                                   of the traced size with a fold of ones as the count; a
                                   channel-adaptive ViT's band embedding table sliced to int(C)
                                   bands; SAVI from fixed red and near-infrared bands of a 4-band
                                   tile; a 2 % - 98 % linear stretch reading a sort at int(0.02 * (n
                                   - 1)) and int(0.98 * (n - 1)) against select at (n - 1) * 2 //
                                   100 of the traced count; fastMRI's NormUnet padding to multiples
                                   of 8 by ((w - 1) // 8 + 1) * 8 with math.floor and math.ceil
                                   halves, cropped back; brain midline asymmetry by torch.split into [w //
                                   2, w % 2, w // 2]; CT windows (soft tissue, lung, bone)
                                   standardised per slice over n = win[0, 0].numel() pixels; a CT
                                   volume resampled by F.interpolate to the model's fixed 4 x 8 x 8
                                   grid.

About half take a size as a Python number (int() of a size for arange's end, a convolution's
output_size, a view target or a table slice, a Python loop over folds, steps, windows or time
steps, an if on a remainder, Python's max of sizes, math.ceil and math.floor of sizes,
torch.full's size, numel(), len(), split sizes) or branch on one, so that the export can
bake it; the others are lookalikes. Some lookalikes hold literals equal to a size of the example
input on purpose (QMIX's 3 agents, the 4 bands, the 4 x 8 x 8 CT grid, the Decision Transformer's
context of 5 steps); the output_size of the HiFi-GAN upsampler is what the layer gives anyway, and
the prioritized-replay buffer size cancels in the normalisation by design. Three modules differ
from the code they follow, for the exporters and the budget alone: FastPitch's non-zero pitch frames
are cast to long before their cumsum (TorchScript's export of a cumsum of booleans is a model ONNX
Runtime refuses to load), fastMRI's bitwise or is written as a floor division (neither exporter
takes it), and MONAI's accumulation by slice += is a placement by F.pad (twelve slice assignments
took over half the directory's budget).

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

TTS = "speech synthesis and vocoders"
RL = "reinforcement learning and control"
IMAGING = "medical and remote-sensing imaging"
FAMILIES = (TTS, RL, IMAGING)

# ---------------------------------------------------------------- speech synthesis and vocoders

REGULATE = """
max_len = {MAX_LEN}
cums = F.pad(dur.cumsum(1), (1, 0))[:, None, :]
rng = torch.arange(max_len)[None, :, None]
mult = ((cums[:, :, :-1] <= rng) & (cums[:, :, 1:] > rng)).float()
return self.proj(torch.matmul(mult, enc)) + self.prenet(mel)
"""

HIFI_UP = """
y = self.up(F.leaky_relu(x, 0.1), output_size=[int(x.size(-1)) * 4])
return y + self.res(F.leaky_relu(y, 0.1))
"""

WAVERNN_FOLD = """
b, total, f = x.size()
n = (total - 2) // 6
rem = total - (n * 6 + 2)
if rem != 0:
    n += 1
    x = F.pad(x, (0, 0, 0, 8 - rem))
folds = [x[:, i * 6:i * 6 + 8] for i in range(n)]
return self.rnn_in(torch.stack(folds, 1))
"""

WAVERNN_UNFOLD = """
p = (2 - x.size(1)) % 6
y = F.pad(x, (0, 0, 0, p)).unfold(1, 8, 6)
return self.rnn_in(y.transpose(2, 3))
"""

AVG_PITCH = """
ends = dur.cumsum(1)
starts = F.pad(ends[:, :-1], (1, 0))
nz = F.pad(torch.cumsum((pitch != 0.0).long(), dim=2), (1, 0))
cums = F.pad(torch.cumsum(pitch, dim=2), (1, 0))
bs, l = ends.size()
nf = pitch.size(1)
dcs = starts[:, None, :].expand(bs, nf, l)
dce = ends[:, None, :].expand(bs, nf, l)
sums = (torch.gather(cums, 2, dce) - torch.gather(cums, 2, dcs)).float()
elems = (torch.gather(nz, 2, dce) - torch.gather(nz, 2, dcs)).float()
avg = torch.where(elems == 0, elems, sums / elems)
return self.emb(avg).transpose(1, 2)
"""

PERIOD_DISC = """
b, c, t = x.shape
if t % 3 != 0:
    n_pad = 3 - (t % 3)
    x = F.pad(x, (0, n_pad), 'reflect')
    t = t + n_pad
x = x.view(b, c, t // 3, 3)
return self.conv(x).flatten(1, -1)
"""

TACOTRON_INPUTS = """
d = mel.transpose(1, 2).contiguous()
d = d.view(d.size(0), int(d.size(1) / 2), -1)
d = d.transpose(0, 1)
go = d.new_zeros(1, d.size(1), d.size(2))
d = torch.cat((go, d), dim=0)
return F.relu(self.prenet(d))
"""

VITS_PATH = """
mask = x_mask.unsqueeze(2) * y_mask.unsqueeze(-1)
b, _, t_y, t_x = mask.shape
cum = torch.cumsum(dur.float(), -1)
flat = cum.view(b * t_x)
path = (torch.arange(t_y, dtype=flat.dtype)[None] < flat[:, None]).float()
path = path.view(b, t_x, t_y)
path = path - F.pad(path, [0, 0, 1, 0, 0, 0])[:, :-1]
return path.unsqueeze(1).transpose(2, 3) * mask
"""

GUIDED = """
a = att.softmax(-1)
n_out, n_in = a.shape[1:]
gy = torch.arange(n_out, dtype=torch.float32)[:, None] / max(n_out - 1, 1)
gx = torch.arange(n_in, dtype=torch.float32)[None] / max(n_in - 1, 1)
w = 1.0 - torch.exp(-(gy - gx) ** 2 / (2 * 0.2 ** 2))
return a * w
"""


def tts_models():
    def P(name, src, x, runs, init=None, ints=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, ints=ints, why=why), family=TTS)
    # Phonemes (enc, dur) and teacher-forced mel frames vary independently; 4 mel bins, 8 features.
    reg = {"enc": (2, 5, 8), "dur": (2, 5), "mel": (2, 9, 4)}
    reg_runs = [{"enc": (b, n, 8), "dur": (b, n), "mel": (b, t, 4)}
                for b, n, t in ((1, 5, 9), (3, 4, 12), (2, 7, 6), (1, 2, 1), (2, 9, 20))]
    reg_init = {"proj": "nn.Linear(8, 8)", "prenet": "nn.Linear(4, 8)"}
    # (batch, 8 channels, frames): frames 6 (export), 1, 11, 3, 24.
    up_runs = [(1, 8, 6), (3, 8, 1), (2, 8, 11), (1, 8, 3), (2, 8, 24)]
    up = {"up": "nn.ConvTranspose1d(8, 4, 8, stride=4, padding=2)", "res": "nn.Conv1d(4, 4, 3, padding=1)"}
    # (batch, frames, 4 features): 14 (2 folds, no remainder), 20 (3), 17 (2 + 1), 8 (1), 5 (0 + 1), 3.
    fold_runs = [(1, 14, 4), (3, 20, 4), (2, 17, 4), (1, 8, 4), (2, 5, 4), (1, 3, 4)]
    fold = {"rnn_in": "nn.Linear(4, 8)"}
    # Durations from [0, 3): the mel frames are at least twice the phonemes, so no end passes them.
    pitch = {"pitch": (2, 1, 12), "dur": (2, 5)}
    pitch_runs = [{"pitch": (b, 1, t), "dur": (b, n)} for b, t, n in ((1, 12, 5), (3, 20, 8), (2, 7, 3),
                                                                       (1, 30, 14), (2, 4, 1))]
    emb = {"emb": "nn.Conv1d(1, 8, 3, padding=1)"}
    # (batch, 1, samples): 20 (export, pad 1), 21 (none), 24, 19 (pad 2), 8, 40.
    disc_runs = [(1, 1, 20), (3, 1, 21), (2, 1, 24), (1, 1, 19), (2, 1, 8), (1, 1, 40)]
    disc = {"conv": "nn.Conv2d(1, 4, (3, 1), padding=(1, 0))"}
    # (batch, 4 mel bins, frames): even frame counts, and one odd count (eager's view refuses it).
    taco_runs = [{"mel": s} for s in ((1, 4, 10), (3, 4, 16), (2, 4, 6), (1, 4, 2), (2, 4, 24), (1, 4, 7))]
    taco = {"prenet": "nn.Linear(8, 8)"}
    # Text and spectrogram lengths vary independently; durations from [0, 3).
    path = {"dur": (2, 1, 6), "x_mask": (2, 1, 6), "y_mask": (2, 1, 10)}
    path_runs = [{"dur": (b, 1, tx), "x_mask": (b, 1, tx), "y_mask": (b, 1, ty)}
                 for b, tx, ty in ((1, 6, 10), (3, 4, 7), (2, 9, 20), (1, 1, 3), (2, 5, 5))]
    # (batch, decoder steps, encoder steps): steps of 1 too (the max keeps the divisor 1).
    att_runs = [{"att": s} for s in ((1, 8, 5), (3, 12, 7), (2, 4, 9), (1, 1, 3), (2, 20, 2))]
    return [
        P("fastpitch_regulate_len_int_max_len", REGULATE.format(MAX_LEN="int(mel.size(1))"), reg, reg_runs,
          init=reg_init, ints={"dur": 3},
          why="FastPitch's length regulator in teacher-forced training: phoneme boundaries F.pad of the "
              "durations' cumsum, each of max_len frames assigned to the phoneme whose boundaries hold "
              "arange(max_len), max_len = int(T) of the target mel (9 at the export size), the expanded "
              "encoder states projected and added to the mel prenet"),
        P("fastpitch_regulate_len_traced_max_len", REGULATE.format(MAX_LEN="mel.size(1)"), reg, reg_runs,
          init=reg_init, ints={"dur": 3},
          why="the same length regulator with max_len = T of the traced mel"),
        P("hifigan_convtranspose_output_size_int", HIFI_UP, (2, 8, 6), up_runs, init=up,
          why="a HiFi-GAN upsampling stage by 4: leaky ReLU, nn.ConvTranspose1d(8, 4, 8, stride=4, padding=2) "
              "called with output_size [int(T) * 4] (24 at the export length 6), which is the length the "
              "layer gives at every T, then a residual Conv1d"),
        P("wavernn_fold_with_overlap_python_loop", WAVERNN_FOLD, (2, 14, 4), fold_runs, init=fold,
          why="WaveRNN's fold_with_overlap for batched generation, target 4 and overlap 2: n = (T - 2) // 6 "
              "folds, one more with the tail padded by 8 - remainder when a remainder is left, the 8-frame "
              "folds cut by a Python loop over range(n) and stacked (2 folds at the export length 14), "
              "then a Linear"),
        P("wavernn_fold_unfold_traced_pad", WAVERNN_UNFOLD, (2, 14, 4), fold_runs, init=fold,
          why="the same folds by F.pad of (2 - T) % 6 frames of the traced length and unfold(1, 8, 6)"),
        P("fastpitch_average_pitch_per_phoneme", AVG_PITCH, pitch, pitch_runs, init=emb, ints={"dur": 3},
          why="FastPitch's average pitch per phoneme: cumsums of the frame pitch and of its non-zero "
              "frames (as long) padded by one, gathered at the durations' cumulative ends and starts expanded by "
              "expand(bs, n_formants, l) of .size(), their quotient embedded by a Conv1d (5 phonemes and "
              "12 frames at export)"),
        P("hifigan_period_disc_pad_branch", PERIOD_DISC, (2, 1, 20), disc_runs, init=disc,
          why="HiFi-GAN's period-3 discriminator input: the waveform reflect-padded by 3 - t % 3 only `if t % "
              "3 != 0` (1 sample at the export length 20), viewed to (b, c, t // 3, 3), a (3, 1) conv, "
              "flattened"),
        P("tacotron2_decoder_inputs_int_true_div", TACOTRON_INPUTS, {"mel": (2, 4, 10)}, taco_runs, init=taco,
          why="Tacotron 2's parse_decoder_inputs with 2 frames per step: the mel transposed, made contiguous and "
              "viewed to (b, int(T / 2), -1) (5 steps at the export length 10), time first, a go frame of "
              "new_zeros prepended, a ReLU prenet"),
        P("vits_generate_path_sequence_mask", VITS_PATH, path, path_runs, ints={"dur": 3},
          why="VITS's generate_path: the attention mask of the text and spectrogram masks, t_y and t_x from "
              "its .shape, sequence_mask of the flattened cumulative durations against arange(t_y), "
              "viewed to (b, t_x, t_y), differenced against F.pad(path, [0, 0, 1, 0, 0, 0])[:, :-1] into "
              "a hard monotonic path (6 phonemes and 10 frames at export)"),
        P("dctts_guided_attention_python_max", GUIDED, {"att": (2, 8, 5)}, att_runs,
          why="DC-TTS's guided attention weights 1 - exp(-(n / N - t / T)^2 / (2 * 0.2^2)) on the softmaxed "
              "alignment, the decoder and encoder grids arange divided by Python's max(n - 1, 1) of the "
              "alignment's sizes (7 and 4 at the export size 8 x 5)"),
    ]


# ---------------------------------------------------------------- reinforcement learning and control

GAE = """
T = rewards.size(1)
nxt = torch.cat([values[:, 1:], last], 1)
nonterm = (dones <= 0.8).float()
adv = []
gae = torch.zeros_like(last[:, 0])
for t in reversed(range(T)):
    delta = rewards[:, t] + 0.99 * nxt[:, t] * nonterm[:, t] - values[:, t]
    gae = delta + 0.99 * 0.95 * nonterm[:, t] * gae
    adv.append(gae)
adv = torch.stack(adv[::-1], 1)
return adv, adv + values
"""

TOEPLITZ = """
t = torch.arange(rewards.size(1))
k = t[None, :] - t[:, None]
disc = torch.where(k >= 0, 0.9 ** k.clamp(min=0).float(), torch.zeros(()))
return rewards @ disc.t() - values
"""

MC_CUMPROD = """
n = int(rewards.size(1))
disc = torch.full((n,), 0.9).cumprod(0) / 0.9
g = (rewards * disc).flip(1).cumsum(1).flip(1) / disc
return g - values
"""

RECURRENT_PPO = """
n_seq = h0.shape[1]
seq = features.reshape((n_seq, -1, 4)).swapaxes(0, 1)
starts = episode_starts.float().reshape((n_seq, -1)).swapaxes(0, 1)
h, c = h0[0], c0[0]
out = []
for f, s in zip(seq, starts):
    keep = (1.0 - s).view(n_seq, 1)
    h, c = self.lstm(f, (keep * h, keep * c))
    out.append(h)
return torch.flatten(torch.stack(out).transpose(0, 1), 0, 1), h, c
"""

TORCHBEAST = """
T, B, *_ = frame.shape
x = torch.flatten(frame, 0, 1)
x = F.relu(self.conv(x)).view(T * B, -1)
x = F.relu(self.fc(x))
act = F.one_hot(last_action.view(T * B), 3).float()
r = torch.clamp(reward, -1, 1).view(T * B, 1)
core = torch.cat([x, r, act], dim=-1)
return self.policy(core).view(T, B, 3), self.baseline(core).view(T, B)
"""

QMIX = """
bs = agent_qs.size(0)
states = states.reshape(-1, 6)
qs = agent_qs.view(-1, 1, 3)
w1 = torch.abs(self.hyper_w_1(states)).view(-1, 3, 4)
b1 = self.hyper_b_1(states).view(-1, 1, 4)
hidden = F.elu(torch.bmm(qs, w1) + b1)
w_final = torch.abs(self.hyper_w_final(states)).view(-1, 4, 1)
v = self.V(states).view(-1, 1, 1)
y = torch.bmm(hidden, w_final) + v
return y.view(bs, -1, 1)
"""

MEAN_FIELD = """
n = int(obs.size(1))
probs = self.pi(obs).softmax(-1)
mean_other = (probs.sum(1, keepdim=True) - probs) / max(n - 1, 1)
return self.q(torch.cat([obs, mean_other], -1))
"""

GAUSS_TRAJ = """
mu = self.mu(obs)
z = (actions - mu) * torch.exp(-self.log_std)
t, a = actions.shape[1:]
return -0.5 * (z ** 2).sum((1, 2)) - t * self.log_std.sum() - 0.5 * t * a * math.log(2 * math.pi)
"""

PER_WEIGHTS = """
n = len(priorities)
p = priorities.abs() + 1e-3
probs = p ** 0.6 / (p ** 0.6).sum()
w = (n * probs[idx]) ** -0.4
td = self.q(obs).squeeze(-1)
return w / w.max() * td ** 2
"""

DECISION_TRANSFORMER = """
s, a, r = states[:, -5:], actions[:, -5:], rtg[:, -5:]
b, t = s.shape[:2]
pad = 5 - t
s = torch.cat([s.new_zeros(b, pad, 4), s], 1)
a = torch.cat([a.new_zeros(b, pad, 2), a], 1)
r = torch.cat([r.new_zeros(b, pad, 1), r], 1)
mask = torch.cat([s.new_zeros(b, pad), s.new_ones(b, t)], 1)
tok = torch.stack((self.er(r), self.es(s), self.ea(a)), 1).permute(0, 2, 1, 3).reshape(b, 15, 8)
tok = tok * mask.repeat_interleave(3, 1)[..., None]
h = torch.tanh(self.mix(tok.cumsum(1)))
return self.head(h.reshape(b, 5, 3, 8)[:, -1, 1])
"""


def rl_models():
    def P(name, src, x, runs, init=None, ints=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, ints=ints, why=why), family=RL)
    # (envs, steps): steps 4 (export), 10, 3, 1, 15.
    gae = {"rewards": (2, 4), "values": (2, 4), "last": (2, 1), "dones": (2, 4)}
    gae_runs = [{"rewards": (b, t), "values": (b, t), "last": (b, 1), "dones": (b, t)}
                for b, t in ((1, 4), (3, 10), (2, 3), (4, 1), (1, 15))]
    ret = {"rewards": (2, 6), "values": (2, 6)}
    ret_runs = [{"rewards": (b, t), "values": (b, t)} for b, t in ((1, 6), (3, 10), (2, 3), (4, 1), (1, 16))]
    # n_seq environments of T steps each, flattened env-major: 2 x 2 at export.
    ppo = {"features": (4, 4), "episode_starts": (4,), "h0": (1, 2, 8), "c0": (1, 2, 8)}
    ppo_runs = [{"features": (n * t, 4), "episode_starts": (n * t,), "h0": (1, n, 8), "c0": (1, n, 8)}
                for n, t in ((2, 2), (1, 5), (3, 2), (2, 7), (4, 4), (1, 4))]
    ppo_init = {"lstm": "nn.LSTMCell(4, 8)"}
    # Time-major (T, B) batches of 6 x 6 frames (the torso's Linear fixes the frame).
    beast = {"frame": (3, 2, 1, 6, 6), "last_action": (3, 2), "reward": (3, 2)}
    beast_runs = [{"frame": (t, b, 1, 6, 6), "last_action": (t, b), "reward": (t, b)}
                  for t, b in ((3, 2), (1, 4), (5, 1), (2, 3), (8, 2))]
    beast_init = {"conv": "nn.Conv2d(1, 4, 3, stride=2)", "fc": "nn.Linear(16, 8)",
                  "policy": "nn.Linear(12, 3)", "baseline": "nn.Linear(12, 1)"}
    # (episodes, steps, 3 agents) and the global state of 6 features.
    mix = {"agent_qs": (2, 5, 3), "states": (2, 5, 6)}
    mix_runs = [{"agent_qs": (b, t, 3), "states": (b, t, 6)} for b, t in ((1, 5), (3, 2), (2, 9), (4, 1))]
    mix_init = {"hyper_w_1": "nn.Linear(6, 12)", "hyper_b_1": "nn.Linear(6, 4)",
                "hyper_w_final": "nn.Linear(6, 4)", "V": "nn.Linear(6, 1)"}
    # (batch, agents, 4 features): agents 5 (export), 3, 8, 1, 2.
    mf_runs = [{"obs": s} for s in ((1, 5, 4), (3, 3, 4), (2, 8, 4), (1, 1, 4), (2, 2, 4))]
    mf = {"pi": "nn.Linear(4, 3)", "q": "nn.Linear(7, 3)"}
    # (batch, steps, 4 observation features) and 2 action dimensions.
    traj = {"obs": (2, 5, 4), "actions": (2, 5, 2)}
    traj_runs = [{"obs": (b, t, 4), "actions": (b, t, 2)} for b, t in ((1, 5), (3, 9), (2, 2), (1, 1), (4, 12))]
    gauss = {"mu": "nn.Linear(4, 2)", "log_std": "nn.Parameter(torch.randn(2) * 0.1)"}
    # A replay buffer of N priorities, a batch of B sampled indices from [0, 6) (every N is at least 6).
    per = {"priorities": (10,), "idx": (4,), "obs": (4, 4)}
    per_runs = [{"priorities": (n,), "idx": (b,), "obs": (b, 4)} for n, b in ((10, 4), (6, 1), (25, 8),
                                                                              (7, 3), (40, 16))]
    per_init = {"q": "nn.Linear(4, 1)"}
    # Histories of 3 steps (export), 5 (the context), 8 (cut to 5), 1, 4.
    dt = {"states": (2, 3, 4), "actions": (2, 3, 2), "rtg": (2, 3, 1)}
    dt_runs = [{"states": (b, t, 4), "actions": (b, t, 2), "rtg": (b, t, 1)}
               for b, t in ((1, 3), (3, 5), (2, 8), (1, 1), (4, 4))]
    dt_init = {"er": "nn.Linear(1, 8)", "es": "nn.Linear(4, 8)", "ea": "nn.Linear(2, 8)",
               "mix": "nn.Linear(8, 8)", "head": "nn.Linear(8, 2)"}
    return [
        P("ppo_gae_reversed_python_loop", GAE, gae, gae_runs,
          why="CleanRL's generalized advantage estimation, gamma 0.99 and lambda 0.95: next values the "
              "values shifted by one with the bootstrap value last, episodes cut where dones > 0.8, a Python "
              "loop over reversed(range(T)) (4 steps at export), advantages stacked and returns added"),
        P("discounted_returns_toeplitz_arange", TOEPLITZ, ret, ret_runs,
          why="discounted returns with gamma 0.9 as one matmul: a Toeplitz matrix 0.9 ** (j - i) above the "
              "diagonal from differences of arange(T) of the traced steps, minus the values"),
        P("mc_returns_full_cumprod_int_horizon", MC_CUMPROD, ret, ret_runs,
          why="Monte Carlo returns with gamma 0.9: discounts torch.full((n,), 0.9).cumprod(0) / 0.9 with n = "
              "int(T) (6 at export), the discounted rewards' reversed cumsum by flip, cumsum, flip, divided "
              "back by the discounts, minus the values"),
        P("recurrent_ppo_sequence_zip_loop", RECURRENT_PPO, ppo, ppo_runs, init=ppo_init, ints={"episode_starts": 2},
          why="sb3-contrib's recurrent PPO sequence processing: flat features reshaped to (n_seq, -1, 4) "
              "with n_seq from the LSTM state's shape and swapped time-first, an nn.LSTMCell stepped by a "
              "Python zip over the time steps and the episode starts (2 steps of 2 environments at "
              "export), the state zeroed where an episode starts, outputs flattened env-major"),
        P("torchbeast_time_major_flatten_view", TORCHBEAST, beast, beast_runs, init=beast_init,
          ints={"last_action": 3},
          why="TorchBeast's Atari net: T, B, *_ = frame.shape of the time-major batch, frames flattened "
              "by torch.flatten(frame, 0, 1) through a stride-2 conv and a Linear, the clipped reward and "
              "one_hot of the last of 3 actions concatenated, policy logits and baseline viewed back to "
              "(T, B, 3) and (T, B) (3 x 2 at export)"),
        P("qmix_mixer_hypernet_fixed_agents", QMIX, mix, mix_runs, init=mix_init,
          why="QMIX's mixing network for its 3 agents: the agents' Q values viewed (-1, 1, 3) and mixed "
              "by bmm with non-negative hypernetwork weights of the 6-feature state, viewed back to (bs, "
              "-1, 1); 3 is the mixer's agent count, also the export size of the last axis"),
        P("mean_field_neighbour_python_divisor", MEAN_FIELD, {"obs": (2, 5, 4)}, mf_runs, init=mf,
          why="mean-field Q-learning: each agent's policy softmax, the mean action of the other agents "
              "(sum minus its own) divided by Python's max(n - 1, 1) with n = int(N) agents (4 at the export "
              "size of 5), concatenated with the observation into a Q head"),
        P("gaussian_policy_trajectory_logprob_shape", GAUSS_TRAJ, traj, traj_runs, init=gauss,
          why="a diagonal Gaussian policy's log-likelihood of a whole trajectory: the squared standardised "
              "actions summed, minus t * sum(log_std) and 0.5 * t * a * math.log(2 pi) with t, a = "
              "actions.shape[1:] (5 and 2 at export)"),
        P("per_importance_weights_buffer_len", PER_WEIGHTS, per, per_runs, init=per_init, ints={"idx": 6},
          why="prioritized replay: probabilities priorities ** 0.6 normalised, importance weights (n * P(i)) "
              "** -0.4 with n = len(priorities) (10 at export), divided by their max, weighting the squared "
              "TD errors of a Q head; n cancels in the division by the max"),
        P("decision_transformer_left_pad_history", DECISION_TRANSFORMER, dt, dt_runs, init=dt_init,
          why="a Decision Transformer's action from its last 5 steps: states, actions and returns-to-go cut "
              "by [:, -5:], left-padded by new_zeros(b, 5 - t, ...) with an attention mask of zeros and "
              "ones, the three token kinds interleaved by stack, permute and reshape(b, 15, 8), a causal "
              "cumulative mix, the action read at the last state token (3 steps at export; 5 is the "
              "model's context)"),
    ]


# ---------------------------------------------------------------- medical and remote-sensing imaging

SLIDING_WINDOW = """
h, w = x.shape[-2:]
starts = []
for size in (h, w):
    num = int(math.ceil(float(size - 4) / 2)) + 1
    starts.append([min(i * 2, size - 4) for i in range(num)])
out = 0
count = 0
for y0 in starts[0]:
    for x0 in starts[1]:
        pred = self.net(x[..., y0:y0 + 4, x0:x0 + 4]) * self.importance
        pads = (x0, w - x0 - 4, y0, h - y0 - 4)
        out = out + F.pad(pred, pads)
        count = count + F.pad(self.importance, pads)
return out / count
"""

UNFOLD_FOLD = """
b, c, h, w = x.shape
cols = F.unfold(x, 4, stride=2)
cols = self.head(cols.transpose(1, 2)).transpose(1, 2)
out = F.fold(cols, (h, w), 4, stride=2)
count = F.fold(F.unfold(torch.ones_like(x[:, :1]), 4, stride=2), (h, w), 4, stride=2)
return out / count
"""

BAND_EMBED = """
b, c, h, w = x.shape
n = int(c)
tok = self.patch(x.reshape(b * c, 1, h, w)).flatten(2).transpose(1, 2)
tok = tok.reshape(b, c, -1, 8) + self.band_emb[:n, None, :]
return tok.mean(1)
"""

SAVI = """
refl = (x + 1) * 0.5
red, nir = refl[:, 2:3], refl[:, 3:4]
savi = 1.5 * (nir - red) / (nir + red + 0.5)
return self.conv(torch.cat([refl, savi], 1))
"""

STRETCH = """
flat = x.flatten(2)
n = {N}
srt = flat.sort(-1).values
lo = {LO}
hi = {HI}
return ((x - lo[..., None, None]) / (hi - lo).clamp(min=1e-6)[..., None, None]).clamp(0, 1)
"""

NORMUNET_PAD = """
_, _, h, w = x.shape
w_mult = ((w - 1) // 8 + 1) * 8
h_mult = ((h - 1) // 8 + 1) * 8
w_pad = [math.floor((w_mult - w) / 2), math.ceil((w_mult - w) / 2)]
h_pad = [math.floor((h_mult - h) / 2), math.ceil((h_mult - h) / 2)]
y = self.unet(F.pad(x, w_pad + h_pad))
return y[..., h_pad[0]:h_mult - h_pad[1], w_pad[0]:w_mult - w_pad[1]]
"""

MIDLINE = """
w = x.size(-1)
left, mid, right = torch.split(x, [w // 2, w % 2, w // 2], dim=-1)
diff = left - right.flip(-1)
return self.conv(torch.cat([left, diff], 1)).mean((2, 3))
"""

CT_WINDOWS = """
hu = x * 1000.0
win = torch.cat([((hu - (c - w / 2)) / w).clamp(0, 1) for c, w in ((40.0, 400.0), (-600.0, 1500.0),
                                                                  (300.0, 1800.0))], 1)
n = win[0, 0].numel()
mean = win.sum((2, 3), keepdim=True) / n
var = ((win - mean) ** 2).sum((2, 3), keepdim=True) / (n - 1)
return self.conv((win - mean) / (var + 1e-5).sqrt())
"""

CT_GRID = """
v = F.interpolate(vol, size=(4, 8, 8), mode='trilinear', align_corners=False)
return self.head(F.relu(self.conv(v)).flatten(1))
"""

GAUSS_4X4 = ("torch.exp(-((torch.arange(4.) - 1.5) ** 2)[:, None] / 2 - ((torch.arange(4.) - 1.5) ** 2)[None] / 2)"
             "[None, None]")


def imaging_models():
    def P(name, src, x, runs, init=None, why=""):
        return dict(ec.M(name, src, x=x, runs=runs, init=init, why=why), family=IMAGING)
    # One-channel slices, every side at least the 4 x 4 window: 6 x 8 (export: 2 x 3 windows), 12 x 8,
    # 6 x 6, 9 x 11 (last starts clamped), 4 x 4.
    sw_runs = [(1, 1, 6, 8), (3, 1, 12, 8), (2, 1, 6, 6), (1, 1, 9, 11), (2, 1, 4, 4)]
    sw = {"net": "nn.Conv2d(1, 2, 3, padding=1)", "importance": GAUSS_4X4}
    # Even sides from 4: every pixel is under a window of the stride-2 scan.
    uf_runs = [(1, 1, 8, 10), (3, 1, 12, 8), (2, 1, 6, 6), (1, 1, 4, 14), (2, 1, 16, 4)]
    uf = {"head": "nn.Linear(16, 16)"}
    # (batch, bands, height, width): 4 bands at export, then 3, 6, 1, 5; even sides (2 x 2 patches).
    band_runs = [(1, 4, 8, 10), (3, 3, 6, 6), (2, 6, 8, 4), (1, 1, 4, 12), (2, 5, 10, 10)]
    band = {"patch": "nn.Conv2d(1, 8, 2, stride=2)", "band_emb": "nn.Parameter(torch.randn(6, 8) * 0.1)"}
    # Blue, green, red and near-infrared: 4 bands (the conv's) at every size.
    savi_runs = [(1, 4, 8, 10), (3, 4, 5, 7), (2, 4, 16, 12), (1, 4, 1, 1)]
    savi = {"conv": "nn.Conv2d(5, 4, 3, padding=1)"}
    # 80 pixels per band at export (8 x 10); then 42, 120, 20, 256, 9.
    stretch_runs = [(1, 3, 8, 10), (3, 2, 6, 7), (2, 4, 12, 10), (1, 3, 4, 5), (2, 1, 16, 16), (1, 3, 3, 3)]
    # fastMRI's two real channels of a complex image: 6 x 10 pads to 8 x 16 at export.
    mri_runs = [(1, 2, 6, 10), (3, 2, 8, 8), (2, 2, 12, 7), (1, 2, 5, 17), (2, 2, 16, 16)]
    mri = {"unet": "nn.Sequential(nn.Conv2d(2, 4, 3, stride=2, padding=1), nn.ReLU(), "
                   "nn.ConvTranspose2d(4, 2, 2, stride=2))"}
    # Axial slices: odd width 11 at export (a middle column of 1), even and odd widths after.
    mid_runs = [(1, 1, 8, 11), (3, 1, 6, 10), (2, 1, 12, 9), (1, 1, 5, 16), (2, 1, 8, 7)]
    mid = {"conv": "nn.Conv2d(2, 4, 3, padding=1)"}
    # One-channel slices of at least 2 pixels.
    ct_runs = [(1, 1, 8, 10), (3, 1, 6, 7), (2, 1, 16, 12), (1, 1, 1, 2), (2, 1, 20, 5)]
    ct = {"conv": "nn.Conv2d(3, 4, 3, padding=1)"}
    # Volumes of any size resampled to 4 x 8 x 8, the export size.
    vol_runs = [{"vol": s} for s in ((1, 1, 4, 8, 8), (3, 1, 6, 10, 12), (2, 1, 2, 5, 4),
                                     (1, 1, 9, 16, 16))]
    vol = {"conv": "nn.Conv3d(1, 2, 3, stride=2, padding=1)", "head": "nn.Linear(64, 3)"}
    return [
        P("monai_sliding_window_scan_interval_loop", SLIDING_WINDOW, (2, 1, 6, 8), sw_runs, init=sw,
          why="MONAI-style sliding-window inference with a 4 x 4 ROI and overlap 0.5: per side the window "
              "count int(math.ceil(float(size - 4) / 2)) + 1 and starts min(i * 2, size - 4) (2 x 3 windows "
              "at 6 x 8), each window's prediction weighted by a Gaussian importance map, placed into the "
              "full slice by F.pad with (x0, w - x0 - 4, y0, h - y0 - 4) and summed, divided by the "
              "placed maps' sum"),
        P("sliding_window_unfold_fold_average", UNFOLD_FOLD, (2, 1, 8, 10), uf_runs, init=uf,
          why="the same overlapping 4 x 4 windows at stride 2 by F.unfold, a Linear over each window's "
              "pixels, F.fold back to (h, w) of the traced shape, divided by a fold of unfolded ones"),
        P("channel_vit_band_embedding_int_slice", BAND_EMBED, (2, 4, 8, 10), band_runs, init=band,
          why="a channel-adaptive ViT for multi-band tiles: every band through a shared 2 x 2 patch conv with "
              "the bands folded into the batch, plus a row of a 6-band embedding table sliced by band_emb[:n] "
              "with n = int(C) (4 at export), averaged over the bands"),
        P("savi_fixed_red_nir_bands", SAVI, (2, 4, 8, 10), savi_runs, init=savi,
          why="the soil-adjusted vegetation index 1.5 (NIR - red) / (NIR + red + 0.5) of a 4-band tile "
              "(blue, green, red, near-infrared at channels 2 and 3, reflectance rescaled to [0, 1]), "
              "concatenated with the bands for a 3 x 3 conv; 4 is the sensor's band count, also the export "
              "channels"),
        P("rs_percentile_stretch_int_index", STRETCH.format(N="int(flat.size(-1))",
                                                            LO="srt[..., int(0.02 * (n - 1))]",
                                                            HI="srt[..., int(0.98 * (n - 1))]"),
          (2, 3, 8, 10), stretch_runs,
          why="a 2 % - 98 % linear stretch of every band of a tile: the pixels sorted, the low and high "
              "percentiles read at int(0.02 * (n - 1)) and int(0.98 * (n - 1)) with n = int() of the pixel "
              "count (1 and 77 of 80 at 8 x 10), the band rescaled and clipped to [0, 1]"),
        P("rs_percentile_stretch_traced_index", STRETCH.format(N="flat.size(-1)",
                                                               LO="srt.select(-1, (n - 1) * 2 // 100)",
                                                               HI="srt.select(-1, (n - 1) * 98 // 100)"),
          (2, 3, 8, 10), stretch_runs,
          why="the same stretch with the percentiles read by select at (n - 1) * 2 // 100 and (n - 1) * 98 // "
              "100 of the traced pixel count"),
        P("fastmri_normunet_pad_floor_ceil_halves", NORMUNET_PAD, (2, 2, 6, 10), mri_runs, init=mri,
          why="fastMRI's NormUnet padding to multiples of 8, h_mult, w_mult = ((h - 1) // 8 + 1) * 8, ((w - "
              "1) // 8 + 1) * 8 (fastMRI's bitwise or ((h - 1) | 7) + 1 written as a floor division, "
              "since neither exporter takes the or), split into math.floor and math.ceil halves (8 x 16, "
              "pads [3, 3] and [1, 1] at 6 x 10), a stride-2 conv and transposed conv, the padding cropped "
              "off by slices"),
        P("brain_midline_asymmetry_split", MIDLINE, (2, 1, 8, 11), mid_runs, init=mid,
          why="brain asymmetry features of an axial slice: torch.split along the width into [w // 2, w % 2, "
              "w // 2] (5, 1, 5 at the export width 11), the right half mirrored by flip and subtracted "
              "from the left, both through a 3 x 3 conv, averaged"),
        P("ct_window_level_numel_zscore", CT_WINDOWS, (2, 1, 8, 10), ct_runs, init=ct,
          why="CT window/level channels (soft tissue 40 / 400, lung -600 / 1500, bone 300 / 1800 HU) by a "
              "list comprehension over the fixed windows, each slice standardised with the mean and the "
              "sample variance over n = win[0, 0].numel() pixels (80 at 8 x 10), then a 3 x 3 conv"),
        P("ct_volume_resample_fixed_grid", CT_GRID, {"vol": (2, 1, 4, 8, 8)}, vol_runs, init=vol,
          why="a CT volume classifier: the volume resampled by trilinear F.interpolate to the model's fixed "
              "4 x 8 x 8 grid (also the export size), a stride-2 Conv3d, flattened into a Linear"),
    ]


def all_modules():
    # Numbered in the order written, so that each module keeps its dynamo style.
    return eu.numbered(tts_models() + rl_models() + imaging_models())


counts = eu.counts_by(FAMILIES)


ABOUT = eu.held_out_about("export_hidden.py", "three", final_before_linting=True)


# export_unseen.py's exports of a module, with memory addresses dropped from the notes.
exports = eu.exports_scrubbed


def main():
    # Every module is held out: nothing in the linter is tuned on this corpus.
    ecl.export_family("hidden", __doc__, all_modules(), exports, lambda name: True, ABOUT, counts, MAX_DIR,
                      scrub=eu.scrub_addresses)


if __name__ == "__main__":
    main()
