"""Helpers for the corpus's ONNX files and labels that need only onnx and the standard library,
not torch: the exporters (Debian's torch 1.13, the torch 2.x venv) and the tools that run without
torch (export_post.py) import the same code, so every corpus stores its files one way."""

import json
import re

import onnx
import onnx.numpy_helper
from onnx import external_data_helper


def graph_only(model, location, threshold=1024):
    """Copy of model whose float initializers > threshold bytes are external
    data in `location` (not written).  Offsets/lengths are those the file
    would have if written by onnx.save_model(..., all_tensors_to_one_file)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    offset = 0
    for t in m.graph.initializer:
        if t.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
                               onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16):
            continue
        raw = onnx.numpy_helper.to_array(t).tobytes()
        if len(raw) <= threshold:
            continue
        # onnx aligns each tensor in the external file to 4 KiB when it can
        offset = (offset + 4095) // 4096 * 4096
        for field in ("float_data", "double_data", "int32_data"):
            t.ClearField(field)
        t.raw_data = raw  # set_external_data insists on raw_data being there
        external_data_helper.set_external_data(t, location=location, offset=offset, length=len(raw))
        t.ClearField("raw_data")
        t.data_location = onnx.TensorProto.EXTERNAL
        offset += len(raw)
    return m


def dims_of(vi):
    out = []
    for d in vi.type.tensor_type.shape.dim:
        out.append(d.dim_param if d.HasField("dim_param") else (d.dim_value if d.HasField("dim_value") else "?"))
    return out


def write_json(path, doc):
    """Indented JSON with each run (and each short list) on one line."""
    runs = {}
    for m in doc["models"].values():
        for k, r in enumerate(m["runs"]):
            key = "@@run%d@@" % len(runs)
            runs[key] = json.dumps(r)
            m["runs"][k] = key
    text = json.dumps(doc, indent=1)
    text = re.sub(r'"(@@run\d+@@)"', lambda mm: runs[mm.group(1)], text)
    item = r'(?:"[^"\\,\[\]{}]*"|-?[\d.eE+-]+|true|false|null)'
    text = re.sub(r"\[\n\s*(%s(?:,\n\s*%s)*)\n\s*\]" % (item, item),
                  lambda mm: "[" + ", ".join(x.strip() for x in mm.group(1).split(",")) + "]", text)
    with open(path, "w") as f:
        f.write(text + "\n")
