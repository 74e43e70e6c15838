#!/usr/bin/python3
"""Reads every test_data_set_*/*.pb TensorProto under the given corpus folders with onnx.numpy_helper
and writes, for each file, its element type, dims and the values as little-endian bytes (the layout
of TensorProto.raw_data) into one binary file, which oxir's corpus test compares against.

Usage: dump_tensors.py OUTPUT ROOT [ROOT...]

Output: a first line "oxir-tensor-dump 1\n", then one record per .pb file:
    "<path>\t<kind>\t<data_type>\t<dims, comma separated>\t<byte count>\n" <bytes> "\n"
kind is "tensor" (bytes follow) or "skip:<why>" (byte count 0): the file is not a TensorProto (the
model's matching input/output is a sequence, map or optional) or numpy cannot represent it.
STRING tensors give, per element, its UTF-8 length as 8 little-endian bytes and then the bytes.
"""

import glob
import os
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def value_bytes(tensor, arr):
    dt = tensor.data_type
    if dt == onnx.TensorProto.STRING:
        out = bytearray()
        for s in arr.reshape(-1):
            b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
            out += struct.pack("<Q", len(b)) + b
        return bytes(out)
    if dt == onnx.TensorProto.BFLOAT16:
        # numpy_helper widens bfloat16 to float32; the upper 16 bits are the bfloat16 bits.
        bits = np.ascontiguousarray(arr, dtype="<f4").view("<u4") >> 16
        return bits.astype("<u2").tobytes()
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8).tobytes()
    return np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()


def io_types(model_path):
    """Input and output type kinds of the model, in test-data order ('tensor', 'sequence', ...)."""
    try:
        model = onnx.load(model_path, load_external_data=False)
    except Exception:  # noqa: BLE001 - an unreadable model: treat its data as unknown
        return None, None
    inits = {t.name for t in model.graph.initializer}

    def kind(vi):
        which = vi.type.WhichOneof("value")
        return "tensor" if which in (None, "tensor_type") else which

    ins = [kind(v) for v in model.graph.input if v.name not in inits]
    outs = [kind(v) for v in model.graph.output]
    return ins, outs


def main():
    out_path, roots = sys.argv[1], sys.argv[2:]
    records = []
    for root in roots:
        for model_path in sorted(glob.glob(os.path.join(root, "*", "model.onnx"))):
            case = os.path.dirname(model_path)
            ins, outs = io_types(model_path)
            for pb in sorted(glob.glob(os.path.join(case, "test_data_set_*", "*.pb"))):
                base = os.path.basename(pb)
                kinds = ins if base.startswith("input_") else outs
                try:
                    index = int(base.split("_", 1)[1].split(".")[0])
                    kind = kinds[index] if kinds is not None and index < len(kinds) else "tensor"
                except (ValueError, IndexError):
                    kind = "tensor"
                if kind != "tensor":
                    records.append((pb, "skip:" + kind, 0, [], b""))
                    continue
                tensor = onnx.TensorProto()
                with open(pb, "rb") as f:
                    tensor.ParseFromString(f.read())
                try:
                    arr = numpy_helper.to_array(tensor)
                    data = value_bytes(tensor, arr)
                    if tuple(arr.shape) != tuple(tensor.dims):
                        raise ValueError("shape %s != dims %s" % (arr.shape, list(tensor.dims)))
                except Exception as e:  # noqa: BLE001 - types numpy_helper does not read
                    records.append((pb, "skip:numpy(%s)" % type(e).__name__, tensor.data_type, list(tensor.dims), b""))
                    continue
                records.append((pb, "tensor", tensor.data_type, list(tensor.dims), data))
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"oxir-tensor-dump 1\n")
        for path, kind, dt, dims, data in records:
            head = "%s\t%s\t%d\t%s\t%d\n" % (path, kind, dt, ",".join(str(d) for d in dims), len(data))
            f.write(head.encode("utf-8"))
            f.write(data)
            f.write(b"\n")
    os.replace(tmp, out_path)
    print("dump_tensors.py: %d files" % len(records))


if __name__ == "__main__":
    main()
