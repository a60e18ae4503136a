#!/usr/bin/env python3
"""Writes the node test cases of the pinned onnx release as backend test data.

onnx's wheel and sdist no longer ship the `backend/test/data/node` directories
that Debian's libonnx-testdata has (ONNX 1.12). The cases themselves are still
in the package: `onnx.backend.test.case.node` builds each model and its
reference outputs (computed by onnx's examples and its reference
implementation) when imported. This script collects them as onnx's own
`backend-test-tools generate-data` does and writes each one as
`<out>/<case>/model.onnx` and `<out>/<case>/test_data_set_0/{input,output}_N.pb`,
the layout the `[testdata]` test (tests/infer/onnx_testdata_test.cc) reads.

Run it in the venv of tools/models/requirements-node-cases.txt (python3 -m venv;
pip install -r); the onnx version decides which cases exist and what they hold.
The cases seed their random inputs, so a rerun with the same onnx writes the same
bytes.
Usage: onnx_node_cases.py [out_dir]   (default: tests/infer/onnx_node_1_23)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node as node_cases

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(REPO, "tests", "infer", "onnx_node_1_23")
PINNED = "1.23.2"

# The committed set should stay near 2 MB, and the whole suite written out is
# about 50 MB, nearly all of it the payload of large data tensors. The shape test
# reads values only from small tensors (shapes, axes, scales: the engine tracks
# values of at most 256 elements) and of every other tensor only its dims. So a
# tensor of more elements than this is written with its name, element type and
# dims and no payload (`--full` keeps every payload); every case is kept.
MAX_ELEMENTS_WITH_DATA = 256


def dims_only(t: TensorProto) -> TensorProto:
    out = TensorProto(name=t.name, data_type=t.data_type)
    out.dims.extend(t.dims)
    return out


def serialize(value, type_proto: onnx.TypeProto, name: str, max_elements: int | None) -> bytes:
    if type_proto.HasField("map_type"):
        return numpy_helper.from_dict(value, name).SerializeToString()
    if type_proto.HasField("sequence_type"):
        return numpy_helper.from_list(value, name).SerializeToString()
    if type_proto.HasField("optional_type"):
        return numpy_helper.from_optional(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        t = value
    else:
        t = numpy_helper.from_array(np.asarray(value), name)
    if max_elements is not None and int(np.prod(t.dims, dtype=np.int64)) > max_elements:
        t = dims_only(t)
    return t.SerializeToString()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT)
    parser.add_argument("--full", action="store_true", help="keep every tensor's payload")
    args = parser.parse_args()
    if onnx.__version__ != PINNED:
        print(
            f"note: onnx {onnx.__version__}, the committed data is from {PINNED}",
            file=sys.stderr,
        )

    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    limit = None if args.full else MAX_ELEMENTS_WITH_DATA
    written = total = 0
    for case in sorted(node_cases.collect_testcases(), key=lambda c: c.name):
        graph = case.model.graph
        inputs, outputs = case.data_sets[0]
        files = {"model.onnx": case.model.SerializeToString()}
        for j, value in enumerate(inputs):
            files[f"test_data_set_0/input_{j}.pb"] = serialize(
                value, graph.input[j].type, graph.input[j].name, limit
            )
        for j, value in enumerate(outputs):
            files[f"test_data_set_0/output_{j}.pb"] = serialize(
                value, graph.output[j].type, graph.output[j].name, limit
            )
        size = sum(len(b) for b in files.values())
        for rel, data in files.items():
            path = os.path.join(args.out, case.name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        written += 1
        total += size
    print(f"{written} cases written to {args.out} ({total} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
