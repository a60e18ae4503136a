#!/usr/bin/python3
"""Writes a chain of N unary nodes whose value names are as short as names get.

Relu and Neg alternate, each reading the value the node before it wrote; the values are named
by their index in base 62 (1 to 4 characters for a million nodes). The graph is the worst case
of docs/limits.md for memory per byte of protobuf: a node takes its fixed records whatever its
names, and here the names, most of what a real graph's protobuf holds, are nearly nothing.

Uses only Debian's python3-onnx: /usr/bin/python3 make_chain.py --nodes 1000000 --output m.onnx
"""

import argparse
import string

from onnx import TensorProto, helper

DIGITS = string.digits + string.ascii_letters


def base62(n):
    out = ""
    while True:
        n, r = divmod(n, 62)
        out = DIGITS[r] + out
        if n == 0:
            return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    # Value 0 is the input; node i reads value i and writes value i + 1.
    nodes = [helper.make_node("Relu" if i % 2 == 0 else "Neg", [base62(i)], [base62(i + 1)])
             for i in range(args.nodes)]
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info(base62(0), TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info(base62(args.nodes), TensorProto.FLOAT, ["batch", 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with open(args.output, "wb") as f:
        f.write(model.SerializeToString())
    print(f"{args.output}: {args.nodes} nodes, {model.ByteSize()} bytes")


if __name__ == "__main__":
    main()
