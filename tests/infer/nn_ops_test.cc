// Neural-network op families: convolution relatives, quantisation, normalisations, recurrent
// layers, attention, signal processing, losses, random generators and the com.microsoft
// contrib ops. Each expectation is worked out by hand from the operator definition, in the
// comment next to it.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_join.h"
#include "infer/infer_fixture.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorProto;

TEST_CASE("ConvTranspose: pads, output_padding, auto_pad, output_shape, group", "[infer][nn]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[C,4,3,3] w, float[C,4,2,2] w2, float[16,4,3,3] w16) => (float[N,?,?,?] a) {
  a = ConvTranspose <strides = [2, 2]> (x, w)
  b = ConvTranspose <strides = [2, 2], pads = [1, 1, 1, 1], output_padding = [1, 1]> (x, w)
  c = ConvTranspose <strides = [2, 2], auto_pad = "SAME_UPPER"> (x, w)
  d = ConvTranspose <strides = [2, 2], output_shape = [10, 12]> (x, w)
  e = ConvTranspose <strides = [3, 3], auto_pad = "SAME_LOWER"> (x, w2)
  f = ConvTranspose <group = 2, dilations = [2, 2]> (x, w)
  h = ConvTranspose <auto_pad = "VALID", pads = [5, 5, 5, 5]> (x, w)
  k = ConvTranspose (x, w16)
})",
                 11);
  // stride * (in - 1) + output_padding + ((k - 1) * d + 1) - pads = 2(H - 1) + 3 = 2H + 1;
  // channels W.shape[1] * group = 4.
  CHECK(r.Shape("a") == "[N, 4, 2*H + 1, 2*W + 1]");
  // 2(H - 1) + 1 + 3 - 2 = 2H
  CHECK(r.Shape("b") == "[N, 4, 2*H, 2*W]");
  // SAME_*: in * stride (effective kernel 3 >= stride 2, where every reading agrees)
  CHECK(r.Shape("c") == "[N, 4, 2*H, 2*W]");
  // output_shape holds the spatial dims.
  CHECK(r.Shape("d") == "[N, 4, 10, 12]");
  // SAME with an effective kernel (2) below the stride (3): the spec says 3H, ONNX's shape
  // inference 3(H - 1) + 2; left unknown.
  CHECK(r.Shape("e") == "[N, 4, ?, ?]");
  // group 2: 8 channels; dilation 2: (3 - 1) * 2 + 1 = 5, so (H - 1) + 5 = H + 4.
  CHECK(r.Shape("f") == "[N, 8, H + 4, W + 4]");
  // VALID ignores pads: (H - 1) + 3 = H + 2.
  CHECK(r.Shape("h") == "[N, 4, H + 2, W + 2]");
  // W's first dim is X's channel count: C must be 16.
  const Requirement* req = r.FindRequirement("C", "16");
  REQUIRE(req != nullptr);
  CHECK(req->kind == RequirementKind::kChannels);
}

TEST_CASE("quantised and deformable convolutions use Conv's window rule", "[infer][nn]") {
  auto r = Infer(R"(
g (uint8[N,3,H,W] x, uint8[8,3,3,3] w, float xs, uint8 xz, float ws, uint8 wz, float ys, int8 yz,
   float[N,C,H,W] xf, float[8,C,3,3] wf, float[N,18,H,W] off) => (int32[N,8,H,W] ci) {
  ci = ConvInteger <pads = [1, 1, 1, 1]> (x, w)
  ql = QLinearConv <strides = [2, 2]> (x, xs, xz, w, ws, wz, ys, yz)
  qs = QLinearConv <strides = [2, 2], auto_pad = "SAME_UPPER"> (x, xs, xz, w, ws, wz, ys, yz)
  dc = DeformConv <pads = [1, 1, 1, 1]> (xf, wf, off)
})",
                 19);
  // floor((H + 2 - 2 - 1) / 1) + 1 = H; y is int32.
  CHECK(r.Shape("ci") == "[N, 8, H, W]");
  CHECK(r.Type("ci") == TensorProto::INT32);
  // floor((H - 3) / 2) + 1 = floor((H + 1) / 2) - 1 in canonical form; y has y_zero_point's
  // type (int8).
  CHECK(r.Shape("ql") == "[N, 8, floor((H + 1) / 2) - 1, floor((W + 1) / 2) - 1]");
  CHECK(r.Type("ql") == TensorProto::INT8);
  // SAME: ceil(H / 2) = floor((H + 1) / 2)
  CHECK(r.Shape("qs") == "[N, 8, floor((H + 1) / 2), floor((W + 1) / 2)]");
  CHECK(r.Shape("dc") == "[N, 8, H, W]");
  // DeformConv at opset 18 does not exist yet: unknown.
  auto old = Infer(R"(
g (float[N,C,H,W] xf, float[8,C,3,3] wf, float[N,18,H,W] off) => (float[N,8,H,W] z) {
  dc = DeformConv <pads = [1, 1, 1, 1]> (xf, wf, off)
  z = Identity (dc)
})",
                   18);
  CHECK(old.Shape("dc") == "?");
  CHECK(old.inference.requirements.empty());
}

TEST_CASE("MaxUnpool and Col2Im", "[infer][nn]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, int64[N,C,H,W] i, float[N,C,P,Q] orig, float[N,12,L] cols, float[N,K,L] cols2)
  => (float[N,C,?,?] u) {
  u = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i)
  v = MaxUnpool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x, i)
  s = Shape (orig)
  o = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i, s)
  image = Constant <value = int64[2] {5, 6}> ()
  block = Constant <value = int64[2] {2, 2}> ()
  im = Col2Im (cols, image, block)
  im2 = Col2Im (cols2, image, block)
})",
                 18);
  // (H - 1) * 2 + 2 = 2H
  CHECK(r.Shape("u") == "[N, C, 2*H, 2*W]");
  // (H - 1) * 2 + 3 - 2 = 2H - 1
  CHECK(r.Shape("v") == "[N, C, 2*H - 1, 2*W - 1]");
  // The output_shape input is the whole output shape.
  CHECK(r.Shape("o") == "[N, C, P, Q]");
  // [N, C * prod(block), L] -> [N, C, image]: 12 / 4 = 3.
  CHECK(r.Shape("im") == "[N, 3, 5, 6]");
  // K / 4 is exact where the graph runs, and K must divide by 4.
  CHECK(r.Shape("im2") == "[N, floor(K / 4), 5, 6]");
  const Requirement* req = r.FindRequirement("K", "4");
  REQUIRE(req != nullptr);
  CHECK(req->relation == Relation::kDivisible);
}

TEST_CASE("quantisation keeps shapes; integer matmuls follow MatMul", "[infer][nn]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[C] s, uint8[C] z, float[N,64] x2, float[32] s2, float[1] s1,
   uint8[B,S,64] a, uint8[64,32] b, float sa, uint8 za, float sb, uint8 zb, float sy, int8 zy)
  => (uint8[N,C,H,W] q) {
  q = QuantizeLinear (x, s, z)
  dq = DequantizeLinear (q, s, z)
  bad = QuantizeLinear <axis = 1> (x2, s2)
  one = QuantizeLinear <axis = 1> (x2, s1)
  y, ys, yz = DynamicQuantizeLinear (x)
  mi = MatMulInteger (a, b)
  qm = QLinearMatMul (a, sa, za, b, sb, zb, sy, zy)
})",
                 13);
  CHECK(r.Shape("q") == "[N, C, H, W]");
  CHECK(r.Type("q") == TensorProto::UINT8);
  CHECK(r.Shape("dq") == "[N, C, H, W]");
  CHECK(r.Type("dq") == TensorProto::FLOAT);
  // Per-axis scale of 32 on an axis of 64: broken at every size.
  CHECK(r.FindRequirement("64", "32") != nullptr);
  // No zero point: uint8.
  CHECK(r.Type("bad") == TensorProto::UINT8);
  // A one-element scale is per-tensor: nothing to check.
  CHECK(r.FindRequirement("64", "1") == nullptr);
  CHECK(r.Shape("y") == "[N, C, H, W]");
  CHECK(r.Shape("ys") == "[]");
  CHECK(r.Type("ys") == TensorProto::FLOAT);
  CHECK(r.Shape("yz") == "[]");
  CHECK(r.Type("yz") == TensorProto::UINT8);
  // [B, S, 64] x [64, 32] -> [B, S, 32]
  CHECK(r.Shape("mi") == "[B, S, 32]");
  CHECK(r.Type("mi") == TensorProto::INT32);
  CHECK(r.Shape("qm") == "[B, S, 32]");
  CHECK(r.Type("qm") == TensorProto::INT8);

  // Opset 21: blocked scales keep x's rank and output_dtype sets the type.
  auto b21 = Infer(R"(
g (float[N,64] x, float[N,4] s) => (int8[N,64] q) {
  q = QuantizeLinear <axis = 1, block_size = 16, output_dtype = 3> (x, s)
})",
                   21);
  CHECK(b21.Shape("q") == "[N, 64]");
  CHECK(b21.Type("q") == TensorProto::INT8);
  CHECK(b21.inference.requirements.empty());
}

TEST_CASE("layer, group, RMS and instance normalisation", "[infer][nn]") {
  auto r = Infer(R"(
g (float[B,S,768] x, float[768] sc, float[768] bi, float[B,S,H] xh, float[N,C,P,Q] img,
   float[4] g4, float[64] c64) => (float[B,S,768] y) {
  y, m, inv = LayerNormalization (x, sc, bi)
  y1, m1, inv1 = LayerNormalization <axis = 1> (x, sc, bi)
  yh = LayerNormalization (xh, sc)
  gn = GroupNormalization <num_groups = 4> (img, g4, g4)
  inn = InstanceNormalization (img, c64, c64)
  sy, sinv = SimplifiedLayerNormalization (x, sc)
})",
                 18);
  CHECK(r.Shape("y") == "[B, S, 768]");
  // Statistics keep the reduced axes with size 1: [d0, ..., d(axis-1), 1, ..., 1].
  CHECK(r.Shape("m") == "[B, S, 1]");
  CHECK(r.Shape("inv") == "[B, S, 1]");
  CHECK(r.Type("m") == TensorProto::FLOAT);  // stash_type
  CHECK(r.Shape("m1") == "[B, 1, 1]");
  // Scale [768] broadcasts to X's last axis: H is pinned to 768 (or 1).
  const Requirement* req = r.FindRequirement("768", "H");
  REQUIRE(req != nullptr);
  CHECK(req->relation == Relation::kBroadcastable);
  // GroupNormalization: same shape, C divisible by num_groups.
  CHECK(r.Shape("gn") == "[N, C, P, Q]");
  const Requirement* div = r.FindRequirement("C", "4");
  REQUIRE(div != nullptr);
  CHECK(div->relation == Relation::kDivisible);
  // InstanceNormalization: scale and B have C entries.
  CHECK(r.Shape("inn") == "[N, C, P, Q]");
  CHECK(r.FindRequirement("C", "64") != nullptr);
  CHECK(r.Shape("sy") == "[B, S, 768]");
  CHECK(r.Shape("sinv") == "[B, S, 1]");

  // Opset 16: ONNX Runtime's default-domain LayerNormalization; RMSNormalization needs 23.
  auto old = Infer(R"(
g (float[B,S,768] x, float[768] sc) => (float[B,S,768] y) {
  y, m = LayerNormalization (x, sc)
  rn = RMSNormalization (x, sc)
})",
                   16);
  CHECK(old.Shape("m") == "[B, S, 1]");
  CHECK(old.Shape("rn") == "?");
  auto v23 = Infer(R"(
g (float[B,S,768] x, float[768] sc) => (float[B,S,768] y) {
  y = RMSNormalization (x, sc)
})",
                   23);
  CHECK(v23.Shape("y") == "[B, S, 768]");
}

TEST_CASE("regions, grids and box selection", "[infer][nn]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[R,4] rois, int64[R] bi, float[R,5] rois5, float[N,Ho,Wo,2] grid,
   float[N,2,3] theta, float[M,K,4] boxes, float[M,L,K] scores)
  => (float[R,C,7,7] ra) {
  ra = RoiAlign <output_height = 7, output_width = 7> (x, rois, bi)
  rd = RoiAlign (x, rois, bi)
  mr = MaxRoiPool <pooled_shape = [6, 6]> (x, rois5)
  gs = GridSample (x, grid)
  size = Shape (x)
  ag = AffineGrid (theta, size)
  nms = NonMaxSuppression (boxes, scores)
})",
                 20);
  CHECK(r.Shape("ra") == "[R, C, 7, 7]");
  CHECK(r.Shape("rd") == "[R, C, 1, 1]");  // output_height / output_width default to 1
  CHECK(r.Shape("mr") == "[R, C, 6, 6]");
  CHECK(r.Shape("gs") == "[N, C, Ho, Wo]");
  // size (N, C, H, W) -> grid (N, H, W, 2)
  CHECK(r.Shape("ag") == "[N, H, W, 2]");
  // [num_selected_indices, 3] int64, the count a fresh symbol.
  const TensorFact& nms = r.Fact("nms");
  REQUIRE(nms.shape);
  REQUIRE(nms.shape->size() == 2);
  REQUIRE((*nms.shape)[0]);
  CHECK((*nms.shape)[0]->AsSymbol().has_value());
  CHECK(r.Shape("nms").ends_with(", 3]"));
  CHECK(nms.elem_type == TensorProto::INT64);

  // GridSample-16 is 2-D only; 20 takes N-D.
  auto g3 = Infer(R"(
g (float[N,C,D,H,W] x, float[N,A,B,E,3] grid) => (float[N,C,A,B,E] y) {
  y = GridSample (x, grid)
})",
                  20);
  CHECK(g3.Shape("y") == "[N, C, A, B, E]");
}

TEST_CASE("LSTM, GRU and RNN in both layouts", "[infer][nn]") {
  auto r = Infer(R"(
g (float[T,B,16] x, float[2,80,16] w, float[2,80,20] rr, float[B,T,16] xb,
   float[1,60,16] wg, float[1,60,20] rg, float[1,20,16] wr, float[1,20,20] rrr, float[1,1,20] h0,
   float[1,80,16] w1, float[1,80,20] r1) => (float[T,2,B,20] y) {
  y, yh, yc = LSTM <hidden_size = 20, direction = "bidirectional"> (x, w, rr)
  by, byh, byc = LSTM <hidden_size = 20, direction = "bidirectional", layout = 1> (xb, w, rr)
  gy, gyh = GRU <hidden_size = 20> (x, wg, rg)
  ry, ryh = RNN <hidden_size = 20, direction = "reverse"> (x, wr, rrr, , , h0)
  ly, lyh, lyc = LSTM <hidden_size = 20> (x, w1, r1, , , h0, h0)
})",
                 14);
  // layout 0: Y [seq, num_directions, batch, hidden], Y_h / Y_c [num_directions, batch, hidden]
  CHECK(r.Shape("y") == "[T, 2, B, 20]");
  CHECK(r.Shape("yh") == "[2, B, 20]");
  CHECK(r.Shape("yc") == "[2, B, 20]");
  // layout 1: Y [batch, seq, num_directions, hidden], Y_h / Y_c [batch, num_directions, hidden]
  CHECK(r.Shape("by") == "[B, T, 2, 20]");
  CHECK(r.Shape("byh") == "[B, 2, 20]");
  CHECK(r.Shape("gy") == "[T, 1, B, 20]");
  CHECK(r.Shape("gyh") == "[1, B, 20]");
  CHECK(r.Shape("ry") == "[T, 1, B, 20]");
  // An initial state exported at batch 1 pins the batch.
  const Requirement* req = r.FindRequirement("1", "B");
  REQUIRE(req != nullptr);
  CHECK(req->relation == Relation::kEqual);
  CHECK(r.Shape("lyc") == "[1, B, 20]");
  // Its first axis is the direction count: a state of [B, B, 20] holds only at B = 1.
  auto dirs = Infer(R"(
g (float[T,B,16] x, float[1,80,16] w1, float[1,80,20] r1, float[B,B,20] h0) => (float[T,1,B,20] y) {
  y, yh, yc = LSTM <hidden_size = 20> (x, w1, r1, , , h0, h0)
})",
                    14);
  const Requirement* directions = dirs.FindRequirement("B", "1");
  REQUIRE(directions != nullptr);
  CHECK_THAT(directions->what, Catch::Matchers::Contains("num_directions"));

  // Before opset 14 there is no layout attribute: layout 0 whatever it says.
  auto old = Infer(R"(
g (float[T,B,16] x, float[1,60,16] w, float[1,60,20] rr) => (float[T,1,B,20] y) {
  y = GRU <hidden_size = 20, layout = 1> (x, w, rr)
})",
                   7);
  CHECK(old.Shape("y") == "[T, 1, B, 20]");
  // Without hidden_size, R's last dim is the hidden size.
  auto nohs = Infer(R"(
g (float[T,B,16] x, float[1,60,16] w, float[1,60,20] rr) => (float[T,1,B,20] y) {
  y, yh = GRU (x, w, rr)
})",
                    14);
  CHECK(nohs.Shape("yh") == "[1, B, 20]");
}

TEST_CASE("recurrent layers: sequence_lens has one length per sequence, none past the axis",
          "[infer][nn]") {
  // ONNX declares sequence_lens [batch_size]; ONNX Runtime refuses another shape ("Input
  // sequence_lens must have shape {3}. Actual:{2}") and a length past the sequence ("All values
  // must be >= 0 and <= seq_length"). Lengths [5, 5] written at the example (batch 2, 5 steps).
  auto r = Infer(R"(
g (float[B,T,8] x, float[1,24,8] w, float[1,24,8] rr, int32[B] lens) => (float[B,T,1,8] y) {
  five = Constant <value = int32[2] {5, 5}> ()
  y, yh = GRU <hidden_size = 8, layout = 1> (x, w, rr, , five)
  ty, tyh = GRU <hidden_size = 8, layout = 1> (x, w, rr, , lens)
})",
                 14);
  const Requirement* batch = r.FindRequirement("2", "B");
  REQUIRE(batch != nullptr);
  CHECK(batch->relation == Relation::kEqual);
  CHECK_THAT(batch->what, Catch::Matchers::Contains("sequence_lens length vs X batch"));
  const Requirement* steps = r.FindRequirement("T", "5");
  REQUIRE(steps != nullptr);
  CHECK(steps->relation == Relation::kAtLeast);
  // A tensor of the batch's own lengths, values unknown, asks for nothing.
  int on_lens = 0;
  for (const Requirement& q : r.inference.requirements) {
    on_lens += q.value == "ty";
  }
  CHECK(on_lens == 0);
}

TEST_CASE("Attention-23: 4-D and 3-D forms, KV cache", "[infer][nn]") {
  auto r = Infer(R"(
g (float[B,8,S,64] q, float[B,2,L,64] k, float[B,2,L,32] v, float[B,2,P,64] pk,
   float[B,2,P,32] pv, float[B,S,512] q3, float[B,L,128] k3, float[B,L,96] v3)
  => (float[B,8,S,32] y) {
  y, pk2, pv2, qk = Attention (q, k, v, , pk, pv)
  y3, pk3, pv3 = Attention <q_num_heads = 8, kv_num_heads = 2> (q3, k3, v3)
  ro = RotaryEmbedding <num_heads = 8> (q3, cosc, sinc)
  cosc = Constant <value = float[2, 2] {1, 1, 1, 1}> ()
  sinc = Constant <value = float[2, 2] {0, 0, 0, 0}> ()
})",
                 23);
  // Y (B, q_heads, Sq, v_head)
  CHECK(r.Shape("y") == "[B, 8, S, 32]");
  // present = Concat(past, new) on the sequence axis.
  CHECK(r.Shape("pk2") == "[B, 2, L + P, 64]");
  CHECK(r.Shape("pv2") == "[B, 2, L + P, 32]");
  // qk_matmul_output (B, q_heads, Sq, total)
  CHECK(r.Shape("qk") == "[B, 8, S, L + P]");
  // 3-D: head = 512 / 8 = 64 = 128 / 2; v_head = 96 / 2 = 48; Y (B, S, 8 * 48).
  CHECK(r.Shape("y3") == "[B, S, 384]");
  // Without a past the present cache is K / V in BNSH.
  CHECK(r.Shape("pk3") == "[B, 2, L, 64]");
  CHECK(r.Shape("pv3") == "[B, 2, L, 48]");
  CHECK(r.Shape("ro") == "[B, S, 512]");

  // Before opset 23 there is no ONNX Attention: unknown.
  auto old = Infer(R"(
g (float[B,8,S,64] q, float[B,2,L,64] k, float[B,2,L,32] v) => (float[B,8,S,32] y) {
  y = Attention (q, k, v)
  z = RotaryEmbedding (q, k, v)
})",
                   22);
  CHECK(old.Shape("z") == "?");
  CHECK(old.inference.requirements.empty());
}

TEST_CASE("DFT, STFT, windows and mel matrix", "[infer][nn]") {
  auto r = Infer(R"(
g (float[B,32,1] x, float[B,L,1] sig, float[B,L,2] cx) => (float[B,17,2] d) {
  d = DFT <onesided = 1> (x)
  n = Constant <value = int64 {16}> ()
  dl = DFT (x, n)
  dc = DFT <axis = 1> (cx)
  step = Constant <value = int64 {8}> ()
  st = STFT (sig, step, , n)
  win = HannWindow (n)
  shape = Shape (sig)
  one = Constant <value = int64[1] {1}> ()
  len = Gather <axis = 0> (shape, one)
  ws = BlackmanWindow <output_datatype = 11> (len)
  bins = Constant <value = int64 {80}> ()
  dftn = Constant <value = int64 {512}> ()
  sr = Constant <value = int64 {16000}> ()
  lo = Constant <value = float {0.0}> ()
  hi = Constant <value = float {8000.0}> ()
  mel = MelWeightMatrix (bins, dftn, sr, lo, hi)
})",
                 17);
  // onesided on axis 1 (the default): floor(32 / 2) + 1 = 17; the last axis becomes 2.
  CHECK(r.Shape("d") == "[B, 17, 2]");
  // dft_length 16 replaces the axis length.
  CHECK(r.Shape("dl") == "[B, 16, 2]");
  CHECK(r.Shape("dc") == "[B, L, 2]");
  // frames = floor((L - 16) / 8) + 1 = floor(L / 8) - 1; bins = 16 / 2 + 1 = 9 (onesided
  // defaults to 1).
  CHECK(r.Shape("st") == "[B, floor(L / 8) - 1, 9, 2]");
  // A signal whose last axis is dynamic must be real (1) for the one-sided default.
  auto sym = Infer(R"(
g (float[B,L,K] sig) => (float[?,?,?,?] st) {
  n = Constant <value = int64 {16}> ()
  step = Constant <value = int64 {8}> ()
  st = STFT (sig, step, , n)
})",
                   17);
  CHECK(sym.Shape("st") == "[B, floor(L / 8) - 1, 9, 2]");
  CHECK(sym.Requirements(RequirementKind::kChannels) == std::vector<std::string>{"K ~ 1"});
  CHECK(r.Shape("win") == "[16]");
  CHECK(r.Type("win") == TensorProto::FLOAT);
  CHECK(r.Shape("ws") == "[L]");
  CHECK(r.Type("ws") == TensorProto::DOUBLE);
  // [floor(512 / 2) + 1, 80]
  CHECK(r.Shape("mel") == "[257, 80]");

  // DFT-20: axis is an input, default -2; onesided needs real input.
  auto v20 = Infer(R"(
g (float[B,L,M,1] x, float[B,L,M,2] cx) => (float[B,L,?,2] d) {
  d = DFT <onesided = 1> (x)
  ax = Constant <value = int64 {1}> ()
  a1 = DFT <onesided = 1> (x, , ax)
  c1 = DFT <onesided = 1> (cx, , ax)
  i1 = DFT <onesided = 1, inverse = 1> (cx, , ax)
  n6 = Constant <value = int64 {6}> ()
  i2 = DFT <onesided = 1, inverse = 1> (cx, n6, ax)
  r1 = DFT <onesided = 1, inverse = 1> (x, , ax)
})",
                   20);
  // axis -2 is M: floor(M / 2) + 1
  CHECK(v20.Shape("d") == "[B, L, floor(M / 2) + 1, 2]");
  CHECK(v20.Shape("a1") == "[B, floor(L / 2) + 1, M, 2]");
  CHECK(v20.Shape("c1") == "[B, ?, M, 2]");
  // onesided with inverse is the IRFFT: complex in, real out, dft_length 2 * (L - 1) by default.
  CHECK(v20.Shape("i1") == "[B, 2*L - 2, M, 1]");
  CHECK(v20.Shape("i2") == "[B, 6, M, 1]");
  CHECK(v20.Shape("r1") == "[B, ?, M, 1]");  // real input: not an IRFFT's
}

TEST_CASE("opsets 24-28: KV-cache writes, linear attention, causal conv, SwiGLU", "[infer][nn]") {
  auto r = Infer(R"(
g (float[B,H,M,D] cache, float[B,H,S,D] upd, float[B,T,256] q, float[B,T,64] k,
   float[B,T,128] v, float[B,C,L] x, float[C,1,K] w, float[N,F] a, float[N,F] b, float[N,G] c)
  => (float[B,H,M,D] y) {
  y = TensorScatter <axis = 2> (cache, upd)
  o, st = LinearAttention <q_num_heads = 8, kv_num_heads = 2> (q, k, v)
  cy, cs = CausalConvWithState (x, w)
  sg = SwiGLU (a, b)
  bad = SwiGLU (a, c)
  bc = BitCast <to = 6> (a)
  cp = CumProd (a, ax)
  ax = Constant <value = int64 {0}> ()
})",
                 28);
  CHECK(r.Shape("y") == "[B, H, M, D]");
  // dk = 256 / 8 = 32, dv = 128 / 2 = 64: output (B, T, 8 * 64), state (B, 2, 32, 64).
  CHECK(r.Shape("o") == "[B, T, 512]");
  CHECK(r.Shape("st") == "[B, 2, 32, 64]");
  // The output keeps the input's shape; the state holds the last K - 1 positions.
  CHECK(r.Shape("cy") == "[B, C, L]");
  CHECK(r.Shape("cs") == "[B, C, K - 1]");
  CHECK(r.Shape("sg") == "[N, F]");
  CHECK(r.Shape("bc") == "[N, F]");
  CHECK(r.Type("bc") == TensorProto::INT32);
  CHECK(r.Shape("cp") == "[N, F]");
  // SwiGLU does not broadcast: its two inputs must match, and TensorScatter's update must match
  // the cache off the sequence axis.
  CHECK(r.Requirements(RequirementKind::kBroadcast) == std::vector<std::string>{"F ~ G"});
  CHECK(r.Requirements(RequirementKind::kConcatDim).empty());
}

TEST_CASE("random generators, losses and text ops", "[infer][nn]") {
  auto r = Infer(R"(
g (float[N,4] p, float[N,10] logits, float[N,C,D] scores, int64[N,D] labels, float[C] wt,
   string[K] strs, int64[N,T] tok) => (float[N,4] b) {
  b = Bernoulli (p)
  bd = Bernoulli <dtype = 11> (p)
  rl = RandomUniformLike (p)
  rn = RandomNormal <shape = [2, 3]> ()
  mn = Multinomial <sample_size = 5> (logits)
  none, logp = SoftmaxCrossEntropyLoss <reduction = "none"> (scores, labels, wt)
  mean = SoftmaxCrossEntropyLoss (scores, labels)
  nll = NegativeLogLikelihoodLoss <reduction = "sum"> (scores, labels)
  nlln = NegativeLogLikelihoodLoss <reduction = "none"> (scores, labels)
  sn = StringNormalizer <case_change_action = "LOWER"> (strs)
  sw = StringNormalizer <stopwords = ["a", "the"]> (strs)
  tf = TfIdfVectorizer <mode = "TF", min_gram_length = 1, max_gram_length = 1, max_skip_count = 0, ngram_counts = [0], ngram_indexes = [0, 1, 2, 5], pool_int64s = [1, 2, 3, 4]> (tok)
})",
                 13);
  CHECK(r.Shape("b") == "[N, 4]");
  CHECK(r.Type("b") == TensorProto::FLOAT);
  CHECK(r.Type("bd") == TensorProto::DOUBLE);
  CHECK(r.Shape("rl") == "[N, 4]");
  CHECK(r.Shape("rn") == "[2, 3]");
  CHECK(r.Type("rn") == TensorProto::FLOAT);
  CHECK(r.Shape("mn") == "[N, 5]");
  CHECK(r.Type("mn") == TensorProto::INT32);
  // reduction none: (N, d1...); log_prob has the scores' shape; mean and sum are scalars.
  CHECK(r.Shape("none") == "[N, D]");
  CHECK(r.Shape("logp") == "[N, C, D]");
  CHECK(r.Shape("mean") == "[]");
  CHECK(r.Shape("nll") == "[]");
  CHECK(r.Shape("nlln") == "[N, D]");
  // No stopwords: nothing removed. With them: a count known at run time.
  CHECK(r.Shape("sn") == "[K]");
  const TensorFact& sw = r.Fact("sw");
  REQUIRE(sw.shape);
  REQUIRE((*sw.shape)[0]);
  CHECK((*sw.shape)[0]->AsSymbol().has_value());
  // [N, max(ngram_indexes) + 1]
  CHECK(r.Shape("tf") == "[N, 6]");
}

TEST_CASE("com.microsoft contrib ops", "[infer][nn]") {
  auto r = InferWith(R"("" : 17, "com.microsoft" : 1)", R"(
g (float[B,S,768] x, float[768,2304] w, float[2304] bias, float[2,B,12,P,64] past,
   float[B,L,768] kv, float[B,S,4096] q, float[B,S,1024] k, float[B,S,6144] qkv,
   int32[B] seqlens, int32 total, float[768] gamma, uint8[3072,24,16] bq, float[3072,24] bs,
   uint8[32000,2048] emb, int64[B,S] ids, float16[32000,128] es, int32[B,S] tok,
   float[30522,768] we, float[512,768] pe, float[B,12,L,64] kc, float[B,12,L,64] vc)
  => (float[B,S,768] a) {
  a = com.microsoft.Attention <num_heads = 12> (x, w, bias)
  a2, present = com.microsoft.Attention <num_heads = 12> (x, w, bias, , past)
  mha = com.microsoft.MultiHeadAttention <num_heads = 12> (x, kv, kv)
  mhc = com.microsoft.MultiHeadAttention <num_heads = 12> (x, kc, vc)
  gqa = com.microsoft.GroupQueryAttention <num_heads = 32, kv_num_heads = 8> (q, k, k, , , seqlens, total)
  gqp = com.microsoft.GroupQueryAttention <num_heads = 32, kv_num_heads = 8> (qkv, , , , , seqlens, total)
  sl, mean, inv, sum = com.microsoft.SkipLayerNormalization (x, x, gamma, gamma)
  ssl = com.microsoft.SkipSimplifiedLayerNormalization (x, x, gamma)
  ge = com.microsoft.Gelu (x)
  fg = com.microsoft.FastGelu (x, gamma)
  bg = com.microsoft.BiasGelu (x, gamma)
  qg = com.microsoft.QuickGelu (x)
  re = com.microsoft.RotaryEmbedding (x, ids, we, we)
  mnb = com.microsoft.MatMulNBits <K = 768, N = 3072, bits = 4, block_size = 32> (x, bq, bs)
  gbq = com.microsoft.GatherBlockQuantized <bits = 4, block_size = 16> (emb, ids, es)
  eo, mi, es2 = com.microsoft.EmbedLayerNormalization (tok, , we, pe, , gamma, gamma)
  ln, lm = com.microsoft.SimplifiedLayerNormalization (x, gamma)
  odd = com.microsoft.NotAnOp (x)
})");
  // (B, S, v_hidden) with v_hidden = 2304 / 3
  CHECK(r.Shape("a") == "[B, S, 768]");
  // present = past with past_sequence_length + S
  CHECK(r.Shape("present") == "[2, B, 12, P + S, 64]");
  CHECK(r.Shape("mha") == "[B, S, 768]");
  // BNSH value: 12 * 64
  CHECK(r.Shape("mhc") == "[B, S, 768]");
  CHECK(r.Shape("gqa") == "[B, S, 4096]");
  // packed: 6144 / (32 + 2 * 8) = 128 per head, 32 heads
  CHECK(r.Shape("gqp") == "[B, S, 4096]");
  CHECK(r.Shape("sl") == "[B, S, 768]");
  CHECK(r.Shape("sum") == "[B, S, 768]");
  CHECK(r.Shape("mean") == "?");
  CHECK(r.Shape("ssl") == "[B, S, 768]");
  for (const char* v : {"ge", "fg", "bg", "qg", "re"}) CHECK(r.Shape(v) == "[B, S, 768]");
  CHECK(r.Shape("mnb") == "[B, S, 3072]");
  // uint8 with 4 bits packs two values per byte along the last axis: 2048 * 2.
  CHECK(r.Shape("gbq") == "[B, S, 4096]");
  CHECK(r.Type("gbq") == TensorProto::FLOAT16);
  CHECK(r.Shape("eo") == "[B, S, 768]");
  CHECK(r.Shape("mi") == "[B]");
  CHECK(r.Type("mi") == TensorProto::INT32);
  CHECK(r.Shape("ln") == "[B, S, 768]");
  CHECK(r.Shape("lm") == "[B, S, 1]");
  CHECK(r.Shape("odd") == "?");
  // MatMulNBits: A's last dim is K.
  auto bad = InferWith(R"("" : 17, "com.microsoft" : 1)", R"(
g (float[B,S,H] x, uint8[3072,24,16] bq, float[3072,24] bs) => (float[B,S,3072] y) {
  y = com.microsoft.MatMulNBits <K = 768, N = 3072, bits = 4, block_size = 32> (x, bq, bs)
})");
  const Requirement* req = bad.FindRequirement("H", "768");
  REQUIRE(req != nullptr);
  CHECK(req->kind == RequirementKind::kInnerDim);
}

TEST_CASE("EmbedLayerNormalization: positions fit the table, ids agree in shape", "[infer][nn]") {
  // Checked on ONNX Runtime 1.31 by hand: a table of 4 positions fails at S = 5 ("input index out
  // of range"); position_ids of [1, 4] fail at S = 5 and [3, 4] at B = 2, where [1, S] and
  // [B, S] run; segment_ids take input_ids' shape.
  auto r = InferWith(R"("" : 17, "com.microsoft" : 1)", R"(
g (int32[B,S] tok, int32[B,S] seg, int32[P0,P1] pos, float[100,8] we, float[64,8] pe,
   float[2,8] se, float[8] gamma) => (float[B,S,8] a) {
  a, m = com.microsoft.EmbedLayerNormalization (tok, seg, we, pe, se, gamma, gamma)
  b, n = com.microsoft.EmbedLayerNormalization (tok, , we, pe, , gamma, gamma, , pos)
})");
  CHECK(r.Shape("a") == "[B, S, 8]");
  CHECK(r.Shape("b") == "[B, S, 8]");
  // Without position_ids the positions are 0 .. S - 1: the table needs S rows.
  const Requirement* rows = r.FindRequirement("64", "S");
  REQUIRE(rows != nullptr);
  CHECK(rows->kind == RequirementKind::kIndexBound);
  CHECK(rows->relation == Relation::kAtLeast);
  CHECK(r.FindRequirement("B", "B") == nullptr);  // an axis against itself is no requirement
  const Requirement* pos_len = r.FindRequirement("P1", "S");
  REQUIRE(pos_len != nullptr);
  CHECK(pos_len->relation == Relation::kEqual);
  const Requirement* pos_batch = r.FindRequirement("P0", "B");
  REQUIRE(pos_batch != nullptr);
  CHECK(pos_batch->relation == Relation::kBroadcastable);
  // With position_ids of unknown values, nothing is required of the table's rows.
  CHECK(r.Requirements(RequirementKind::kIndexBound).size() == 1);
}

}  // namespace
}  // namespace shapelint::infer
