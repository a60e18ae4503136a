#!/usr/bin/python3
"""Writes the generated seeds of the model fuzz target into tests/fuzz/regressions/model/.

    tests/fuzz/make_seeds.py [DIR]

The fuzzer mutates what its seeds hold, and reaches little it was not shown: these give it the
parts of a model that the corpus models lack or hold rarely, each small so that a mutation
lands in the part that matters. Node metadata (torch's class hierarchy and stack trace on an
adaptive pool, with and without its input), graph and value metadata (torch.export's range
constraints and signature, the optimizer's folded_from), model-local functions (called twice
through unnamed nodes, recursive, nested three levels with fan-out), and Loops nested in
Loops, with an If and a Scan inside. ctest replays every file there (fuzz.model.replay).

The bytes are written with the protobuf wire format directly, so that the script needs no
package: field numbers are onnx.proto's (the metadata fields are IR version 10's).
"""

import pathlib
import struct
import sys

# onnx.proto's TensorProto.DataType and AttributeProto.AttributeType values used here.
FLOAT, INT64, BOOL = 1, 7, 9
ATTR_INT, ATTR_GRAPH, ATTR_INTS = 2, 5, 7


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field_varint(number, v):
    return varint(number << 3) + varint(v)


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


def entry(key, value):  # StringStringEntryProto
    return field_bytes(1, key) + field_bytes(2, value)


def tensor_type(elem_type, dims):
    """TypeProto of a tensor; dims: ints and names, or None for no shape."""
    t = field_varint(1, elem_type)
    if dims is not None:
        shape = b"".join(
            field_bytes(1, field_varint(1, d) if isinstance(d, int) else field_bytes(2, d))
            for d in dims)
        t += field_bytes(2, shape)
    return field_bytes(1, t)


def value(name, elem_type=FLOAT, dims=None, metadata=()):
    v = field_bytes(1, name) + field_bytes(2, tensor_type(elem_type, dims))
    return v + b"".join(field_bytes(4, entry(k, m)) for k, m in metadata)


def attr_int(name, i):
    return field_bytes(1, name) + field_varint(3, i) + field_varint(20, ATTR_INT)


def attr_ints(name, ints):
    return field_bytes(1, name) + b"".join(field_varint(8, i) for i in ints) + field_varint(
        20, ATTR_INTS)


def attr_graph(name, graph_bytes):
    return field_bytes(1, name) + field_bytes(6, graph_bytes) + field_varint(20, ATTR_GRAPH)


def node(op, inputs, outputs, name="", domain="", attrs=(), metadata=()):
    n = b"".join(field_bytes(1, i) for i in inputs)
    n += b"".join(field_bytes(2, o) for o in outputs)
    if name:
        n += field_bytes(3, name)
    n += field_bytes(4, op)
    n += b"".join(field_bytes(5, a) for a in attrs)
    if domain:
        n += field_bytes(7, domain)
    return n + b"".join(field_bytes(9, entry(k, m)) for k, m in metadata)


def initializer(name, data_type, dims, values):
    t = b"".join(field_varint(1, d) for d in dims) + field_varint(2, data_type)
    if data_type == FLOAT:
        t += field_bytes(4, b"".join(struct.pack("<f", v) for v in values))
    else:
        t += field_bytes(7, b"".join(varint(v) for v in values))
    return t + field_bytes(8, name)


def graph(name, nodes, inputs, outputs, initializers=(), value_info=(), metadata=()):
    g = b"".join(field_bytes(1, n) for n in nodes) + field_bytes(2, name)
    g += b"".join(field_bytes(5, t) for t in initializers)
    g += b"".join(field_bytes(11, i) for i in inputs)
    g += b"".join(field_bytes(12, o) for o in outputs)
    g += b"".join(field_bytes(13, v) for v in value_info)
    return g + b"".join(field_bytes(16, entry(k, m)) for k, m in metadata)


def opset(domain, version):
    return (field_bytes(1, domain) if domain else b"") + field_varint(2, version)


def function(name, domain, inputs, outputs, nodes, opsets):
    f = field_bytes(1, name)
    f += b"".join(field_bytes(4, i) for i in inputs)
    f += b"".join(field_bytes(5, o) for o in outputs)
    f += b"".join(field_bytes(7, n) for n in nodes)
    f += b"".join(field_bytes(9, opset(d, v)) for d, v in opsets)
    return f + field_bytes(10, domain)


def model(graph_bytes, opsets=(("", 17),), functions=(), ir_version=10):
    m = field_varint(1, ir_version)
    m += field_bytes(7, graph_bytes)
    m += b"".join(field_bytes(8, opset(d, v)) for d, v in opsets)
    return m + b"".join(field_bytes(25, f) for f in functions)


def adaptive_pool(with_input):
    """An AveragePool that torch's metadata records as an adaptive pool."""
    metadata = [
        ("pkg.torch.onnx.class_hierarchy",
         "['Net', 'torch.nn.modules.pooling.AdaptiveAvgPool2d']"),
        ("pkg.torch.onnx.stack_trace",
         'File "net.py", line 9, in forward\n    return F.adaptive_avg_pool2d(x, (4, 4))'),
        ("pkg.torch.onnx.name_scopes", "['', 'pool']"),
    ]
    pool = node("AveragePool", ["x"] if with_input else [], ["y"], name="pool",
                attrs=[attr_ints("kernel_shape", [2, 2]), attr_ints("strides", [2, 2])],
                metadata=metadata)
    g = graph("main", [pool], [value("x", FLOAT, ["N", 3, "H", "W"])], [value("y")])
    return model(g)


def exported_program():
    """torch.export's records: range constraints, the signature, a folded constant's sources."""
    add = node("Add", ["x", "pos"], ["y"], name="add",
               metadata=[("pkg.torch.onnx.stack_trace", 'File "m.py", line 3, in forward')])
    g = graph(
        "main", [add], [value("x", FLOAT, ["s0", "s1", 8])], [value("y", FLOAT, ["s0", "s1", 8])],
        initializers=[initializer("pos", FLOAT, [1, 16, 8], [0.5] * 128)],
        value_info=[value("pos", FLOAT, [1, 16, 8], metadata=[
            ("pkg.onnxscript.optimizer.folded_from", "['emb.pos', 'arange_1', 'expand']")])],
        metadata=[
            ("pkg.torch.export.ExportedProgram.range_constraints",
             "{s0: VR[2, int_oo], s1: VR[16, 16]}"),
            ("pkg.torch.export.ExportedProgram.graph_signature",
             "p_emb_pos: PARAMETER target='emb.pos'\nx: USER_INPUT"),
        ])
    return model(g)


LOCAL = (("", 17), ("local", 1))


def functions_twice():
    """F calls G twice through unnamed nodes; main calls F unnamed."""
    g = graph("main", [node("F", ["x"], ["y"], domain="local")], [value("x", FLOAT, ["N"])],
              [value("y")])
    f = function("F", "local", ["p"], ["q"],
                 [node("G", ["p"], ["a"], domain="local"), node("G", ["a"], ["q"], domain="local")],
                 LOCAL)
    gf = function("G", "local", ["u"], ["v"],
                  [node("Relu", ["u"], ["t"]), node("Neg", ["t"], ["v"])], [("", 17)])
    return model(g, LOCAL, [f, gf])


def functions_recursive():
    """A function calling itself twice, and one calling it through another."""
    g = graph("main", [node("Tree", ["x"], ["a"], domain="local"),
                       node("Outer", ["a"], ["y"], domain="local")],
              [value("x", FLOAT, ["N", 4])], [value("y")])
    tree = function("Tree", "local", ["p"], ["q"], [
        node("Tree", ["p"], ["b"], domain="local"), node("Tree", ["b"], ["q"], domain="local")],
        LOCAL)
    outer = function("Outer", "local", ["p"], ["q"], [
        node("Relu", ["p"], ["r"]), node("Tree", ["r"], ["q"], domain="local")], LOCAL)
    return model(g, LOCAL, [tree, outer])


def functions_fan_out(levels=3, fan_out=2):
    """f<levels> calls the one below `fan_out` times, down to f1, a Reshape by a constant."""
    g = graph("main", [node(f"f{levels}", ["x"], ["y"], domain="local")],
              [value("x", FLOAT, ["N", 6])], [value("y")])
    fs = [function("f1", "local", ["p"], ["q"], [
        node("Constant", [], ["shape"], attrs=[
            field_bytes(1, "value_ints") + b"".join(field_varint(8, v) for v in (-1, 2, 3)) +
            field_varint(20, ATTR_INTS)]),
        node("Reshape", ["p", "shape"], ["r"]),
        node("Flatten", ["r"], ["q"], attrs=[attr_int("axis", 1)]),
    ], [("", 17)])]
    for k in range(2, levels + 1):
        nodes, current = [], "p"
        for c in range(fan_out):
            out = "q" if c + 1 == fan_out else f"a{c}"
            nodes.append(node(f"f{k - 1}", [current], [out], domain="local"))
            current = out
        fs.append(function(f"f{k}", "local", ["p"], ["q"], nodes, LOCAL))
    return model(g, LOCAL, fs)


def nested_loops(depth=3):
    """Loops nested `depth` deep, each body growing its carried value (Concat), the innermost
    with an If on the iteration number and a Scan over the value."""

    def body(level):
        l = str(level)
        ins = [value("i" + l, INT64, []), value("c" + l, BOOL, []), value("v" + l, FLOAT, None)]
        outs = [value("d" + l, BOOL, []), value("o" + l, FLOAT, None)]
        nodes = [node("Identity", ["c" + l], ["d" + l])]
        if level == 0:
            then = graph("then", [node("Relu", ["v0"], ["t0"])], [], [value("t0")])
            other = graph("else", [node("Neg", ["v0"], ["e0"])], [], [value("e0")])
            scan_body = graph("scan", [node("Add", ["s", "x_t"], ["s2"]),
                                       node("Identity", ["s2"], ["y_t"])],
                              [value("s", FLOAT, []), value("x_t", FLOAT, [])],
                              [value("s2"), value("y_t")])
            nodes += [
                node("Cast", ["i0"], ["b0"], attrs=[attr_int("to", BOOL)]),
                node("If", ["b0"], ["w0"], attrs=[attr_graph("then_branch", then),
                                                   attr_graph("else_branch", other)]),
                node("ReduceSum", ["w0"], ["s0"], attrs=[attr_int("keepdims", 0)]),
                node("Scan", ["s0", "w0"], ["f0", "o0"],
                     attrs=[attr_graph("body", scan_body), attr_int("num_scan_inputs", 1)]),
            ]
            return graph("body0", nodes, ins, outs)
        nodes += [
            node("Loop", ["m", "", "v" + l], ["w" + l], attrs=[attr_graph("body", body(level - 1))]),
            node("Concat", ["w" + l, "w" + l], ["o" + l], attrs=[attr_int("axis", 0)]),
        ]
        return graph("body" + l, nodes, ins, outs)

    g = graph("main", [
        node("Loop", ["three", "", "x"], ["y"], attrs=[attr_graph("body", body(depth - 1))]),
        node("Loop", ["m", "", "x"], ["z"], attrs=[attr_graph("body", body(depth - 1))]),
    ], [value("x", FLOAT, ["N"]), value("m", INT64, [])], [value("y"), value("z")],
        initializers=[initializer("three", INT64, [], [3])])
    return model(g)


SEEDS = {
    "seed_adaptive_pool_metadata.onnx": adaptive_pool(True),
    "seed_adaptive_pool_metadata_no_input.onnx": adaptive_pool(False),
    "seed_exported_program_metadata.onnx": exported_program(),
    "seed_functions_called_twice.onnx": functions_twice(),
    "seed_functions_recursive.onnx": functions_recursive(),
    "seed_functions_fan_out.onnx": functions_fan_out(),
    "seed_nested_loops.onnx": nested_loops(),
}


def main():
    root = pathlib.Path(__file__).resolve().parent
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "regressions" / "model"
    out.mkdir(parents=True, exist_ok=True)
    for name, data in SEEDS.items():
        (out / name).write_bytes(data)
        print(f"{out / name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
