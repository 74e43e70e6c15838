#!/usr/bin/python3
"""`oxir upgrade` (rewrite/version.hpp upgrade_opset) checked by ONNX Runtime.

Models: hand-made ones of the operator versions that change (Clip-6, Pad-2, Slice-1, TopK-1,
Upsample-7/9, Resize-10 up and down, Softmax/LogSoftmax/Hardmax-1 on every kind of axis,
Dropout-10, Squeeze/Unsqueeze-1, Split-2, the Reduce operators-1, BatchNormalization-7, Scatter-9,
RoiAlign-10, GridSample-16 in each mode, DFT-17, Scan-8, GroupNormalization-18, and opsets 1-6:
legacy broadcasting, PRelu-6, Reshape-1, Cast-1, Tile-1, ... with numpy's outputs), which must
all convert and agree; the ONNX backend node tests that onnx 1.12's version converter moved to
opsets 7, 9, 10, 11, 12, 13 and 15 (~/.cache/oxir/converted-backend, made by tests/infer/converted/
convert_backend.py when missing) and the libonnx-testdata models (node, pytorch-converted,
pytorch-operator, simple) at opsets below 17. Each is
upgraded by oxir to opsets 13, 18 and 21 (those above its own). Then:
  - at opset 13, which onnx 1.12 knows, the upgraded model must pass onnx's full check where the
    original does (with its
    shape inference); onnx 1.12 knows neither the IR versions nor the operators of 18 and 21,
    where ONNX Runtime loading the model is the check;
  - ONNX Runtime (npm onnxruntime-node, graph optimizations off) runs the model before and after
    on the test's own inputs (test_data_set_0): the outputs must be bit-identical, or float
    outputs within 1e-6 (relative and absolute: ONNX Runtime's AveragePool-19 kernel sums in
    another order than its AveragePool-11, 1.5e-8 apart on sums of unit-sized inputs that cancel
    out), counted apart. Where ONNX Runtime cannot run the model before the upgrade (it runs few
    operators of opsets 1-6) but runs it after, the outputs must match the test's reference
    outputs (test_data_set_0, within 1e-3) and are counted apart; hand-made models of opsets 1-6
    carry outputs computed with numpy, always compared. Models it cannot run at all are counted;
  - a refusal must be one upgrade_opset documents (Scan-8 with sequence_lens, BatchNormalization
    spatial = 0 or training outputs, an element type it needs and cannot find, Resize-10 in
    nearest mode whose scales are not constant).

Prints "SKIPPED: ..." and exits 0 without python3-onnx, the corpus, node or onnxruntime-node.
usage: verify_upgrade.py --oxir build/bin/oxir [--converted DIR] [--corpus DIR] [--limit N] [--stride N]
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from passes_common import (CORPUS_KINDS, NoRuntime, first_did_not_run, run_ort_jobs,  # noqa: E402
                           test_dirs, valid)

try:
    import onnx
    import onnx.checker
    import onnx.numpy_helper
except ImportError:
    print("SKIPPED: python3-onnx is not installed")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
          9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 8: "string"}
REFUSALS = ("sequence_lens", "spatial = 0", "training outputs", "is not known",
            "scales are not a constant", "shrinks some axes")


def default_opset(m):
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


def test_tensor(model_dir, kind, k):
    """Tensor k of test_data_set_0 (kind "input" or "output") as (element type name, flat values
    for JSON, shape), or None when it is missing, not a tensor, float16, or not finite."""
    p = os.path.join(model_dir, "test_data_set_0", "%s_%d.pb" % (kind, k))
    if not os.path.exists(p):
        return None
    t = onnx.TensorProto()
    with open(p, "rb") as f:
        t.ParseFromString(f.read())
    dtype = DTYPES.get(t.data_type)
    if dtype is None or dtype == "float16":
        return None
    try:
        a = onnx.numpy_helper.to_array(t)
    except Exception:
        return None  # a sequence or optional
    values = a.flatten().tolist()
    if dtype == "bool":
        values = [1 if v else 0 for v in values]
    if dtype == "string":
        values = [v.decode() if isinstance(v, bytes) else v for v in values]
    if values and isinstance(values[0], float) and not all(math.isfinite(x) for x in values):
        return None  # JSON carries no NaN or infinity
    return dtype, values, list(a.shape)


def spec_of(model_dir, model):
    """ORT feeds: the test's own inputs as fixed values (None when a type cannot be fed)."""
    spec = {}
    inits = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    for k, i in enumerate(inputs):
        t = test_tensor(model_dir, "input", k)
        if t is None:
            return None
        dtype, values, shape = t
        spec[i.name] = {"shape": shape, "dtype": dtype}
        if values:
            spec[i.name]["value"] = values
    return spec


def expected_of(model_dir, model):
    """The reference outputs of test_data_set_0 by output name (None when any cannot go in JSON)."""
    out = {}
    for k, o in enumerate(model.graph.output):
        t = test_tensor(model_dir, "output", k)
        if t is None or t[0] == "string":
            return None
        out[o.name] = {"shape": t[2], "value": t[1]}
    return out


def synthetic(work):
    """Hand-made models of the operator versions the converted corpus lacks (onnx's converter
    refuses to write most of them), each with an ORT feed spec: (name, path, opset, spec)."""
    from onnx import helper, TensorProto as TP
    F = TP.FLOAT
    cases = []

    def add(name, opset, nodes, inputs, outputs, spec, inits=(), expect=None):
        g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], list(inits))
        ir = 7 if opset >= 13 else 6 if opset == 11 else 5 if opset == 10 else 4 if opset >= 9 else 3
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir)
        path = os.path.join(work, "synthetic_%s.onnx" % name)
        onnx.save(m, path)
        cases.append((name, path, opset, spec, expect))

    x4 = {"x": {"shape": [2, 3, 4, 5], "dtype": "float32"}}
    X4 = [("x", F, [2, 3, 4, 5])]
    add("clip6_both", 7, [helper.make_node("Clip", ["x"], ["y"], min=-0.3, max=0.4)], X4, [("y", F, None)], x4)
    add("clip6_min", 9, [helper.make_node("Clip", ["x"], ["y"], min=-0.1)], X4, [("y", F, None)], x4)
    add("clip6_max", 10, [helper.make_node("Clip", ["x"], ["y"], max=0.2)], X4, [("y", F, None)], x4)
    add("pad2_constant", 7, [helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 2, 0, 0, 2, 1, 3], value=1.5)], X4,
        [("y", F, None)], x4)
    add("pad2_reflect", 9, [helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 2, 0, 0, 2, 1], mode="reflect")], X4,
        [("y", F, None)], x4)
    add("pad2_edge", 10, [helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1], mode="edge")], X4,
        [("y", F, None)], x4)
    add("slice1", 9, [helper.make_node("Slice", ["x"], ["y"], starts=[1, -3], ends=[3, 1000], axes=[2, 3])], X4,
        [("y", F, None)], x4)
    add("slice1_no_axes", 7, [helper.make_node("Slice", ["x"], ["y"], starts=[0, 1, 1], ends=[1, 3, -1])], X4,
        [("y", F, None)], x4)
    add("topk1", 9, [helper.make_node("TopK", ["x"], ["v", "i"], k=3, axis=2)], X4,
        [("v", F, None), ("i", TP.INT64, None)], x4)
    add("upsample7_nearest", 7, [helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 3.0], mode="nearest")],
        X4, [("y", F, None)], x4)
    add("upsample7_linear", 8, [helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 2.0], mode="linear")],
        X4, [("y", F, None)], x4)
    sc = helper.make_tensor("s", F, [4], [1.0, 1.0, 2.0, 1.5])
    add("upsample9_nearest", 9, [helper.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")], X4, [("y", F, None)],
        x4, [sc])
    add("resize10_nearest_up", 10, [helper.make_node("Resize", ["x", "s"], ["y"], mode="nearest")], X4,
        [("y", F, None)], x4, [sc])
    add("resize10_linear_up", 10, [helper.make_node("Resize", ["x", "s"], ["y"], mode="linear")], X4,
        [("y", F, None)], x4, [sc])
    down = helper.make_tensor("s", F, [4], [1.0, 1.0, 0.5, 0.6])
    add("resize10_nearest_down", 10, [helper.make_node("Resize", ["x", "s"], ["y"], mode="nearest")], X4,
        [("y", F, None)], x4, [down])
    add("resize10_nearest_down_const", 10, [helper.make_node("Constant", [], ["c"], value=down),
                                             helper.make_node("Resize", ["x", "c"], ["y"], mode="nearest")], X4,
        [("y", F, None)], x4)
    add("resize10_linear_down", 10, [helper.make_node("Resize", ["x", "s"], ["y"], mode="linear")], X4,
        [("y", F, None)], x4, [down])
    for op in ("Softmax", "LogSoftmax", "Hardmax"):
        add(op.lower() + "1_axis1", 11, [helper.make_node(op, ["x"], ["y"], axis=1)], X4, [("y", F, None)], x4)
        add(op.lower() + "1_default", 7, [helper.make_node(op, ["x"], ["y"])], X4, [("y", F, None)], x4)
        add(op.lower() + "1_last", 11, [helper.make_node(op, ["x"], ["y"], axis=3)], X4, [("y", F, None)], x4)
        add(op.lower() + "1_unknown_rank", 11, [helper.make_node(op, ["x"], ["y"], axis=2)], [("x", F, None)],
            [("y", F, None)], x4)
    add("dropout10_ratio", 10, [helper.make_node("Dropout", ["x"], ["y"], ratio=0.3)], X4, [("y", F, None)], x4)
    add("squeeze1", 11, [helper.make_node("Squeeze", ["x"], ["y"], axes=[0, -2])], [("x", F, [1, 3, 1, 5])],
        [("y", F, None)], {"x": {"shape": [1, 3, 1, 5], "dtype": "float32"}})
    add("unsqueeze1", 9, [helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 3])], [("x", F, [3, 5])],
        [("y", F, None)], {"x": {"shape": [3, 5], "dtype": "float32"}})
    add("split2", 9, [helper.make_node("Split", ["x"], ["a", "b"], axis=3, split=[2, 3])], X4,
        [("a", F, None), ("b", F, None)], x4)
    add("split2_equal", 12, [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1)], X4,
        [("a", F, None), ("b", F, None), ("c", F, None)], x4)
    for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceProd", "ReduceL2", "ReduceLogSumExp"):
        add(op.lower() + "1_axes", 11, [helper.make_node(op, ["x"], ["y"], axes=[1, -1], keepdims=0)], X4,
            [("y", F, None)], x4)
    add("batchnorm7_spatial", 7, [helper.make_node("BatchNormalization", ["x", "sc", "b", "m", "v"], ["y"], spatial=1)],
        X4, [("y", F, None)], x4,
        [helper.make_tensor(n, F, [3], vals) for n, vals in
         (("sc", [1.0, 2.0, 0.5]), ("b", [0.1, 0.2, 0.3]), ("m", [0.0, 0.5, -0.5]), ("v", [1.0, 0.25, 4.0]))])
    add("scatter9", 9, [helper.make_node("Scatter", ["x", "i", "u"], ["y"], axis=1)],
        [("x", F, [3, 3]), ("i", TP.INT64, [2, 3]), ("u", F, [2, 3])], [("y", F, None)],
        {"x": {"shape": [3, 3], "dtype": "float32"}, "i": {"shape": [2, 3], "dtype": "int64", "value": [1, 0, 2, 0, 2, 1]},
         "u": {"shape": [2, 3], "dtype": "float32"}})
    rois = {"x": {"shape": [1, 2, 8, 8], "dtype": "float32"},
            "r": {"shape": [2, 4], "dtype": "float32", "value": [0.5, 1.0, 5.5, 6.0, 2.0, 0.0, 7.0, 4.5]},
            "b": {"shape": [2], "dtype": "int64", "value": [0, 0]}}
    add("roialign10", 10, [helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], output_height=3, output_width=3,
                                            sampling_ratio=2, spatial_scale=1.0)],
        [("x", F, [1, 2, 8, 8]), ("r", F, [2, 4]), ("b", TP.INT64, [2])], [("y", F, None)], rois)
    grid = {"x": {"shape": [1, 2, 4, 5], "dtype": "float32"}, "g": {"shape": [1, 3, 3, 2], "dtype": "float32"}}
    for mode in ("bilinear", "bicubic", "nearest"):
        add("gridsample16_" + mode, 16, [helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode)],
            [("x", F, [1, 2, 4, 5]), ("g", F, [1, 3, 3, 2])], [("y", F, None)], grid)
    add("dft17_axis1", 17, [helper.make_node("DFT", ["x"], ["y"], axis=1)], [("x", F, [2, 6, 4, 1])], [("y", F, None)],
        {"x": {"shape": [2, 6, 4, 1], "dtype": "float32"}})
    add("dft17_axis2_onesided", 17, [helper.make_node("DFT", ["x"], ["y"], axis=2, onesided=1)],
        [("x", F, [2, 3, 8, 1])], [("y", F, None)], {"x": {"shape": [2, 3, 8, 1], "dtype": "float32"}})
    # Scan-8: batch axis 0 on every input and output; a state and a scan output, and two scan
    # inputs (one reversed) without states.
    acc = helper.make_graph([helper.make_node("Add", ["acc", "e"], ["acc_out"]),
                             helper.make_node("Mul", ["acc_out", "e"], ["p"])], "acc",
                            [helper.make_tensor_value_info("acc", F, [2]), helper.make_tensor_value_info("e", F, [2])],
                            [helper.make_tensor_value_info("acc_out", F, [2]), helper.make_tensor_value_info("p", F, [2])])
    add("scan8_state", 8, [helper.make_node("Scan", ["", "init", "x"], ["sum", "partial"], body=acc, num_scan_inputs=1)],
        [("init", F, [3, 2]), ("x", F, [3, 4, 2])], [("sum", F, [3, 2]), ("partial", F, [3, 4, 2])],
        {"init": {"shape": [3, 2], "dtype": "float32"}, "x": {"shape": [3, 4, 2], "dtype": "float32"}})
    pair = helper.make_graph([helper.make_node("Sub", ["a", "b"], ["d"])], "pair",
                             [helper.make_tensor_value_info("a", F, [5]), helper.make_tensor_value_info("b", F, [5])],
                             [helper.make_tensor_value_info("d", F, [5])])
    add("scan8_reversed", 8, [helper.make_node("Scan", ["", "x", "y"], ["d"], body=pair, num_scan_inputs=2,
                                               directions=[0, 1])],
        [("x", F, [2, 3, 5]), ("y", F, [2, 3, 5])], [("d", F, [2, 3, 5])],
        {"x": {"shape": [2, 3, 5], "dtype": "float32"}, "y": {"shape": [2, 3, 5], "dtype": "float32"}})
    # GroupNormalization-18: scale and bias per group, as initializers and as inputs.
    gn = {"x": {"shape": [2, 6, 3, 2], "dtype": "float32"}}
    add("groupnorm18_init", 18, [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3,
                                                  epsilon=1e-3)],
        [("x", F, [2, 6, 3, 2])], [("y", F, [2, 6, 3, 2])], gn,
        [helper.make_tensor("s", F, [3], [0.5, 2.0, -1.0]), helper.make_tensor("b", F, [3], [0.1, -0.2, 0.3])])
    add("groupnorm18_inputs", 18, [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
        [("x", F, [2, 6, 3, 2]), ("s", F, [2]), ("b", F, [2])], [("y", F, [2, 6, 3, 2])],
        {"x": {"shape": [2, 6, 3, 2], "dtype": "float32"}, "s": {"shape": [2], "dtype": "float32"},
         "b": {"shape": [2], "dtype": "float32"}})
    legacy(add)
    return cases


def legacy(add):
    """Hand-made models of opsets 1-6 with inputs fixed and outputs computed here with numpy
    (ONNX Runtime runs few operators of those opsets): the legacy broadcast of the binary
    operators, PRelu's per-channel slope, Gemm's broadcast, Reshape-1, Concat-1 without an axis,
    Cast-1 by name, Tile-1, Split-1 with sizes as input, Pad-1's paddings, BatchNormalization-6
    in test mode, GlobalLpPool-1, Upsample-1, Selu-1's defaults."""
    import numpy as np
    from onnx import helper, TensorProto as TP, numpy_helper
    F = TP.FLOAT
    rng = np.random.RandomState(7)

    def case(name, opset, nodes, inputs, outputs, inits=()):
        """inputs: (name, array); outputs: (name, elem type, array)."""
        spec = {n: {"shape": list(a.shape), "dtype": "float32", "value": a.flatten().tolist()} for n, a in inputs}
        expect = {n: {"shape": list(a.shape), "value": a.flatten().tolist()} for n, _, a in outputs}
        add(name, opset, nodes, [(n, F, list(a.shape)) for n, a in inputs], [(n, t, list(a.shape)) for n, t, a in outputs],
            spec, [numpy_helper.from_array(a, n) for n, a in inits], expect)

    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(np.float32)

    a, b = r(2, 3, 4, 5), r(3)
    case("add6_axis1", 6, [helper.make_node("Add", ["a", "b"], ["y"], broadcast=1, axis=1)], [("a", a), ("b", b)],
         [("y", F, a + b[None, :, None, None])])
    b2 = r(3, 4)
    case("sub6_axis1_rank2", 6, [helper.make_node("Sub", ["a", "b"], ["y"], broadcast=1, axis=1)], [("a", a), ("b", b2)],
         [("y", F, a - b2[None, :, :, None])])
    b3 = r(5)
    case("mul5_suffix", 5, [helper.make_node("Mul", ["a", "b"], ["y"], broadcast=1, consumed_inputs=[0, 0])],
         [("a", a), ("b", b3)], [("y", F, a * b3)])
    b4 = r(2)
    case("div1_axis0", 1, [helper.make_node("Div", ["a", "b"], ["y"], broadcast=1, axis=0)], [("a", a), ("b", b4)],
         [("y", F, a / b4[:, None, None, None])])
    case("greater6_axis1", 6, [helper.make_node("Greater", ["a", "b"], ["y"], broadcast=1, axis=1)],
         [("a", a), ("b", b)], [("y", TP.BOOL, a > b[None, :, None, None])])
    slope = r(3)
    case("prelu6_channels", 6, [helper.make_node("PRelu", ["x", "s"], ["y"])], [("x", a)],
         [("y", F, np.where(a < 0, a * slope[None, :, None, None], a))], [("s", slope)])
    ga, gb, gc = r(2, 3), r(3, 4), r(4)
    case("gemm6_broadcast", 6, [helper.make_node("Gemm", ["a", "b", "c"], ["y"], broadcast=1, alpha=0.5, beta=2.0)],
         [("a", ga), ("b", gb), ("c", gc)], [("y", F, 0.5 * ga @ gb + 2.0 * gc)])
    x = r(2, 3, 4)
    case("reshape1", 4, [helper.make_node("Reshape", ["x"], ["y"], shape=[4, 6])], [("x", x)], [("y", F, x.reshape(4, 6))])
    c1, c2 = r(2, 3), r(2, 2)
    case("concat1_default_axis", 3, [helper.make_node("Concat", ["p", "q"], ["y"])], [("p", c1), ("q", c2)],
         [("y", F, np.concatenate([c1, c2], axis=1))])
    case("cast1_by_name", 5, [helper.make_node("Cast", ["x"], ["y"], to="INT32")], [("x", x * 3)],
         [("y", TP.INT32, (x * 3).astype(np.int32))])
    case("tile1", 5, [helper.make_node("Tile", ["x", "t", "ax"], ["y"])], [("x", x)], [("y", F, np.tile(x, [1, 3, 1]))],
         [("t", np.array(3, dtype=np.int64)), ("ax", np.array(1, dtype=np.int64))])
    v = r(6)
    case("split1_sizes_input", 1, [helper.make_node("Split", ["x", "sizes"], ["p", "q"], axis=0)], [("x", v)],
         [("p", F, v[:2]), ("q", F, v[2:])], [("sizes", np.array([2, 4], dtype=np.int64))])
    case("pad1_paddings", 1, [helper.make_node("Pad", ["x"], ["y"], paddings=[0, 1, 1, 2], value=1.5)], [("x", c1)],
         [("y", F, np.pad(c1, [(0, 1), (1, 2)], constant_values=1.5))])
    sc, bi, mu, va = r(3), r(3), r(3), np.abs(r(3)) + 0.5
    ref = (x - mu[None, :, None]) / np.sqrt(va[None, :, None] + 1e-5) * sc[None, :, None] + bi[None, :, None]
    case("batchnorm6_test", 6, [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], is_test=1)],
         [("x", x)], [("y", F, ref.astype(np.float32))], [("s", sc), ("b", bi), ("m", mu), ("v", va)])
    img = r(1, 2, 3, 3)
    case("globallppool1", 1, [helper.make_node("GlobalLpPool", ["x"], ["y"], p=2.0)], [("x", img)],
         [("y", F, np.sqrt((img ** 2).sum(axis=(2, 3), keepdims=True)))])
    case("upsample1_nearest", 6, [helper.make_node("Upsample", ["x"], ["y"], height_scale=2.0, width_scale=3.0)],
         [("x", img)], [("y", F, img.repeat(2, axis=2).repeat(3, axis=3))])
    alpha, gamma = np.float32(1.6732), np.float32(1.0507)
    case("selu1_defaults", 5, [helper.make_node("Selu", ["x"], ["y"])], [("x", x)],
         [("y", F, np.where(x > 0, gamma * x, gamma * alpha * (np.exp(x) - 1)).astype(np.float32))])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
    ap.add_argument("--converted", default=os.path.expanduser("~/.cache/oxir/converted-backend"))
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--stride", type=int, default=1, help="every Nth corpus model only (the sanitizer build's quicker run)")
    args = ap.parse_args()
    if not os.path.isdir(args.corpus):
        print("SKIPPED: corpus %s not found (Debian's libonnx-testdata)" % args.corpus)
        return 0
    if not shutil.which("node"):
        print("SKIPPED: node is not installed")
        return 0
    if not os.path.isdir(args.converted):
        r = subprocess.run([sys.executable, os.path.join(HERE, "..", "infer", "converted", "convert_backend.py"),
                            "--corpus", os.path.join(args.corpus, "node"), args.converted],
                           capture_output=True, text=True)
        if not os.path.isdir(args.converted):
            print("SKIPPED: cannot make %s: %s" % (args.converted, (r.stdout + r.stderr).strip()[-300:]))
            return 0
    dirs = test_dirs(args.converted, *(os.path.join(args.corpus, k) for k in CORPUS_KINDS))
    dirs = dirs[::max(args.stride, 1)]
    if args.limit:
        dirs = dirs[:args.limit]
    work = tempfile.mkdtemp(prefix="oxir-upgrade-")
    failures = []
    st = dict(models=0, synthetic=0, upgrades=0, rewritten=0, refused=0, checked=0, same=0, close=0, reference=0,
              not_run=0, no_feed=0)
    refusals = {}
    jobs = []
    # (label, model path, opset, ORT feeds, passes onnx's full check, hand-made)
    items = []
    for d in dirs:
        try:
            model = onnx.load(os.path.join(d, "model.onnx"))
        except Exception:
            continue
        v = default_opset(model)
        if v is None or v >= 17 and not d.startswith(args.converted):
            continue
        st["models"] += 1
        items.append((os.path.relpath(d, "/"), os.path.join(d, "model.onnx"), v, spec_of(d, model), valid(model, True),
                      False, expected_of(d, model)))
    for name, path, v, spec, expect in synthetic(work):
        st["synthetic"] += 1
        # onnx 1.12 wants a shape on every graph output below IR version 4: some fail its check.
        items.append(("synthetic %s (opset %d)" % (name, v), path, v, spec, valid(onnx.load(path), True), True, expect))
    for label, path, v, spec, full_ok, synthetic_model, expect in items:
        for target in (13, 18, 21):
            if target <= v:
                continue
            st["upgrades"] += 1
            out = os.path.join(work, "%d_%d.onnx" % (len(jobs), target))
            where = "%s -> %d" % (label, target)
            r = subprocess.run([args.oxir, "upgrade", path, out, "--opset", str(target)], capture_output=True, text=True)
            if r.returncode != 0:
                st["refused"] += 1
                reason = next((x for x in REFUSALS if x in r.stderr), None)
                if reason is None or synthetic_model:
                    failures.append("%s: oxir refused: %s" % (where, r.stderr.strip()[:300]))
                else:
                    refusals[reason] = refusals.get(reason, 0) + 1
                continue
            if " 0 nodes rewritten" not in r.stdout:
                st["rewritten"] += 1
            if target <= 17 and full_ok:
                if not valid(onnx.load(out), True):
                    failures.append("%s: the upgraded model fails onnx's full check" % where)
                    continue
                st["checked"] += 1
            if spec is None:
                st["no_feed"] += 1
                continue
            jobs.append({"a": path, "b": out, "spec": spec, "where": where, "rel": 1e-6, "abs": 1e-6,
                         "synthetic": synthetic_model, "expect": expect, "always_expect": synthetic_model})
    try:
        results = run_ort_jobs(jobs, work)
    except NoRuntime:
        print("SKIPPED: onnxruntime-node is not installed (see tests/infer/real)")
        return 0
    except RuntimeError as e:
        print("error: %s" % e)
        return 1
    for res in results:
        job = jobs[res["job"]]
        if res["verdict"] == "SAME":
            st["same"] += 1
        elif res["verdict"] == "CLOSE":
            st["close"] += 1
        elif res["verdict"] == "REFERENCE":
            st["reference"] += 1
        elif job.get("synthetic"):
            failures.append("%s: %s: %s" % (job["where"], res["verdict"], res["detail"][:300]))
        elif first_did_not_run(res):
            st["not_run"] += 1  # ONNX Runtime cannot run the model before the upgrade
        else:
            failures.append("%s: ONNX Runtime gives different outputs: %s" % (job["where"], res["detail"][:300]))
    print("upgrade_opset on %d corpus models and %d hand-made ones (%d upgrades to opsets 13, 18, 21): %d rewrote"
          " nodes; %d refused %s;" % (st["models"], st["synthetic"], st["upgrades"], st["rewritten"], st["refused"],
                                      json.dumps(refusals, sort_keys=True)))
    print("  %d upgrades to 13 pass onnx's full check; ONNX Runtime outputs before and after bit-identical: %d,"
          " within 1e-6 (a newer kernel summing in another order): %d; the runtime cannot run the model before but"
          " runs it after, and agrees with the test's reference outputs: %d"
          " (not run: %d the runtime cannot run before; %d without inputs to feed)" %
          (st["checked"], st["same"], st["close"], st["reference"], st["not_run"], st["no_feed"]))
    for f in failures[:40]:
        print("FAIL:", f)
    if len(failures) > 40:
        print("... and %d more failures" % (len(failures) - 40))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
