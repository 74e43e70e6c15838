#!/usr/bin/python3
"""`oxir downgrade` (rewrite/version.hpp downgrade_opset) checked by ONNX Runtime.

Models: the libonnx-testdata models at opsets 8-17 (node, pytorch-converted, pytorch-operator,
simple), the torch exports of tests/infer/real (opsets 9-18, when cached), and hand-made ones of
the operator versions that change (attributes that became inputs, Resize, ScatterElements,
Softmax along the last axis and another, Shape's start/end, ArgMax's last index, negative axes,
Constant's value_* attributes, Gemm without C). Each is downgraded to the opsets 7, 9, 11 and 13
below its own. Then:
  - a downgrade either succeeds or is refused with an oxir::Error (exit 1); refusals are counted
    by reason; a hand-made model must convert unless its operator or a type it uses does not
    exist at the target (or the case names the refusal it expects);
  - at opsets onnx 1.12 knows (all of these), the downgraded model must pass onnx's full check
    where the original does;
  - ONNX Runtime (npm onnxruntime-node, graph optimizations off) runs the model before and after
    on the test's own inputs (test_data_set_0; random inputs for the exports and hand-made
    models): the outputs must be bit-identical, or float outputs within 1e-6 (an older kernel
    summing in another order), counted apart. Models ONNX Runtime cannot run before, and
    downgraded models it has no kernel for (Max-6 on doubles, say), are counted.

Prints "SKIPPED: ..." and exits 0 without python3-onnx, the corpus, node or onnxruntime-node.
usage: verify_downgrade.py --oxir build/bin/oxir [--corpus DIR] [--limit N] [--stride N]
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from passes_common import (CORPUS_KINDS, NoRuntime, first_did_not_run, run_ort_jobs,  # noqa: E402
                           test_dirs, valid)

try:
    import onnx
    from verify_upgrade import default_opset, spec_of  # noqa: E402
except ImportError:
    print("SKIPPED: python3-onnx is not installed")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = (7, 9, 11, 13)


def export_spec(model):
    """Random float/int64 feeds for a model without test data: its inputs' declared shapes with
    symbolic dims set to 2; None when an input is not a float or int64 tensor."""
    spec = {}
    inits = {t.name for t in model.graph.initializer}
    for i in model.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        if not i.type.HasField("tensor_type") or t.elem_type not in (1, 7) or not t.HasField("shape"):
            return None
        shape = [d.dim_value if d.HasField("dim_value") else 2 for d in t.shape.dim]
        spec[i.name] = {"shape": shape, "dtype": "float32" if t.elem_type == 1 else "int64", "int_range": [0, 2]}
    return spec


def hand_made(work):
    """Models of the version steps downgrade_opset adapts: (name, path, opset, ORT spec)."""
    from onnx import helper, numpy_helper, TensorProto as TP
    import numpy as np
    F = TP.FLOAT
    cases = []

    def add(name, opset, nodes, inputs, outputs, inits=(), excuse=None, feed=None):
        g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
                              [numpy_helper.from_array(np.array(v, dtype=dt), n) for n, v, dt in inits])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
        path = os.path.join(work, "hand_%s.onnx" % name)
        onnx.save(m, path)
        # `feed` gives the sizes fed for inputs declared with symbolic dims.
        spec = {n: {"shape": (feed or {}).get(n, s), "dtype": "float32"} for n, t, s in inputs}
        cases.append((name, path, opset, spec, excuse))

    X = [("x", F, [2, 3, 4, 5])]
    i64 = np.int64
    add("reducemean18_axes", 18, [helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=0)], X, [("y", F)],
        [("axes", [1, -1], i64)])
    add("reducesum13_axes", 13, [helper.make_node("ReduceSum", ["x", "axes"], ["y"])], X, [("y", F)],
        [("axes", [2], i64)])
    add("reducemax18_all", 18, [helper.make_node("ReduceMax", ["x"], ["y"])], X, [("y", F)])
    add("squeeze_unsqueeze13", 13, [helper.make_node("Unsqueeze", ["x", "ax"], ["u"]),
                                    helper.make_node("Squeeze", ["u", "ax"], ["y"])], X, [("y", F)],
        [("ax", [0, -1], i64)])
    add("split13_sizes", 13, [helper.make_node("Split", ["x", "sizes"], ["a", "b"], axis=-1)], X, [("a", F), ("b", F)],
        [("sizes", [2, 3], i64)])
    add("split18_num_outputs", 18, [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)], X,
        [("a", F), ("b", F), ("c", F)])
    add("clip11_bounds", 11, [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], X, [("y", F)],
        [("lo", -0.25, np.float32), ("hi", 0.5, np.float32)])
    add("pad11_constant", 11, [helper.make_node("Pad", ["x", "pads", "v"], ["y"])], X, [("y", F)],
        [("pads", [0, 1, 0, 2, 0, 0, 1, 1], i64), ("v", 1.5, np.float32)])
    add("pad18_reflect", 18, [helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")], X, [("y", F)],
        [("pads", [0, 0, 1, 2, 0, 0, 2, 1], i64)])
    add("slice13_steps1", 13, [helper.make_node("Slice", ["x", "st", "en", "ax"], ["y"])], X, [("y", F)],
        [("st", [1, -3], i64), ("en", [3, 100], i64), ("ax", [2, -1], i64)])
    add("topk11_k", 11, [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1)], X, [("v", F), ("i", TP.INT64)],
        [("k", [2], i64)])
    add("dropout13_ratio", 13, [helper.make_node("Dropout", ["x", "r"], ["y"])], X, [("y", F)], [("r", 0.3, np.float32)])
    add("softmax13_last", 13, [helper.make_node("Softmax", ["x"], ["y"])], X, [("y", F)])
    add("logsoftmax13_last", 13, [helper.make_node("LogSoftmax", ["x"], ["y"], axis=3)], X, [("y", F)])
    add("concat11_negative", 11, [helper.make_node("Concat", ["x", "x"], ["y"], axis=-2)], X, [("y", F)])
    add("gather11_negative", 11, [helper.make_node("Gather", ["x", "idx"], ["y"], axis=-1)], X, [("y", F)],
        [("idx", [4, 0, 2], i64)])
    add("flatten11_negative", 11, [helper.make_node("Flatten", ["x"], ["y"], axis=-1)], X, [("y", F)])
    add("resize13_nearest_up", 13, [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                                                     coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
        X, [("y", F)], [("s", [1.0, 1.0, 2.0, 1.5], np.float32)])
    add("resize13_linear", 13, [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear",
                                                 coordinate_transformation_mode="asymmetric")],
        X, [("y", F)], [("s", [1.0, 1.0, 1.5, 2.0], np.float32)])
    add("scatterelements13", 13, [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1)],
        [("x", F, [3, 3]), ("u", F, [2, 3])], [("y", F)], [("i", [[1, 0, 2], [0, 2, 1]], i64)])
    add("constant13_value_ints", 13, [helper.make_node("Constant", [], ["c"], value_ints=[2, 60]),
                                      helper.make_node("Reshape", ["x", "c"], ["y"])], X, [("y", F)])
    add("constant13_value_float", 13, [helper.make_node("Constant", [], ["c"], value_float=2.5),
                                       helper.make_node("Mul", ["x", "c"], ["y"])], X, [("y", F)])
    add("gemm13_no_c", 13, [helper.make_node("Gemm", ["a", "b"], ["y"], transB=1)],
        [("a", F, [3, 4]), ("b", F, [5, 4])], [("y", F)])
    add("argmax13_negative", 13, [helper.make_node("ArgMax", ["x"], ["y"], axis=-2, select_last_index=0)], X,
        [("y", TP.INT64)])
    add("reshape14_allowzero_off", 14, [helper.make_node("Reshape", ["x", "shp"], ["y"], allowzero=0)], X, [("y", F)],
        [("shp", [6, -1], i64)])
    add("maxpool12_defaults", 12, [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[1, 1],
                                                    ceil_mode=0)], X, [("y", F)])
    # Forms that need new nodes at the older opset: a softmax along another axis between two
    # Transposes, Shape's start/end as a Slice of the whole shape, ArgMax/ArgMin's last index as
    # d - 1 - the first index of the input reversed (a Slice with step -1, from opset 10 only).
    add("softmax13_axis1", 13, [helper.make_node("Softmax", ["x"], ["y"], axis=1)], X, [("y", F)])
    add("logsoftmax13_axis0", 13, [helper.make_node("LogSoftmax", ["x"], ["y"], axis=0)], X, [("y", F)])
    add("hardmax13_axis_neg3", 13, [helper.make_node("Hardmax", ["x"], ["y"], axis=-3)], X, [("y", F)])
    add("shape15_start_end", 15, [helper.make_node("Shape", ["x"], ["y"], start=1, end=-1)], X, [("y", TP.INT64)])
    add("shape15_start", 15, [helper.make_node("Shape", ["x"], ["y"], start=-3)], X, [("y", TP.INT64)])
    add("shape15_end_past", 15, [helper.make_node("Shape", ["x"], ["y"], end=9)], X, [("y", TP.INT64)])
    # Floor(4x) of inputs in [-1, 1): few distinct values, so every row has ties.
    ties = [helper.make_node("Mul", ["x", "four"], ["x4"]), helper.make_node("Floor", ["x4"], ["q"])]
    four = [("four", 4.0, np.float32)]
    add("argmax12_last", 12, ties + [helper.make_node("ArgMax", ["q"], ["y"], axis=1, select_last_index=1)], X,
        [("y", TP.INT64)], four)
    add("depthtospace11_crd", 11, [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode="CRD")],
        [("x", F, [2, 8, 3, 4])], [("y", F)])
    add("dropout13_training_off", 13, [helper.make_node("Dropout", ["x", "r", "t"], ["y"])], X, [("y", F)],
        [("r", 0.5, np.float32), ("t", False, np.bool_)])
    add("argmin13_last_neg", 13, ties + [helper.make_node("ArgMin", ["q"], ["y"], axis=-1, keepdims=0,
                                                          select_last_index=1)], X,
        [("y", TP.INT64)], four)
    # Operators newer than every target, spelled in the older operators they are made of.
    def ramp(shape, lo, hi):
        return np.linspace(lo, hi, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    add("layernorm17_stats", 17, [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y", "mean", "inv"],
                                                   axis=1, epsilon=1e-3)],
        X, [("y", F), ("mean", F), ("inv", F)], [("s", ramp((3, 4, 5), 0.5, 1.5), np.float32),
                                                  ("b", ramp((4, 5), -1, 1), np.float32)])
    add("layernorm17_last_no_bias", 17, [helper.make_node("LayerNormalization", ["x", "s"], ["y"])], X, [("y", F)],
        [("s", ramp((5,), -2, 2), np.float32)])
    # (No float16 case: ONNX Runtime's CPU runs float16 Mul, Div... in float between Casts it
    # inserts and merges, so the spelled-out form is not rounded to float16 where the model says.)
    add("rmsnorm23_axis_neg2", 23, [helper.make_node("RMSNormalization", ["x", "s"], ["y"], axis=-2, epsilon=1e-4)],
        X, [("y", F)], [("s", ramp((4, 5), 0.5, 1.5), np.float32)])
    add("gelu20_none", 20, [helper.make_node("Gelu", ["x"], ["y"])], X, [("y", F)])
    add("gelu20_tanh", 20, [helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")], X, [("y", F)])
    add("mish18", 18, [helper.make_node("Mish", ["x"], ["y"])], X, [("y", F)])
    add("swish24", 24, [helper.make_node("Swish", ["x"], ["y"])], X, [("y", F)])
    add("swish24_alpha", 24, [helper.make_node("Swish", ["x"], ["y"], alpha=0.7)], X, [("y", F)])
    add("hardswish14", 14, [helper.make_node("Mul", ["x", "four"], ["x4"]),
                            helper.make_node("HardSwish", ["x4"], ["y"])], X, [("y", F)], four)
    add("celu12_alpha2", 12, [helper.make_node("Celu", ["x"], ["y"], alpha=2.0)], X, [("y", F)])
    add("castlike15_double", 15, [helper.make_node("CastLike", ["x", "like"], ["y"])], X, [("y", TP.DOUBLE)],
        [("like", [1.0], np.float64)])
    add("greaterorequal12_ties", 12, ties + [helper.make_node("GreaterOrEqual", ["q", "zero"], ["y"])], X,
        [("y", TP.BOOL)], four + [("zero", 0.0, np.float32)])
    add("trilu14_upper_k", 14, [helper.make_node("Trilu", ["x", "k"], ["y"])], X, [("y", F)], [("k", 1, np.int64)])
    add("trilu14_symbolic", 14, [helper.make_node("Trilu", ["x", "k"], ["y"])], [("x", F, ["B", "S", "S"])], [("y", F)],
        [("k", 1, np.int64)], excuse="Where, which came with opset 9", feed={"x": [2, 5, 5]})
    add("trilu14_lower", 14, [helper.make_node("Trilu", ["x"], ["y"], upper=0)], X, [("y", F)])
    add("trilu14_lower_neg_k", 14, [helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)], X, [("y", F)],
        [("k", -2, np.int64)])
    add("pow12_int_exponent", 12, [helper.make_node("Pow", ["x", "e"], ["y"])], X, [("y", F)],
        [("e", [0, 1, 2, 3, -1], np.int64)])
    X6 = [("x", F, [2, 6, 4, 5])]
    add("groupnorm18_per_group", 18, [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3,
                                                       epsilon=1e-3)], X6, [("y", F)],
        [("s", [0.5, 1.0, 1.5], np.float32), ("b", [-1.0, 0.0, 1.0], np.float32)])
    add("groupnorm21_per_channel", 21, [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
        X6, [("y", F)], [("s", ramp((6,), 0.5, 2), np.float32), ("b", ramp((6,), -1, 1), np.float32)])
    add("lessorequal16_ties", 16, ties + [helper.make_node("LessOrEqual", ["q", "zero"], ["y"])], X,
        [("y", TP.BOOL)], four + [("zero", 0.0, np.float32)])
    # NaN and the infinities compared, as floats are before Equal takes them (opset 11): the
    # specials come from initializers, plus x * 0 to have an input to feed.
    specials = [helper.make_node("Mul", ["x", "zero"], ["x0"]), helper.make_node("Add", ["sa", "x0"], ["a"]),
                helper.make_node("Add", ["sb", "x0"], ["b"])]
    special_values = [("sa", [np.nan, np.inf, -np.inf, 1.0, np.nan, 2.0, np.inf, -0.0], np.float32),
                      ("sb", [np.nan, np.inf, np.inf, 1.0, 1.0, -np.inf, 3.0, 0.0], np.float32),
                      ("zero", 0.0, np.float32)]
    X8 = [("x", F, [8])]
    for op, v in (("GreaterOrEqual", 16), ("LessOrEqual", 16), ("Equal", 13)):
        add("%s%d_nan" % (op.lower(), v), v, specials + [helper.make_node(op, ["a", "b"], ["y"])], X8,
            [("y", TP.BOOL)], special_values)
    # IsInf before 10: above the largest finite value, below its negative (NaN neither).
    for name, attrs in (("both", {}), ("positive", {"detect_negative": 0}), ("negative", {"detect_positive": 0}),
                        ("neither", {"detect_negative": 0, "detect_positive": 0})):
        add("isinf10_%s" % name, 10, specials + [helper.make_node("IsInf", ["a"], ["y"], **attrs)], X8,
            [("y", TP.BOOL)], special_values)
    # Round before 11 (from 9): ties both ways, the signs of zero results, the specials, the
    # float just below 1/2, an odd integer above 2^23 (whose x + 0.5 rounds) and doubles.
    round_values = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -7.5, -0.3, 0.3, 0.49999997, -0.49999997, 4.5000005,
                    np.nan, np.inf, -np.inf, 8388609.0, -8388611.0, 1e30, 2.0]
    XR = [("x", F, [len(round_values)])]
    offset = [helper.make_node("Mul", ["x", "zero"], ["x0"]), helper.make_node("Add", ["r", "x0"], ["a"])]
    round_inits = [("r", round_values, np.float32), ("zero", 0.0, np.float32)]
    add("round11_specials", 11, offset + [helper.make_node("Round", ["a"], ["y"])], XR, [("y", F)], round_inits,
        excuse="Where, which came with opset 9")
    add("round11_double", 11, offset + [helper.make_node("Cast", ["a"], ["d"], to=TP.DOUBLE),
                                        helper.make_node("Round", ["d"], ["y"])], XR, [("y", TP.DOUBLE)],
        round_inits, excuse="Where, which came with opset 9")
    add("round11_scaled", 11, [helper.make_node("Mul", ["x", "seven"], ["s"]), helper.make_node("Round", ["s"], ["y"])],
        X, [("y", F)], [("seven", 7.0, np.float32)], excuse="Where, which came with opset 9")
    # BitShift before 11: both directions, shifts up to the bit width - 1, operands up to the
    # type's largest value; the types ONNX Runtime's BitShift has (uint16 takes uint8's path).
    for tp, dt, scale in ((TP.UINT8, np.uint8, 255.0), (TP.UINT32, np.uint32, 4.2e9), (TP.UINT64, np.uint64, 1.8e19)):
        width = np.dtype(dt).itemsize * 8
        for direction in ("LEFT", "RIGHT"):
            add("bitshift11_%s_%s" % (np.dtype(dt).name, direction.lower()), 11,
                [helper.make_node("Abs", ["x"], ["xa"]), helper.make_node("Mul", ["xa", "scale"], ["xs"]),
                 helper.make_node("Floor", ["xs"], ["xf"]), helper.make_node("Cast", ["xf"], ["xi"], to=tp),
                 helper.make_node("BitShift", ["xi", "s"], ["y"], direction=direction)],
                X, [("y", tp)], [("scale", scale, np.float32), ("s", [0, 1, 3, width // 2, width - 1], dt)])
    # Integer Mod before 10 (from 9): int8 and uint16 through int32, both signs, both modes.
    for name, tp, dt, fm in (("int8", TP.INT8, np.int8, 0), ("int8_fmod", TP.INT8, np.int8, 1),
                             ("int32", TP.INT32, np.int32, 0), ("uint16", TP.UINT16, np.uint16, 0)):
        signed = dt != np.uint16
        add("mod13_%s" % name, 13, [helper.make_node("Mul", ["x", "hundred"], ["x100"]),
                                    helper.make_node("Floor", ["x100"], ["xf"]),
                                    helper.make_node("Identity" if signed else "Relu", ["xf"], ["xr"]),
                                    helper.make_node("Cast", ["xr"], ["xi"], to=tp),
                                    helper.make_node("Mod", ["xi", "d"], ["y"], fmod=fm)],
            X, [("y", tp)], [("hundred", 100.0, np.float32), ("d", [3, -7, 5, 11, -2] if signed else [3, 7, 5, 11, 2], dt)],
            excuse="Where and integer comparisons, which came with opset 9")
    # GatherElements before 11 (from 9): a OneHot mask; negative int32 indices along the last axis,
    # and bool data (through int32) along axis 1.
    for name, scale, tp, axis, data in (("neg_int32", 5.0, TP.INT32, -1, []),
                                        ("bool_axis1", 3.0, TP.INT64, 1,
                                         [helper.make_node("Greater", ["x", "zero"], ["xb"])])):
        add("gather_elements13_%s" % name, 13, data + [
            helper.make_node("Mul", ["x", "k"], ["xk"]), helper.make_node("Floor", ["xk"], ["xf"]),
            helper.make_node("Cast", ["xf"], ["idx"], to=tp),
            helper.make_node("GatherElements", ["xb" if data else "x", "idx"], ["y"], axis=axis)],
            X, [("y", TP.BOOL if data else F)], [("k", scale, np.float32), ("zero", 0.0, np.float32)],
            excuse="OneHot and Where, which came with opset 9")
    # ConstantOfShape before 9: a Tile of a Constant at 7 (the shape's length known).
    add("constantofshape9_int64", 9, [helper.make_node("Shape", ["x"], ["s"]),
                                      helper.make_node("ConstantOfShape", ["s"], ["y"],
                                                       value=numpy_helper.from_array(np.array([7], dtype=i64)))],
        X, [("y", TP.INT64)])
    # Range before 11: a Loop adding delta, ceil((limit - start) / delta) times; fractional
    # floats, a negative int64 delta, and an empty range (limit below start, delta positive).
    for name, dt, tp, (st, li, de) in (("float", np.float32, F, (0.1, 7.3, 0.35)),
                                       ("int64_down", i64, TP.INT64, (20, -7, -3)),
                                       ("double_empty", np.float64, TP.DOUBLE, (2.0, 1.0, 0.5))):
        add("range11_%s" % name, 11, [helper.make_node("Range", ["st", "li", "de"], ["y"]),
                                      helper.make_node("Identity", ["x"], ["x2"])],
            X8, [("y", tp), ("x2", F)], [("st", st, dt), ("li", li, dt), ("de", de, dt)])
    # CumSum before 11 (from 9): a Scan along the constant axis; exclusive, reverse, int32 in 1-D.
    for name, axis, attrs in (("axis2", 2, {}), ("last_reverse_exclusive", -1, {"exclusive": 1, "reverse": 1}),
                              ("axis0_reverse", 0, {"reverse": 1})):
        add("cumsum11_%s" % name, 11, [helper.make_node("CumSum", ["x", "ax"], ["y"], **attrs)], X, [("y", F)],
            [("ax", axis, i64)])
    add("cumsum11_int32_1d", 11, [helper.make_node("Mul", ["x", "hundred"], ["x100"]),
                                  helper.make_node("Cast", ["x100"], ["xi"], to=TP.INT32),
                                  helper.make_node("CumSum", ["xi", "ax"], ["y"], exclusive=1)], X8, [("y", TP.INT32)],
        [("hundred", 100.0, np.float32), ("ax", [0], np.int32)])
    # Integer Max and Min before 12 (up to 32 bits through doubles, 64 through Where), broadcast.
    hundred = [("hundred", 100.0, np.float32)]
    scaled = [helper.make_node("Mul", ["x", "hundred"], ["x100"]), helper.make_node("Floor", ["x100"], ["xf"])]
    for name, tp, dt in (("int32", TP.INT32, np.int32), ("uint8", TP.UINT8, np.uint8), ("int64", TP.INT64, np.int64)):
        cast = [helper.make_node("Relu", ["xf"], ["xr"]) if dt == np.uint8 else
                helper.make_node("Identity", ["xf"], ["xr"]), helper.make_node("Cast", ["xr"], ["xi"], to=tp)]
        for op in ("Max", "Min"):
            add("%s13_%s" % (op.lower(), name), 13, scaled + cast + [helper.make_node(op, ["xi", "row", "xi"], ["y"])],
                X, [("y", tp)], hundred + [("row", [0, 5, 20, 60, 90], dt)],
                excuse="Where, which opset 7 does not have" if dt == np.int64 else None)
    # ceil_mode before 10, as larger end pads: windows overhanging the end, with and without begin pads.
    add("maxpool12_ceil", 12, [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                                pads=[0, 1, 0, 0], ceil_mode=1)], X, [("y", F)])
    add("averagepool11_ceil", 11, [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 3], strides=[3, 2],
                                                    ceil_mode=1)], X, [("y", F)])
    # An integer base's Pow before 12 (floats only): in double and back; a fractional exponent too.
    for name, tp, dt, e in (("int64", TP.INT64, np.int64, [0, 1, 2, 3, 5]), ("int32_float", TP.INT32, np.float32,
                                                                              [0.0, 1.0, 0.5, 2.0, 3.0])):
        add("pow12_%s" % name, 12, scaled + [helper.make_node("Cast", ["xf"], ["xi"], to=tp),
                                             helper.make_node("Pow", ["xi", "e"], ["y"])],
            X, [("y", tp)], hundred + [("e", e, dt)])
    # Nearest half_pixel Resize with whole scales: the pixels Upsample's x / s floors to.
    add("resize13_nearest_half_pixel", 13, [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest")],
        X, [("y", F)], [("s", [1.0, 1.0, 2.0, 3.0], np.float32)])
    add("resize13_nearest_sizes_ceil", 13, [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="nearest",
                                                             nearest_mode="round_prefer_ceil",
                                                             coordinate_transformation_mode="pytorch_half_pixel")],
        X, [("y", F)], [("sz", [2, 3, 12, 10], i64)])
    # Integer Clip before 12 (floats only): through float or double, constant bounds as constants.
    # (int8 and uint8: ONNX Runtime has Clip-13 kernels for them, and Clip-6/11 for float only.)
    for name, tp, dt, bounds in (("int8", TP.INT8, np.int8, ["lo", "hi"]), ("uint8", TP.UINT8, np.uint8, ["", "hi"])):
        add("clip13_%s" % name, 13, scaled + [helper.make_node("Relu" if dt == np.uint8 else "Identity", ["xf"], ["xr"]),
                                              helper.make_node("Cast", ["xr"], ["xi"], to=tp),
                                              helper.make_node("Clip", ["xi"] + bounds, ["y"])],
            X, [("y", tp)], hundred + [("lo", -30, dt), ("hi", 45, dt)][2 - len([b for b in bounds if b]):])
    # MeanVarianceNormalization before 9 (experimental then), spelled out over other axes.
    add("mvn9_axes", 9, [helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=[1, 3])], X, [("y", F)])
    # The losses before 12, spelled out (GatherElements from 11, a OneHot mask before): int32
    # targets from an ArgMax over the classes, some of them ignored; class weights; log_prob.
    labels = [helper.make_node("Neg", ["x"], ["nx"]), helper.make_node("ArgMax", ["nx"], ["am"], axis=1, keepdims=0),
              helper.make_node("Cast", ["am"], ["lab"], to=TP.INT32)]
    add("sce13_int32_weight_ii", 13, labels + [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "lab", "w"],
                                                                ["y", "lp"], ignore_index=1)],
        X, [("y", F), ("lp", F)], [("w", [0.2, 0.5, 1.5], np.float32)])
    add("nll13_int32_sum_ii", 13, labels + [helper.make_node("NegativeLogLikelihoodLoss", ["x", "lab"], ["y"],
                                                             reduction="sum", ignore_index=2)], X, [("y", F)])
    add("nll13_weight_none", 13, labels + [helper.make_node("NegativeLogLikelihoodLoss", ["x", "lab", "w"], ["y"],
                                                            reduction="none")],
        X, [("y", F)], [("w", [0.2, 0.5, 1.5], np.float32)])
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
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
    dirs = test_dirs(*(os.path.join(args.corpus, k) for k in CORPUS_KINDS))[::max(args.stride, 1)]
    if args.limit:
        dirs = dirs[:args.limit]
    work = tempfile.mkdtemp(prefix="oxir-downgrade-")
    items = []  # (label, path, opset, spec, passes onnx's full check, hand-made: True or its expected refusal)
    for d in dirs:
        try:
            model = onnx.load(os.path.join(d, "model.onnx"))
        except Exception:
            continue
        v = default_opset(model)
        if v is None or v < 8 or v > 17:
            continue
        items.append((os.path.relpath(d, "/"), os.path.join(d, "model.onnx"), v, spec_of(d, model),
                      valid(model, True), False))
    exports = os.path.expanduser("~/.cache/oxir/real-models")
    if os.path.isdir(exports):
        for f in sorted(os.listdir(exports)):
            if not f.endswith(".onnx"):
                continue
            model = onnx.load(os.path.join(exports, f))
            v = default_opset(model)
            if v is None or v < 8 or v > 18:
                continue
            items.append((f, os.path.join(exports, f), v, export_spec(model), v <= 17 and valid(model, True), False))
    for name, path, v, spec, excuse in hand_made(work):
        items.append(("hand-made %s (opset %d)" % (name, v), path, v, spec, valid(onnx.load(path), True),
                      excuse or True))

    st = collections.Counter()
    refusals = collections.Counter()
    failures, jobs = [], []
    for label, path, v, spec, full_ok, hand in items:
        st["hand-made" if hand else "models"] += 1
        for target in TARGETS:
            if target >= v:
                continue
            st["downgrades"] += 1
            out = os.path.join(work, "%d_%d.onnx" % (len(jobs) + st["downgrades"], target))
            where = "%s -> %d" % (label, target)
            r = subprocess.run([args.oxir, "downgrade", path, out, "--opset", str(target)], capture_output=True,
                               text=True)
            if r.returncode != 0:
                st["refused"] += 1
                # A hand-made model may meet an operator or a type its target does not have.
                # (Or a refusal the case names.)
                excused = hand and (re.search(r"does not exist at opset|: at opset \d+, ", r.stderr) or
                                    isinstance(hand, str) and hand in r.stderr)
                if r.returncode != 1 or not r.stderr.strip() or hand and not excused:
                    failures.append("%s: oxir refused: %s" % (where, r.stderr.strip()[:300]))
                # The reason without the path, names and numbers, to count.
                reason = re.sub(r"'[^']*'", "'…'", re.split(r"\]: ", r.stderr.strip())[-1])
                refusals[re.sub(r"\d+", "N", reason)[:90]] += 1
                continue
            st["converted"] += 1
            if full_ok and not valid(onnx.load(out), True):
                failures.append("%s: the downgraded model fails onnx's full check" % where)
                continue
            st["checked"] += full_ok
            if spec is None:
                st["no_feed"] += 1
                continue
            jobs.append({"a": path, "b": out, "spec": spec, "where": where, "rel": 1e-6, "abs": 1e-6, "hand": hand})
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
        if res["verdict"] in ("SAME", "CLOSE"):
            st[res["verdict"].lower()] += 1
            if res["verdict"] == "CLOSE" and os.environ.get("OXIR_VERBOSE"):
                print("close: %s: %s" % (job["where"], res["detail"][:300]))
        elif not job["hand"] and first_did_not_run(res):
            st["not_run"] += 1  # ONNX Runtime cannot run the model before the downgrade
        elif "b: Could not find an implementation for" in res["detail"]:
            st["no_kernel"] += 1  # ONNX Runtime has no kernel of that older version for that type
            if os.environ.get("OXIR_VERBOSE"):
                print("no kernel: %s: %s" % (job["where"], res["detail"][:300]))
        else:
            failures.append("%s: %s: %s" % (job["where"], res["verdict"], res["detail"][:300]))
    print("downgrade_opset on %d models and %d hand-made ones: %d downgrades to opsets %s; %d converted, %d refused;"
          % (st["models"], st["hand-made"], st["downgrades"], "/".join(map(str, TARGETS)), st["converted"],
             st["refused"]))
    print("  %d converted models pass onnx's full check; ONNX Runtime outputs before and after bit-identical: %d,"
          " within 1e-6: %d (not run: %d the runtime cannot run before; %d it has no kernel of the older version for;"
          " %d without inputs to feed)" % (st["checked"], st["same"], st["close"], st["not_run"], st["no_kernel"],
                                           st["no_feed"]))
    print("  refusals by reason: %s" % json.dumps(dict(refusals.most_common(40)), ensure_ascii=False))
    for f in failures[:40]:
        print("FAIL:", f)
    if len(failures) > 40:
        print("... and %d more failures" % (len(failures) - 40))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
