#!/usr/bin/python3
"""Writes a GPT-2 style decoder with a KV cache, lowered the way the torch exporter lowers it.

The graph follows transformers' GPT2LMHeadModel as traced by torch.onnx.export (opset 14,
torch 2.x node and value names): decomposed LayerNorm and GELU, Conv1D projections as
Reshape -> Gemm -> Reshape with Shape/Gather/Unsqueeze/Concat targets, head split and merge,
the past keys and values concatenated on axis 2, a causal mask from Range/Greater/Where and
the additive attention mask: 188 nodes per layer.

Weights are either declared external (dtype and dims, data in a file that is never written:
the model stays small and no linter needs the data) or embedded as raw_data (zeros).

Uses only Debian's python3-onnx: /usr/bin/python3 make_decoder.py --layers 12 --output m.onnx
"""

import argparse
import math
import os
import re
import sys
import tempfile
import time

from onnx import TensorProto, helper

OPSET = 14
FLOAT_MIN = -3.4028234663852886e38  # torch.finfo(torch.float32).min, GPT-2's mask value
PROTOBUF_LIMIT = 2**31 - 1

# The dim names of the two common GPT-2 exports.
DIM_STYLES = {
    # onnxruntime.transformers' GPT-2 export: the mask length is a dim of its own, which the
    # graph then relates to past and sequence length (the model's input contract).
    "ort": {
        "batch": "batch_size",
        "seq": "seq_len",
        "past": "past_seq_len",
        "total": "total_seq_len",
    },
    # optimum and transformers.onnx: the mask and present length are written as a sum.
    "optimum": {
        "batch": "batch_size",
        "seq": "sequence_length",
        "past": "past_sequence_length",
        "total": "past_sequence_length + sequence_length",
    },
}


def scope_of(module):
    """torch 2.x node scopes: module transformer.h.0.ln_1 becomes /transformer/h.0/ln_1."""
    return "/" + re.sub(r"\.(?!\d)", "/", module)


class Builder:
    """Appends nodes and initializers to a GraphProto, named as torch 2.x names them."""

    def __init__(self, graph, embedded):
        self.graph = graph
        self.embedded = embedded
        self.scope = ""
        self.external_offset = 0
        self.weight_bytes = 0
        self._counts = {}
        self._constants = {}

    def op(self, op_type, *inputs, outputs=1, graph_output=None, **attrs):
        """Adds a node; its output is named graph_output when it is one of the graph's."""
        base = f"{self.scope}/{op_type}"
        k = self._counts.get(base, 0)
        self._counts[base] = k + 1
        name = base if k == 0 else f"{base}_{k}"
        node = self.graph.node.add()
        node.op_type = op_type
        node.name = name
        node.input.extend(inputs)
        names = [graph_output or f"{name}_output_{j}" for j in range(outputs)]
        node.output.extend(names)
        for key, value in attrs.items():
            node.attribute.append(helper.make_attribute(key, value))
        return names[0] if outputs == 1 else names

    def const(self, values, scalar=False, dtype=TensorProto.INT64):
        """A Constant node, reused within one scope."""
        key = (self.scope, tuple(values), scalar, dtype)
        if key not in self._constants:
            tensor = TensorProto(data_type=dtype, dims=[] if scalar else [len(values)])
            if dtype == TensorProto.INT64:
                tensor.int64_data.extend(values)
            else:
                tensor.float_data.extend(values)
            self._constants[key] = self.op("Constant", value=tensor)
        return self._constants[key]

    def scalar(self, value):
        if isinstance(value, float):
            return self.const([value], scalar=True, dtype=TensorProto.FLOAT)
        return self.const([value], scalar=True)

    def weight(self, name, *dims):
        tensor = self.graph.initializer.add()
        tensor.name = name
        tensor.data_type = TensorProto.FLOAT
        tensor.dims.extend(dims)
        size = 4 * math.prod(dims)
        self.weight_bytes += size
        if self.embedded and self.weight_bytes > PROTOBUF_LIMIT - 2**24:
            sys.exit(f"make_decoder: more than {self.weight_bytes} bytes of weights do not fit "
                     "in a protobuf (2 GiB); use --weights external")
        if self.embedded:
            tensor.raw_data = bytes(size)  # zeros: cheap, and the linter never reads them
        else:
            tensor.data_location = TensorProto.EXTERNAL
            for key, value in (
                ("location", "decoder.weights"),
                ("offset", str(self.external_offset)),
                ("length", str(size)),
            ):
                entry = tensor.external_data.add()
                entry.key = key
                entry.value = value
            self.external_offset += size
        return name

    # Shape pieces as the exporter traces x.size(i): Shape -> Gather -> (Unsqueeze -> Concat).
    def dim(self, x, axis):
        return self.op("Gather", self.op("Shape", x), self.scalar(axis), axis=0)

    def unsqueeze(self, x, *axes):
        return self.op("Unsqueeze", x, self.const(list(axes)))

    def shape_of(self, *pieces):
        """Concat of traced scalar dims (str) and literal sizes (int) into a Reshape target."""
        parts = [self.const([p]) if isinstance(p, int) else self.unsqueeze(p, 0) for p in pieces]
        return self.op("Concat", *parts, axis=0)


def layer_norm(b, x, prefix, hidden):
    b.scope = scope_of(prefix)
    mean = b.op("ReduceMean", x, axes=[-1])
    centered = b.op("Sub", x, mean)
    var = b.op("ReduceMean", b.op("Pow", centered, b.scalar(2.0)), axes=[-1])
    std = b.op("Sqrt", b.op("Add", var, b.scalar(1e-5)))
    scaled = b.op("Mul", b.op("Div", centered, std), b.weight(prefix + ".weight", hidden))
    return b.op("Add", scaled, b.weight(prefix + ".bias", hidden))


def conv1d(b, x, prefix, n_in, n_out):
    """transformers' Conv1D: addmm(bias, x.view(-1, x.size(-1)), w).view(x.size()[:-1] + (nf,))."""
    b.scope = scope_of(prefix)
    size_out = b.shape_of(b.dim(x, 0), b.dim(x, 1), n_out)
    flat = b.op("Reshape", x, b.shape_of(-1, b.dim(x, 2)))
    y = b.op(
        "Gemm",
        flat,
        b.weight(prefix + ".weight", n_in, n_out),
        b.weight(prefix + ".bias", n_out),
        alpha=1.0,
        beta=1.0,
    )
    return b.op("Reshape", y, size_out)


def attention(b, x, prefix, layer, mask, hidden, heads, baked):
    """GPT2Attention of layer `layer`; `baked` (batch, seq): the head split's literal sizes."""
    head_dim = hidden // heads
    qkv = conv1d(b, x, prefix + ".c_attn", hidden, 3 * hidden)
    b.scope = scope_of(prefix)
    split = b.op("Split", qkv, b.const([hidden] * 3), axis=2, outputs=3)

    def split_heads(t):
        # view(int(t.size(0)), int(t.size(1)), ...) traced at `baked`: the bake onnx-shapelint
        # fix repairs (the fix benchmark).
        lead = baked if baked else (b.dim(t, 0), b.dim(t, 1))
        t = b.op("Reshape", t, b.shape_of(*lead, heads, head_dim))
        return b.op("Transpose", t, perm=[0, 2, 1, 3])

    query, key, value = (split_heads(t) for t in split)
    # The present key and value are graph outputs, named as such.
    key = b.op("Concat", f"past_key_{layer}", key, axis=-2, graph_output=f"present_key_{layer}")
    value = b.op("Concat", f"past_value_{layer}", value, axis=-2,
                 graph_output=f"present_value_{layer}")

    scores = b.op("MatMul", query, b.op("Transpose", key, perm=[0, 1, 3, 2]))
    scale = b.op("Sqrt", b.op("Cast", b.dim(value, 3), to=TensorProto.FLOAT))
    scores = b.op("Div", scores, scale)
    # Causal mask: key position j is hidden from query row i when j > past + i.
    query_len, key_len = b.dim(query, 2), b.dim(key, 2)
    one = b.scalar(1)
    rows = b.op("Range", b.op("Sub", key_len, query_len), key_len, one)
    cols = b.op("Range", b.scalar(0), key_len, one)
    future = b.op("Greater", b.unsqueeze(cols, 0), b.unsqueeze(rows, 1))
    scores = b.op("Where", future, b.scalar(FLOAT_MIN), scores)
    scores = b.op("Add", scores, mask)
    probs = b.op("Softmax", scores, axis=-1)
    context = b.op("MatMul", probs, value)

    # merge_heads: permute(0, 2, 1, 3).view(x.size()[:-2] + (hidden,))
    context = b.op("Transpose", context, perm=[0, 2, 1, 3])
    context = b.op("Reshape", context, b.shape_of(b.dim(context, 0), b.dim(context, 1), hidden))
    return conv1d(b, context, prefix + ".c_proj", hidden, hidden)


def gelu_new(b, x, scope):
    """0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), as traced."""
    b.scope = scope
    half = b.op("Mul", x, b.scalar(0.5))
    cube = b.op("Pow", x, b.scalar(3.0))
    inner = b.op("Add", x, b.op("Mul", cube, b.scalar(0.044715)))
    tanh = b.op("Tanh", b.op("Mul", inner, b.scalar(math.sqrt(2.0 / math.pi))))
    return b.op("Mul", half, b.op("Add", tanh, b.scalar(1.0)))


def build(layers, hidden, heads, vocab, embedded, style, baked=None):
    names = DIM_STYLES[style]
    batch, seq, past, total = names["batch"], names["seq"], names["past"], names["total"]
    positions = 1024
    head_dim = hidden // heads
    graph = helper.make_graph([], "main_graph", [], [])
    b = Builder(graph, embedded)

    def value(name, dtype, dims):
        return helper.make_tensor_value_info(name, dtype, dims)

    graph.input.append(value("input_ids", TensorProto.INT64, [batch, seq]))
    graph.input.append(value("attention_mask", TensorProto.INT64, [batch, total]))
    for i in range(layers):
        for kind in ("key", "value"):
            dims = [batch, heads, past, head_dim]
            graph.input.append(value(f"past_{kind}_{i}", TensorProto.FLOAT, dims))

    # GPT2Model.forward: token and position embeddings.
    b.scope = "/transformer"
    seq_len = b.dim("input_ids", 1)
    ids = b.op("Reshape", "input_ids", b.shape_of(-1, seq_len))
    past_len = b.dim("past_key_0", 2)
    position_ids = b.op("Range", past_len, b.op("Add", seq_len, past_len), b.scalar(1))
    position_ids = b.unsqueeze(position_ids, 0)
    wte = b.weight("transformer.wte.weight", vocab, hidden)
    wpe = b.weight("transformer.wpe.weight", positions, hidden)
    h = b.op("Add", b.op("Gather", wte, ids, axis=0), b.op("Gather", wpe, position_ids, axis=0))
    # attention_mask.view(batch, -1)[:, None, None, :], then (1.0 - mask) * finfo.min.
    mask = b.op("Reshape", "attention_mask", b.shape_of(b.dim("input_ids", 0), -1))
    mask = b.op("Cast", b.unsqueeze(mask, 1, 2), to=TensorProto.FLOAT)
    mask = b.op("Mul", b.op("Sub", b.scalar(1.0), mask), b.scalar(FLOAT_MIN))

    for i in range(layers):
        p = f"transformer.h.{i}"
        a = attention(b, layer_norm(b, h, p + ".ln_1", hidden), p + ".attn", i, mask, hidden, heads,
                      baked)
        b.scope = f"/transformer/h.{i}"
        h = b.op("Add", a, h)
        m = conv1d(b, layer_norm(b, h, p + ".ln_2", hidden), p + ".mlp.c_fc", hidden, 4 * hidden)
        m = gelu_new(b, m, f"/transformer/h.{i}/mlp/act")
        m = conv1d(b, m, p + ".mlp.c_proj", 4 * hidden, hidden)
        b.scope = f"/transformer/h.{i}"
        h = b.op("Add", h, m)

    h = layer_norm(b, h, "transformer.ln_f", hidden)
    b.scope = "/transformer"
    h = b.op("Reshape", h, b.shape_of(b.dim("input_ids", 0), b.dim("input_ids", 1), hidden))
    b.scope = "/lm_head"
    b.op("MatMul", h, b.weight("lm_head.weight", hidden, vocab), graph_output="logits")

    graph.output.append(value("logits", TensorProto.FLOAT, [batch, seq, vocab]))
    for i in range(layers):
        for kind in ("key", "value"):
            dims = [batch, heads, total, head_dim]
            graph.output.append(value(f"present_{kind}_{i}", TensorProto.FLOAT, dims))

    model = helper.make_model(
        graph, producer_name="pytorch", producer_version="2.1.0",
        opset_imports=[helper.make_opsetid("", OPSET)],
    )
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--heads", type=int, default=None, help="default: hidden / 64")
    parser.add_argument("--vocab", type=int, default=50257)
    parser.add_argument("--weights", choices=["external", "embedded"], default="external")
    parser.add_argument("--dims", choices=sorted(DIM_STYLES), default="ort",
                        help="dim names of the inputs and outputs (default: ort)")
    parser.add_argument("--check", action="store_true",
                        help="run onnx.checker (full_check) and shape inference on the result")
    parser.add_argument("--bake-head-split", metavar="BATCH,SEQ",
                        help="write each head split's target with these literal sizes, as "
                             "view(int(x.size(0)), int(x.size(1)), ...) traced at them")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    baked = tuple(int(v) for v in args.bake_head_split.split(",")) if args.bake_head_split else None
    heads = args.heads or args.hidden // 64
    if args.hidden % heads:
        parser.error("--hidden must be a multiple of --heads")

    start = time.perf_counter()
    model = build(args.layers, args.hidden, heads, args.vocab, args.weights == "embedded",
                  args.dims, baked)
    data = model.SerializeToString()
    with open(args.output, "wb") as f:
        f.write(data)
    seconds = time.perf_counter() - start
    print(f"{args.output}: {len(model.graph.node)} nodes, {len(data)} bytes, "
          f"{seconds:.1f} s", file=sys.stderr)

    if args.check:
        check(model, data, args.weights == "embedded")


def check(model, data, embedded):
    """onnx.checker with full_check, then shape inference with data propagation."""
    import onnx  # only here: building the model needs only the protobuf classes

    # The checker insists that an external data file exists: give it an empty one.
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.onnx")
        with open(path, "wb") as f:
            f.write(data)
        if not embedded:
            open(os.path.join(directory, "decoder.weights"), "wb").close()
        onnx.checker.check_model(path, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    for out in inferred.graph.output[:3]:
        print("inferred:", helper.printable_value_info(out), file=sys.stderr)


if __name__ == "__main__":
    main()
