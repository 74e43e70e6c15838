#!/usr/bin/python3
"""Writes small single-operator ONNX models exercising operator versions of opset 18 and newer
(and other rules so far checked only by unit tests written from the spec), for comparing oxir's
shape inference with ONNX Runtime (verify_newops.py).

Run with Debian's interpreter (onnx 1.12 + numpy; only onnx.helper is used, never the checker,
which does not know the newer operator versions):

    /usr/bin/python3 tests/infer/newops/gen_models.py OUT_DIR

Writes OUT_DIR/<case>.onnx and OUT_DIR/cases.json: [{"name", "model", "bindings": [{dim_param:
size}], "fills": {input: run_ort spec extras}}], in order. Constant inputs (axes, pads, sizes,
scales, K, block shapes...) are initializers so that inference can determine shapes; data inputs
have dim_params wherever their sizes are free.

Left out because ONNX Runtime 1.30 (npm onnxruntime-node) cannot run them (checked 2026-11-24):
  - graph outputs of type int4/uint4 (the node binding aborts the process) and float8/bfloat16
    ("Unsupported data type"): those casts and quantizations are cast back to float instead;
  - Cast to float4e2m1 (no Cast-23 kernel), ImageDecoder (no kernel);
  - GlobalLpPool, MaxRoiPool, RoiAlign, RandomNormalLike, RandomUniform(Like), Multinomial at opset 22
    (no kernel; tested at their older versions);
  - StringNormalizer (the kernel needs the en_US.UTF-8 locale), LSTM with layout=1;
  - Split-18 num_outputs=4 of 6 (chunks 2,2,2,0: ORT rejects the empty last chunk), pools whose
    padding is not smaller than the kernel, Einsum broadcasting 1 against a larger ellipsis dim
    (ORT's load-time check).
"""

import json
import os
import sys

import numpy as np
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

# ONNX elem types newer than onnx 1.12's TensorProto enum.
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, UINT4, INT4, FLOAT4E2M1 = 17, 18, 19, 20, 21, 22, 23

# Default sizes for the dim_params, one per binding (3 bindings; odd sizes among them).
DEFAULT_SIZES = {
    "N": [1, 2, 3], "C": [3, 2, 5], "H": [5, 8, 7], "W": [7, 4, 9], "D": [3, 4, 5], "L": [6, 11, 4],
    "S": [3, 5, 2], "B": [2, 1, 3], "T": [4, 7, 5], "K": [2, 3, 4], "M": [4, 6, 5],
}

CASES = []


def vi(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def case(name, opset, nodes, inputs, outputs, inits=None, fills=None, sizes=None, domains=None, ir=None,
         note=None):
    """inputs: [(name, elem, dims)]; outputs: [names]; inits: {name: np.array}; fills: run_ort extras
    per input; sizes: dim_param -> [size per binding] overriding DEFAULT_SIZES."""
    if not isinstance(nodes, list):
        nodes = [nodes]
    inits = inits or {}
    g = helper.make_graph(
        nodes, name,
        [vi(n, e, d) for n, e, d in inputs],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    imports = [helper.make_opsetid("", opset)]
    for dom, ver in (domains or {}).items():
        imports.append(helper.make_opsetid(dom, ver))
    m = helper.make_model(g, opset_imports=imports, producer_name="oxir-newops")
    m.ir_version = ir or (11 if opset >= 23 else 10)
    params = []
    for _, _, dims in inputs:
        for d in dims or []:
            if isinstance(d, str) and d not in params:
                params.append(d)
    sz = dict(DEFAULT_SIZES)
    sz.update(sizes or {})
    bindings = [{p: sz[p][i] for p in params} for i in range(3)] if params else [{}]
    CASES.append({"name": name, "model": m, "bindings": bindings, "fills": fills or {}, "note": note})


def I64(*v):
    return np.array(v, dtype=np.int64)


def F32(*v):
    return np.array(v, dtype=np.float32)


N = helper.make_node
F, I, BOOL, STR = TP.FLOAT, TP.INT64, TP.BOOL, TP.STRING
X4 = [("X", F, ["N", 4, "H", "W"])]


# ---- Reductions with axes as an input (opset 18; ReduceSum since 13) -----------------------------

for op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]:
    case(f"{op}18_axes_keep", 18, N(op, ["X", "axes"], ["Y"], keepdims=1), X4, ["Y"], {"axes": I64(1, -1)})
    case(f"{op}18_axes_nokeep", 18, N(op, ["X", "axes"], ["Y"], keepdims=0), X4, ["Y"], {"axes": I64(-2)})
case("ReduceMax18_noaxes_all", 18, N("ReduceMax", ["X"], ["Y"]), X4, ["Y"])
case("ReduceMax18_noaxes_nokeep", 18, N("ReduceMax", ["X"], ["Y"], keepdims=0), X4, ["Y"])
case("ReduceSum18_empty_axes_noop", 18, N("ReduceSum", ["X", "axes"], ["Y"], noop_with_empty_axes=1), X4, ["Y"],
     {"axes": np.zeros([0], np.int64)})
case("ReduceMean18_empty_axes_all", 18, N("ReduceMean", ["X", "axes"], ["Y"], keepdims=0), X4, ["Y"],
     {"axes": np.zeros([0], np.int64)})
case("ReduceProd18_noaxes_noop", 18, N("ReduceProd", ["X"], ["Y"], noop_with_empty_axes=1), X4, ["Y"])
case("ReduceSum13_axes", 13, N("ReduceSum", ["X", "axes"], ["Y"], keepdims=0), X4, ["Y"], {"axes": I64(0, 3)})
case("ReduceMax18_axes_dynamic_keep", 18, N("ReduceMax", ["X", "axes"], ["Y"]),
     X4 + [("axes", I, [1])], ["Y"], fills={"axes": {"value": [2]}})
case("ReduceMax20_bool", 20, N("ReduceMax", ["X", "axes"], ["Y"], keepdims=0),
     [("X", BOOL, ["N", "L"])], ["Y"], {"axes": I64(1)})
case("ReduceMin20_bool_keep", 20, N("ReduceMin", ["X", "axes"], ["Y"]),
     [("X", BOOL, ["N", "L"])], ["Y"], {"axes": I64(0)})
case("ArgMax13_keep_last", 13, N("ArgMax", ["X"], ["Y"], axis=-1, select_last_index=1), X4, ["Y"])
case("ArgMin13_nokeep", 13, N("ArgMin", ["X"], ["Y"], axis=2, keepdims=0), X4, ["Y"])

# ---- Split (18: num_outputs) ---------------------------------------------------------------------

case("Split18_num_outputs_uneven", 18, N("Split", ["X"], ["A", "B", "C"], axis=1, num_outputs=3),
     [("X", F, ["N", 7, "W"])], ["A", "B", "C"])
case("Split18_num_outputs_even", 18, N("Split", ["X"], ["A", "B"], axis=-1, num_outputs=2),
     [("X", F, ["N", 3, 8])], ["A", "B"])
case("Split18_num_outputs_sym", 18, N("Split", ["X"], ["A", "B"], axis=1, num_outputs=2),
     [("X", F, ["N", "H"])], ["A", "B"])
case("Split18_split_input", 18, N("Split", ["X", "split"], ["A", "B", "C"], axis=1),
     [("X", F, ["N", 9, "W"])], ["A", "B", "C"], {"split": I64(2, 3, 4)})
case("Split13_default_equal", 13, N("Split", ["X"], ["A", "B", "C"], axis=2),
     [("X", F, ["N", 2, 12])], ["A", "B", "C"])
# Sizes from data: the parts' sizes are open, but concatenating them gives the axis back, and
# sizes [2, m, 2] leave m = H-4 (H is 7 at every binding: the fill is fixed).
case("Split13_sizes_from_data_concat", 13,
     [N("Split", ["X", "sp"], ["A", "B"], axis=1), N("Concat", ["A", "B"], ["Y"], axis=1)],
     [("X", F, ["N", "H"]), ("sp", I, [2])], ["A", "B", "Y"], fills={"sp": {"value": [3, 4]}},
     sizes={"H": [7, 7, 7]})
case("Split13_sizes_partly_known", 13,
     [N("Concat", ["two", "m", "two"], ["sp"], axis=0), N("Split", ["X", "sp"], ["A", "B", "C"], axis=1)],
     [("X", F, ["N", "H"]), ("m", I, [1])], ["A", "B", "C"], {"two": I64(2)}, fills={"m": {"value": [3]}},
     sizes={"H": [7, 7, 7]})

# ---- operands that decide alone (an integer times 0, And with false, Or with true, Where with a
# known condition) when the other operand holds data, a graph input whose contents are unknown ------

case("Mul14_data_times_zero_reshape", 14,
     [N("Shape", ["X"], ["s"]), N("Mul", ["m", "zero"], ["z"]), N("Add", ["z", "s"], ["t"]),
      N("Reshape", ["X2", "t"], ["Y"])],
     [("X", F, ["N", "H"]), ("X2", F, ["H", "N"]), ("m", I, [2])], ["Y"], {"zero": I64(0)},
     fills={"m": {"int_range": [-5, 5]}})
_TGT = [N("Shape", ["X"], ["s"]), N("Slice", ["s", "zero1", "one1"], ["n"]), N("Concat", ["n", "five"], ["tgt"], axis=0)]
_TGT_INITS = {"zero1": I64(0), "one1": I64(1), "five": I64(5)}
case("Where16_known_condition_data_branch", 16,
     _TGT + [N("Where", ["pick", "m", "tgt"], ["t"]), N("Expand", ["X", "t"], ["Y"])],
     [("X", F, ["N", 1]), ("m", I, [2])], ["Y"], {**_TGT_INITS, "pick": np.array([False, False])},
     fills={"m": {"int_range": [1, 3]}})
case("And7_data_and_false_picks", 16,
     _TGT + [N("And", ["c", "no"], ["w"]), N("Where", ["w", "m", "tgt"], ["t"]), N("Expand", ["X", "t"], ["Y"])],
     [("X", F, ["N", 1]), ("m", I, [2]), ("c", BOOL, [2])], ["Y"], {**_TGT_INITS, "no": np.array([False, False])},
     fills={"m": {"int_range": [1, 3]}})
case("Or7_data_or_true_picks", 16,
     _TGT + [N("Or", ["yes", "c"], ["w"]), N("Where", ["w", "tgt", "m"], ["t"]), N("Expand", ["X", "t"], ["Y"])],
     [("X", F, ["N", 1]), ("m", I, [2]), ("c", BOOL, [2])], ["Y"], {**_TGT_INITS, "yes": np.array([True, True])},
     fills={"m": {"int_range": [1, 3]}})

# ---- Pad (18: axes input; 19: wrap) ----------------------------------------------------------------

case("Pad18_axes", 18, N("Pad", ["X", "pads", "", "axes"], ["Y"]), X4, ["Y"],
     {"pads": I64(1, 2, 3, 0), "axes": I64(1, 3)})
case("Pad18_axes_neg", 18, N("Pad", ["X", "pads", "cv", "axes"], ["Y"], mode="constant"), X4, ["Y"],
     {"pads": I64(2, 1), "axes": I64(-2), "cv": F32(1.5)})
case("Pad18_reflect_all", 18, N("Pad", ["X", "pads"], ["Y"], mode="reflect"), X4, ["Y"],
     {"pads": I64(0, 0, 1, 2, 0, 0, 2, 1)}, sizes={"H": [5, 8, 7], "W": [7, 4, 9]})
case("Pad19_wrap", 19, N("Pad", ["X", "pads", "", "axes"], ["Y"], mode="wrap"), X4, ["Y"],
     {"pads": I64(1, 1), "axes": I64(3)})
case("Pad18_edge_negative", 18, N("Pad", ["X", "pads", "", "axes"], ["Y"], mode="edge"), X4, ["Y"],
     {"pads": I64(-1, 2), "axes": I64(2)})
case("Pad13_pads_dynamic", 13, N("Pad", ["X", "pads"], ["Y"]), [("X", F, ["N", "L"]), ("pads", I, [4])], ["Y"],
     fills={"pads": {"value": [0, 1, 0, 2]}})

# ---- Resize (18/19) --------------------------------------------------------------------------------

case("Resize18_scales", 18, N("Resize", ["X", "", "scales"], ["Y"], mode="nearest"), X4, ["Y"],
     {"scales": F32(1, 1, 2, 0.5)})
case("Resize18_scales_odd", 18, N("Resize", ["X", "", "scales"], ["Y"], mode="linear"), X4, ["Y"],
     {"scales": F32(1, 1, 1.5, 0.7)})
case("Resize18_sizes_axes", 18, N("Resize", ["X", "", "", "sizes"], ["Y"], axes=[2, 3], mode="linear"), X4, ["Y"],
     {"sizes": I64(6, 10)})
case("Resize18_scales_axes", 18, N("Resize", ["X", "", "scales"], ["Y"], axes=[-1], mode="cubic"), X4, ["Y"],
     {"scales": F32(2.5)})
case("Resize18_antialias", 18, N("Resize", ["X", "", "scales"], ["Y"], mode="linear", antialias=1), X4, ["Y"],
     {"scales": F32(1, 1, 0.5, 0.5)})
case("Resize18_keep_aspect_not_larger", 18,
     N("Resize", ["X", "", "", "sizes"], ["Y"], axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
     [("X", F, ["N", 3, 10, 20])], ["Y"], {"sizes": I64(7, 7)})
case("Resize18_keep_aspect_not_smaller", 18,
     N("Resize", ["X", "", "", "sizes"], ["Y"], keep_aspect_ratio_policy="not_smaller"),
     [("X", F, ["N", 3, 10, 20])], ["Y"], {"sizes": I64(1, 3, 7, 7)})
case("Resize18_keep_aspect_sym", 18,
     N("Resize", ["X", "", "", "sizes"], ["Y"], axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
     X4, ["Y"], {"sizes": I64(6, 6)})
case("Resize19_half_pixel_symmetric", 19,
     N("Resize", ["X", "", "scales"], ["Y"], mode="linear", coordinate_transformation_mode="half_pixel_symmetric"),
     X4, ["Y"], {"scales": F32(1, 1, 1.3, 2)})
case("Resize13_roi_tf_crop", 13,
     N("Resize", ["X", "roi", "", "sizes"], ["Y"], coordinate_transformation_mode="tf_crop_and_resize",
       mode="linear"), X4, ["Y"], {"roi": F32(0, 0, 0.1, 0.1, 1, 1, 0.9, 0.9), "sizes": I64(1, 4, 3, 3)},
     sizes={"N": [1, 1, 1]})

# ---- CenterCropPad, Col2Im (18) --------------------------------------------------------------------

case("CenterCropPad18", 18, N("CenterCropPad", ["X", "shape"], ["Y"]), [("X", F, ["H", "W", 3])], ["Y"],
     {"shape": I64(6, 5, 3)})
case("CenterCropPad18_axes", 18, N("CenterCropPad", ["X", "shape"], ["Y"], axes=[0, 1]),
     [("X", F, ["H", "W", 3])], ["Y"], {"shape": I64(4, 8)})
case("CenterCropPad18_axes_neg", 18, N("CenterCropPad", ["X", "shape"], ["Y"], axes=[-2]),
     [("X", F, ["N", "H", "W"])], ["Y"], {"shape": I64(3)})
case("Col2Im18", 18, N("Col2Im", ["X", "image_shape", "block_shape"], ["Y"]),
     [("X", F, ["N", 12, 20])], ["Y"], {"image_shape": I64(5, 6), "block_shape": I64(2, 2)})
case("Col2Im18_strides_pads", 18,
     N("Col2Im", ["X", "image_shape", "block_shape"], ["Y"], strides=[2, 2], pads=[1, 1, 1, 1], dilations=[1, 1]),
     [("X", F, ["N", 18, 12])], ["Y"], {"image_shape": I64(5, 7), "block_shape": I64(3, 3)})

# ---- Normalizations ------------------------------------------------------------------------------

case("GroupNormalization18", 18, N("GroupNormalization", ["X", "s", "b"], ["Y"], num_groups=2), X4, ["Y"],
     {"s": F32(1, 1), "b": F32(0, 0)})
case("GroupNormalization21", 21, N("GroupNormalization", ["X", "s", "b"], ["Y"], num_groups=2), X4, ["Y"],
     {"s": F32(1, 1, 1, 1), "b": F32(0, 0, 0, 0)})
case("LayerNormalization17_outputs", 17, N("LayerNormalization", ["X", "s", "b"], ["Y", "Mean", "InvStd"], axis=2),
     X4, ["Y", "Mean", "InvStd"], {"s": np.ones([1, 1], np.float32), "b": np.zeros([1, 1], np.float32)},
     sizes={"H": [5, 8, 7], "W": [1, 1, 1]})
case("LayerNormalization17_neg_axis", 17, N("LayerNormalization", ["X", "s"], ["Y", "Mean"], axis=-1),
     [("X", F, ["N", "L", 6])], ["Y", "Mean"], {"s": np.ones([6], np.float32)})
case("RMSNormalization23", 23, N("RMSNormalization", ["X", "s"], ["Y"], axis=-1),
     [("X", F, ["N", "L", 6])], ["Y"], {"s": np.ones([6], np.float32)})
case("InstanceNormalization22", 22, N("InstanceNormalization", ["X", "s", "b"], ["Y"]), X4, ["Y"],
     {"s": np.ones([4], np.float32), "b": np.zeros([4], np.float32)})
case("MeanVarianceNormalization13", 13, N("MeanVarianceNormalization", ["X"], ["Y"]), X4, ["Y"])
case("LpNormalization22", 22, N("LpNormalization", ["X"], ["Y"], axis=1), X4, ["Y"])
case("LRN13", 13, N("LRN", ["X"], ["Y"], size=3), X4, ["Y"])

# ---- Scatter with reduction max/min (18) -----------------------------------------------------------

case("ScatterElements18_max", 18, N("ScatterElements", ["X", "idx", "u"], ["Y"], axis=1, reduction="max"),
     [("X", F, ["N", 5]), ("idx", I, ["N", 2]), ("u", F, ["N", 2])], ["Y"], fills={"idx": {"int_range": [0, 5]}})
case("ScatterElements18_min", 18, N("ScatterElements", ["X", "idx", "u"], ["Y"], axis=0, reduction="min"),
     [("X", F, [4, "W"]), ("idx", I, [2, "W"]), ("u", F, [2, "W"])], ["Y"], fills={"idx": {"int_range": [0, 4]}})
case("ScatterND18_max", 18, N("ScatterND", ["X", "idx", "u"], ["Y"], reduction="max"),
     [("X", F, [4, "W"]), ("idx", I, [3, 1]), ("u", F, [3, "W"])], ["Y"], fills={"idx": {"value": [0, 2, 3]}})
case("ScatterND18_min", 18, N("ScatterND", ["X", "idx", "u"], ["Y"], reduction="min"),
     [("X", F, [4, 5, "W"]), ("idx", I, [2, 2]), ("u", F, [2, "W"])], ["Y"], fills={"idx": {"value": [0, 1, 3, 4]}})
case("GatherND13_batch_dims", 13, N("GatherND", ["X", "idx"], ["Y"], batch_dims=1),
     [("X", F, ["N", 4, 5]), ("idx", I, ["N", 3, 1])], ["Y"], fills={"idx": {"int_range": [0, 4]}})
case("GatherElements13", 13, N("GatherElements", ["X", "idx"], ["Y"], axis=1),
     [("X", F, ["N", 5]), ("idx", I, ["N", "K"])], ["Y"], fills={"idx": {"int_range": [0, 5]}})
case("Gather13_scalar_idx", 13, N("Gather", ["X", "i"], ["Y"], axis=1), X4, ["Y"], {"i": np.array(2, np.int64)})
case("Gather13_2d_idx", 13, N("Gather", ["X", "i"], ["Y"], axis=-1),
     [("X", F, ["N", 4, 5]), ("i", I, [2, "K"])], ["Y"], fills={"i": {"int_range": [0, 5]}})

# ---- Bitwise (18), Mish (18), Gelu (20), other unary/binary ------------------------------------------

for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
    case(f"{op}18_bcast", 18, N(op, ["A", "B"], ["Y"]), [("A", TP.INT32, ["N", 1, "W"]), ("B", TP.INT32, [3, 1])],
         ["Y"])
case("BitwiseNot18_u8", 18, N("BitwiseNot", ["A"], ["Y"]), [("A", TP.UINT8, ["N", "W"])], ["Y"])
case("Mish18", 18, N("Mish", ["X"], ["Y"]), X4, ["Y"])
case("Gelu20", 20, N("Gelu", ["X"], ["Y"]), X4, ["Y"])
case("Gelu20_tanh", 20, N("Gelu", ["X"], ["Y"], approximate="tanh"), [("X", F, ["N", "L"])], ["Y"])
case("IsNaN20", 20, N("IsNaN", ["X"], ["Y"]), X4, ["Y"])
case("IsInf20", 20, N("IsInf", ["X"], ["Y"], detect_negative=0), X4, ["Y"])
case("Swish24", 24, N("Swish", ["X"], ["Y"], alpha=1.5), X4, ["Y"])
case("HardSwish22", 22, N("HardSwish", ["X"], ["Y"]), X4, ["Y"])
case("Where16_bcast", 16, N("Where", ["c", "A", "B"], ["Y"]),
     [("c", BOOL, ["N", 1, "W"]), ("A", F, [1, 3, 1]), ("B", F, ["W"])], ["Y"])
case("Mod13_fmod", 13, N("Mod", ["A", "B"], ["Y"], fmod=1), [("A", F, ["N", "W"]), ("B", F, [1])], ["Y"])
case("PRelu16_bcast", 16, N("PRelu", ["X", "s"], ["Y"]), X4, ["Y"], {"s": np.ones([4, 1, 1], np.float32)})
case("Sum13_variadic", 13, N("Sum", ["A", "B", "C"], ["Y"]),
     [("A", F, ["N", 1]), ("B", F, [1, "W"]), ("C", F, ["W"])], ["Y"])
case("Max13_variadic", 13, N("Max", ["A", "B"], ["Y"]), [("A", TP.INT32, ["N", 1]), ("B", TP.INT32, ["W"])], ["Y"])
case("BitShift11", 11, N("BitShift", ["A", "B"], ["Y"], direction="LEFT"),
     [("A", TP.UINT32, ["N", "W"]), ("B", TP.UINT32, [1])], ["Y"], fills={"B": {"value": [1]}})

# ---- Pools, convolutions (18-22) -------------------------------------------------------------------

case("LpPool18_ceil", 18, N("LpPool", ["X"], ["Y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), X4, ["Y"])
case("LpPool18_dilations_pads", 18,
     N("LpPool", ["X"], ["Y"], kernel_shape=[2, 3], dilations=[2, 1], pads=[1, 0, 1, 2], p=3), X4, ["Y"],
     sizes={"H": [5, 8, 7], "W": [7, 4, 9]})
case("LpPool18_same_upper", 18, N("LpPool", ["X"], ["Y"], kernel_shape=[3, 2], strides=[2, 3], auto_pad="SAME_UPPER"),
     X4, ["Y"])
case("AveragePool19_dilations", 19, N("AveragePool", ["X"], ["Y"], kernel_shape=[2, 2], dilations=[2, 2]), X4, ["Y"])
case("AveragePool22_ceil_pads", 22,
     N("AveragePool", ["X"], ["Y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
       count_include_pad=1), X4, ["Y"])
case("MaxPool22_ceil_dil_idx", 22,
     N("MaxPool", ["X"], ["Y", "I"], kernel_shape=[2, 3], strides=[2, 2], dilations=[1, 2], ceil_mode=1), X4,
     ["Y", "I"], sizes={"H": [5, 8, 7], "W": [7, 6, 9]})
case("MaxPool22_same_lower", 22, N("MaxPool", ["X"], ["Y"], kernel_shape=[3, 3], strides=[2, 2],
                                   auto_pad="SAME_LOWER"), X4, ["Y"])
case("MaxPool12_1d_int8", 12, N("MaxPool", ["X"], ["Y"], kernel_shape=[3], strides=[2]),
     [("X", TP.INT8, ["N", 2, "L"])], ["Y"])
case("GlobalLpPool2", 2, N("GlobalLpPool", ["X"], ["Y"]), X4, ["Y"])
case("Conv22_same_upper", 22, N("Conv", ["X", "w"], ["Y"], auto_pad="SAME_UPPER", strides=[2, 3]), X4, ["Y"],
     {"w": np.ones([6, 4, 3, 3], np.float32)})
case("Conv22_group_dil", 22, N("Conv", ["X", "w", "b"], ["Y"], group=2, dilations=[2, 1], pads=[1, 1, 0, 2]),
     X4, ["Y"], {"w": np.ones([6, 2, 2, 3], np.float32), "b": np.zeros([6], np.float32)})
case("ConvTranspose22_outpad", 22,
     N("ConvTranspose", ["X", "w"], ["Y"], strides=[2, 3], output_padding=[1, 2], pads=[1, 0, 0, 1]), X4, ["Y"],
     {"w": np.ones([4, 2, 3, 3], np.float32)})
case("ConvTranspose22_output_shape", 22,
     N("ConvTranspose", ["X", "w"], ["Y"], strides=[2, 2], output_shape=[10, 9]),
     [("X", F, ["N", 4, 5, 4])], ["Y"], {"w": np.ones([4, 3, 3, 3], np.float32)})
case("ConvTranspose22_same_upper", 22,
     N("ConvTranspose", ["X", "w"], ["Y"], strides=[2, 2], auto_pad="SAME_UPPER", group=2), X4, ["Y"],
     {"w": np.ones([4, 1, 3, 3], np.float32)})
case("DeformConv22", 22, N("DeformConv", ["X", "w", "off"], ["Y"], pads=[1, 1, 1, 1]),
     [("X", F, ["N", 4, 5, 6]), ("off", F, ["N", 18, 5, 6])], ["Y"], {"w": np.ones([2, 4, 3, 3], np.float32)})
case("ConvInteger10", 10, N("ConvInteger", ["X", "w"], ["Y"], strides=[2, 2]), [("X", TP.UINT8, ["N", 4, "H", "W"])],
     ["Y"], {"w": np.ones([3, 4, 2, 2], np.uint8)})
case("QLinearConv10", 10, N("QLinearConv", ["X", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["Y"], pads=[1, 1, 1, 1]),
     [("X", TP.UINT8, ["N", 4, "H", "W"])], ["Y"],
     {"xs": F32(0.1), "xz": np.array(0, np.uint8), "w": np.ones([3, 4, 3, 3], np.uint8), "ws": F32(0.1),
      "wz": np.array(0, np.uint8), "ys": F32(0.2), "yz": np.array(0, np.uint8)})
case("MaxRoiPool1", 1, N("MaxRoiPool", ["X", "rois"], ["Y"], pooled_shape=[2, 3]), X4 + [("rois", F, ["K", 5])],
     ["Y"], fills={"rois": {"value": [0, 0, 0, 2, 2]}}, sizes={"N": [1, 1, 1]})
case("RoiAlign16", 16, N("RoiAlign", ["X", "rois", "bi"], ["Y"], output_height=3, output_width=2),
     X4 + [("rois", F, ["K", 4]), ("bi", I, ["K"])], ["Y"], fills={"rois": {"value": [0, 0, 2, 2]},
                                                                  "bi": {"value": [0]}})

# ---- AffineGrid, GridSample (20/22) ---------------------------------------------------------------

case("AffineGrid20_2d", 20, N("AffineGrid", ["theta", "size"], ["G"], align_corners=1), [("theta", F, [2, 2, 3])],
     ["G"], {"size": I64(2, 3, 5, 7)})
case("AffineGrid20_3d", 20, N("AffineGrid", ["theta", "size"], ["G"]), [("theta", F, [1, 3, 4])], ["G"],
     {"size": I64(1, 2, 4, 5, 6)})
case("GridSample20_4d", 20, N("GridSample", ["X", "grid"], ["Y"], mode="linear"),
     X4 + [("grid", F, ["N", "S", "T", 2])], ["Y"])
case("GridSample22_5d", 22, N("GridSample", ["X", "grid"], ["Y"], mode="nearest", padding_mode="border"),
     [("X", F, ["N", 2, "D", "H", "W"]), ("grid", F, ["N", "S", "T", "K", 3])], ["Y"])
case("GridSample16_4d_bicubic", 16, N("GridSample", ["X", "grid"], ["Y"], mode="bicubic"),
     X4 + [("grid", F, ["N", "S", "T", 2])], ["Y"])

# ---- DFT (20), STFT and windows (17) ---------------------------------------------------------------

case("DFT20_default", 20, N("DFT", ["X"], ["Y"]), [("X", F, ["N", "L", 1])], ["Y"])
case("DFT20_axis_input_onesided", 20, N("DFT", ["X", "", "axis"], ["Y"], onesided=1), [("X", F, ["N", 7, "W", 1])],
     ["Y"], {"axis": np.array(1, np.int64)})
case("DFT20_dft_length", 20, N("DFT", ["X", "len", "axis"], ["Y"]), [("X", F, ["N", "L", 2])], ["Y"],
     {"len": np.array(8, np.int64), "axis": np.array(-2, np.int64)})
case("DFT20_inverse_len_onesided", 20, N("DFT", ["X", "len"], ["Y"], onesided=1), [("X", F, ["N", "L", 1])], ["Y"],
     {"len": np.array(9, np.int64)})
case("DFT17_axis_attr", 17, N("DFT", ["X"], ["Y"], axis=2, onesided=1), [("X", F, ["N", 3, "L", 1])], ["Y"])
case("STFT17", 17, N("STFT", ["X", "step", "win"], ["Y"], onesided=1), [("X", F, ["N", "L", 1])], ["Y"],
     {"step": np.array(2, np.int64), "win": np.ones([4], np.float32)}, sizes={"L": [8, 11, 16]})
case("STFT17_frame_length", 17, N("STFT", ["X", "step", "", "fl"], ["Y"]), [("X", F, ["N", "L", 1])], ["Y"],
     {"step": np.array(3, np.int64), "fl": np.array(5, np.int64)}, sizes={"L": [8, 11, 16]})
for op in ["HannWindow", "HammingWindow", "BlackmanWindow"]:
    case(f"{op}17", 17, N(op, ["size"], ["Y"], output_datatype=TP.DOUBLE), [], ["Y"], {"size": np.array(10, np.int64)})
case("MelWeightMatrix17", 17, N("MelWeightMatrix", ["nm", "dl", "sr", "lo", "hi"], ["Y"]), [], ["Y"],
     {"nm": np.array(8, np.int64), "dl": np.array(16, np.int64), "sr": np.array(8000, np.int64),
      "lo": np.array(0, np.float32), "hi": np.array(4000, np.float32)})

# ---- Optional on tensors (18) ------------------------------------------------------------------------

case("OptionalHasElement18_tensor", 18, N("OptionalHasElement", ["X"], ["Y"]), X4, ["Y"])
case("OptionalGetElement18_tensor", 18, N("OptionalGetElement", ["X"], ["Y"]), X4, ["Y"])
case("Optional_roundtrip", 18, [N("Optional", ["X"], ["o"]), N("OptionalGetElement", ["o"], ["Y"]),
                               N("OptionalHasElement", ["o"], ["Z"])], X4, ["Y", "Z"])

# ---- Strings (20) ------------------------------------------------------------------------------------

case("StringSplit20", 20, N("StringSplit", ["X"], ["Y", "Z"], delimiter=","), [("X", STR, ["N", "W"])], ["Y", "Z"],
     fills={"X": {"value": ["a,b", "c", "d,e,f"]}})
case("StringSplit20_maxsplit", 20, N("StringSplit", ["X"], ["Y", "Z"], maxsplit=1), [("X", STR, ["N"])], ["Y", "Z"],
     fills={"X": {"value": ["a b c", "d"]}})
case("RegexFullMatch20", 20, N("RegexFullMatch", ["X"], ["Y"], pattern="a.*"), [("X", STR, ["N", "W"])], ["Y"],
     fills={"X": {"value": ["abc", "b"]}})
case("StringConcat20", 20, N("StringConcat", ["A", "B"], ["Y"]), [("A", STR, ["N", 1]), ("B", STR, ["W"])], ["Y"],
     fills={"A": {"value": ["x"]}, "B": {"value": ["y", "z"]}})
case("Equal19_string", 19, N("Equal", ["A", "B"], ["Y"]), [("A", STR, ["N", "W"]), ("B", STR, ["W"])], ["Y"],
     fills={"A": {"value": ["x"]}, "B": {"value": ["x", "y"]}})

# ---- Quantization (19/21), casts to float8 / int4 ------------------------------------------------------

case("QuantizeLinear21_axis", 21, N("QuantizeLinear", ["X", "s", "z"], ["Y"], axis=1), X4, ["Y"],
     {"s": F32(0.1, 0.2, 0.3, 0.4), "z": np.zeros([4], np.int8)})
case("QuantizeLinear21_block", 21, N("QuantizeLinear", ["X", "s"], ["Y"], axis=1, block_size=2),
     [("X", F, ["N", 6])], ["Y"], {"s": np.full([1, 3], 0.1, np.float32)}, sizes={"N": [1, 1, 1]})
case("QuantizeLinear21_output_dtype", 21, N("QuantizeLinear", ["X", "s"], ["Y"], output_dtype=TP.INT8), X4, ["Y"],
     {"s": F32(0.5)})
case("QuantizeLinear21_uint16", 21, N("QuantizeLinear", ["X", "s", "z"], ["Y"]), X4, ["Y"],
     {"s": F32(0.5), "z": np.array(3, np.uint16)})
# (onnxruntime-node cannot return int4/uint4 outputs: its binding aborts the process; so such
# values are converted back before they leave the graph.)
case("QuantizeLinear21_int4_roundtrip", 21,
     [N("QuantizeLinear", ["X", "s"], ["q"], output_dtype=INT4), N("DequantizeLinear", ["q", "s"], ["Y"])], X4, ["Y"],
     {"s": F32(0.5)})
case("QuantizeLinear19_float8", 19, N("QuantizeLinear", ["X", "s"], ["Y"]), X4, ["Y"], {"s": F32(0.5)},
     note="zero point absent: uint8 output")
case("DequantizeLinear21_axis", 21, N("DequantizeLinear", ["X", "s", "z"], ["Y"], axis=-3),
     [("X", TP.INT8, ["N", 4, "H", "W"])], ["Y"], {"s": F32(0.1, 0.2, 0.3, 0.4), "z": np.zeros([4], np.int8)})
case("DequantizeLinear21_block", 21, N("DequantizeLinear", ["X", "s", "z"], ["Y"], axis=0, block_size=2),
     [("X", TP.UINT8, [4, "W"])], ["Y"], {"s": np.full([2, 1], 0.1, np.float32), "z": np.zeros([2, 1], np.uint8)},
     sizes={"W": [1, 1, 1]})
case("DequantizeLinear21_int32", 21, N("DequantizeLinear", ["X", "s"], ["Y"]), [("X", TP.INT32, ["N", "W"])], ["Y"],
     {"s": F32(0.5)})
case("DequantizeLinear19_fp16_scale", 19, N("DequantizeLinear", ["X", "s"], ["Y"]), [("X", TP.UINT8, ["N", "W"])],
     ["Y"], {"s": np.array(0.5, np.float16)})
case("DynamicQuantizeLinear11", 11, N("DynamicQuantizeLinear", ["X"], ["Y", "S", "Z"]), X4, ["Y", "S", "Z"])
case("MatMulInteger10", 10, N("MatMulInteger", ["A", "B"], ["Y"]), [("A", TP.UINT8, ["N", "L", 4])], ["Y"],
     {"B": np.ones([4, 3], np.uint8)})
case("QLinearMatMul21", 21, N("QLinearMatMul", ["A", "as", "az", "B", "bs", "bz", "ys", "yz"], ["Y"]),
     [("A", TP.UINT8, ["N", "L", 4])], ["Y"],
     {"as": F32(0.1), "az": np.array(0, np.uint8), "B": np.ones([4, 3], np.uint8), "bs": F32(0.1),
      "bz": np.array(0, np.uint8), "ys": F32(0.2), "yz": np.array(0, np.uint8)})
for to, tname in ((FLOAT8E4M3FN, "f8e4m3fn"), (FLOAT8E5M2, "f8e5m2"), (FLOAT8E4M3FNUZ, "f8e4m3fnuz"),
                  (FLOAT8E5M2FNUZ, "f8e5m2fnuz"), (INT4, "int4"), (UINT4, "uint4"), (FLOAT4E2M1, "f4e2m1"),
                  (TP.BFLOAT16, "bf16")):
    op_v = 23 if to == FLOAT4E2M1 else (21 if to in (INT4, UINT4) else 19)
    # onnxruntime-node cannot return these types (int4/uint4 abort the process, float8/bf16:
    # "Unsupported data type"), so each is cast back to float; float4e2m1: ORT has no Cast-23 kernel.
    if to == FLOAT4E2M1:
        continue
    case(f"Cast{op_v}_{tname}_roundtrip", op_v, [N("Cast", ["X"], ["t"], to=to), N("Cast", ["t"], ["Y"], to=TP.FLOAT)],
         X4, ["Y"])
case("Cast19_saturate0_roundtrip", 19, [N("Cast", ["X"], ["t"], to=FLOAT8E4M3FN, saturate=0),
                                        N("Cast", ["t"], ["Y"], to=TP.FLOAT)], X4, ["Y"])
case("CastLike19_int64", 19, N("CastLike", ["X", "like"], ["Y"]), X4, ["Y"], {"like": np.zeros([0], np.int64)})
case("CastLike21_from_uint4", 21, [N("Cast", ["X"], ["t"], to=UINT4), N("CastLike", ["t", "X"], ["Y"])], X4, ["Y"])
case("Cast13_to_string", 13, N("Cast", ["X"], ["Y"], to=TP.STRING), [("X", TP.INT32, ["N"])], ["Y"])
case("Cast13_from_string", 13, N("Cast", ["X"], ["Y"], to=TP.DOUBLE), [("X", STR, ["N"])], ["Y"],
     fills={"X": {"value": ["1.5", "2"]}})

# ---- Shape-like ops: Shape start/end, Flatten, Reshape, Squeeze... ------------------------------------

case("Shape15_start_end", 15, N("Shape", ["X"], ["Y"], start=1, end=-1), X4, ["Y"])
case("Shape21_start_neg", 21, N("Shape", ["X"], ["Y"], start=-2), X4, ["Y"])
case("Shape19_clamped", 19, N("Shape", ["X"], ["Y"], start=-10, end=10), X4, ["Y"])
case("Shape_then_Gather", 15, [N("Shape", ["X"], ["s"], start=2), N("ConstantOfShape", ["s"], ["Y"])], X4, ["Y"])
case("Size21", 21, N("Size", ["X"], ["Y"]), X4, ["Y"])
case("Flatten21_axis0", 21, N("Flatten", ["X"], ["Y"], axis=0), X4, ["Y"])
case("Flatten21_axis_neg", 21, N("Flatten", ["X"], ["Y"], axis=-1), X4, ["Y"])
case("Flatten13_axis2", 13, N("Flatten", ["X"], ["Y"], axis=2), X4, ["Y"])
case("Reshape21_zero_minus1", 21, N("Reshape", ["X", "s"], ["Y"]), X4, ["Y"], {"s": I64(0, -1, 2)},
     sizes={"W": [2, 4, 6]})
case("Reshape21_allowzero_empty", 21, N("Reshape", ["X", "s"], ["Y"], allowzero=1), [("X", F, [0, 3])], ["Y"],
     {"s": I64(3, 0)})
case("Reshape19_minus1_first", 19, N("Reshape", ["X", "s"], ["Y"]), [("X", F, ["N", 6, 4])], ["Y"],
     {"s": I64(-1, 8)})
case("Reshape23_shape_of", 23, [N("Shape", ["A"], ["s"]), N("Reshape", ["X", "s"], ["Y"])],
     [("X", F, ["N", 12]), ("A", F, ["N", 3, 4])], ["Y"])
case("Squeeze21_axes", 21, N("Squeeze", ["X", "axes"], ["Y"]), [("X", F, ["N", 1, "W", 1])], ["Y"], {"axes": I64(-1, 1)})
case("Squeeze13_noaxes", 13, N("Squeeze", ["X"], ["Y"]), [("X", F, [1, 3, 1, 2])], ["Y"])
# An axis named twice is squeezed or reduced once; axes of unknown values (graph inputs) leave
# what every choice of axes agrees on; an empty axes input reduces all axes (or none with noop).
case("Squeeze13_axes_repeated", 13, N("Squeeze", ["X", "axes"], ["Y"]), [("X", F, [1, "N", 1])], ["Y"],
     {"axes": I64(0, -3)})
case("Squeeze13_axes_data_one", 13, N("Squeeze", ["X", "a"], ["Y"]), [("X", F, [1, "W", 5]), ("a", I, [1])], ["Y"],
     fills={"a": {"value": [0]}})
case("Squeeze13_axes_data_single_one", 13, N("Squeeze", ["X", "a"], ["Y"]), [("X", F, [4, 1, 3]), ("a", I, [2])], ["Y"],
     fills={"a": {"value": [1, -2]}})
case("ReduceSum13_axes_repeated", 13, N("ReduceSum", ["X", "axes"], ["Y"], keepdims=0), [("X", F, ["N", 3, 4])], ["Y"],
     {"axes": I64(1, -2)})
case("ReduceMax18_axes_repeated_keepdims", 18, N("ReduceMax", ["X", "axes"], ["Y"]), [("X", F, ["N", 3, 4])], ["Y"],
     {"axes": I64(2, 2, -1)})
case("ReduceSum13_axes_data_one", 13, N("ReduceSum", ["X", "a"], ["Y"], keepdims=0), [("X", F, ["N", 4, 4]), ("a", I, [1])],
     ["Y"], fills={"a": {"value": [0]}})
case("ReduceSum13_axes_data_keep_ones", 13, N("ReduceSum", ["X", "a"], ["Y"]), [("X", F, [1, "W", 1]), ("a", I, [1])],
     ["Y"], fills={"a": {"value": [1]}})
case("Squeeze13_axes_data_repeated", 13, N("Squeeze", ["X", "a"], ["Y"]), [("X", F, [1, "N", 1]), ("a", I, [2])], ["Y"],
     fills={"a": {"value": [0, 0]}})
case("ReduceSum13_axes_data_repeated", 13, N("ReduceSum", ["X", "a"], ["Y"], keepdims=0),
     [("X", F, ["N", 3, 4]), ("a", I, [2])], ["Y"], fills={"a": {"value": [1, 1]}})
case("ReduceSum13_axes_data_empty", 13, N("ReduceSum", ["X", "a"], ["Y"]), [("X", F, ["N", "W", 3]), ("a", I, [0])],
     ["Y"])
case("ReduceSum13_axes_data_empty_noop", 13, N("ReduceSum", ["X", "a"], ["Y"], keepdims=0, noop_with_empty_axes=1),
     [("X", F, ["N", "W", 3]), ("a", I, [0])], ["Y"])
case("Unsqueeze21", 21, N("Unsqueeze", ["X", "axes"], ["Y"]), [("X", F, ["N", "W"])], ["Y"], {"axes": I64(-1, 0, 2)})
case("Transpose21_default", 21, N("Transpose", ["X"], ["Y"]), X4, ["Y"])
case("Transpose21_perm", 21, N("Transpose", ["X"], ["Y"], perm=[0, 2, 3, 1]), X4, ["Y"])
case("ConstantOfShape21_int4", 21, N("ConstantOfShape", ["s"], ["Y"],
                                     value=helper.make_tensor("v", TP.INT32, [1], [3])), [], ["Y"],
     {"s": I64(2, 3)})
case("ConstantOfShape20_default", 20, N("ConstantOfShape", ["s"], ["Y"]), [], ["Y"], {"s": I64(4, 0, 2)})
case("ConstantOfShape20_dynamic", 20, N("ConstantOfShape", ["s"], ["Y"]), [("s", I, [3])], ["Y"],
     fills={"s": {"value": [2, 3, 1]}})
case("Expand13_shape_init", 13, N("Expand", ["X", "s"], ["Y"]), [("X", F, ["N", 1, "W"])], ["Y"],
     {"s": I64(3, 1, 1, 1)})
case("Expand13_smaller_shape", 13, N("Expand", ["X", "s"], ["Y"]), [("X", F, ["N", 1])], ["Y"], {"s": I64(5)})
case("Tile13", 13, N("Tile", ["X", "r"], ["Y"]), [("X", F, ["N", 3, "W"])], ["Y"], {"r": I64(2, 1, 3)})
case("Range11_const", 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": np.array(1, np.int64), "b": np.array(10, np.int64), "d": np.array(3, np.int64)})
case("Range11_float_neg", 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": F32(5).reshape([]), "b": F32(-2).reshape([]), "d": F32(-1.5).reshape([])})
case("Slice13_steps", 13, N("Slice", ["X", "st", "en", "ax", "sp"], ["Y"]), X4, ["Y"],
     {"st": I64(-1, 1), "en": I64(-1000, 1000), "ax": I64(3, 2), "sp": I64(-2, 2)})
case("Slice13_clamp", 13, N("Slice", ["X", "st", "en"], ["Y"]), [("X", F, [10, "W"])], ["Y"],
     {"st": I64(2, 1), "en": I64(100, -1)})
case("Concat13", 13, N("Concat", ["A", "B"], ["Y"], axis=-1), [("A", F, ["N", 3]), ("B", F, ["N", "W"])], ["Y"])
case("SpaceToDepth13", 13, N("SpaceToDepth", ["X"], ["Y"], blocksize=2), [("X", F, ["N", 3, 4, 6])], ["Y"])
case("DepthToSpace13_crd", 13, N("DepthToSpace", ["X"], ["Y"], blocksize=2, mode="CRD"), X4, ["Y"])
case("Trilu14", 14, N("Trilu", ["X", "k"], ["Y"], upper=0), [("X", F, ["N", "H", "W"])], ["Y"],
     {"k": np.array(1, np.int64)})
case("EyeLike22", 22, N("EyeLike", ["X"], ["Y"], dtype=TP.INT32, k=1), [("X", F, ["H", "W"])], ["Y"])
case("OneHot11", 11, N("OneHot", ["i", "depth", "vals"], ["Y"], axis=1), [("i", I, ["N", "L"])], ["Y"],
     {"depth": np.array(5, np.int64), "vals": F32(0, 1)}, fills={"i": {"int_range": [0, 5]}})
case("CumSum14_reverse", 14, N("CumSum", ["X", "ax"], ["Y"], reverse=1), X4, ["Y"], {"ax": np.array(2, np.int64)})
case("ReverseSequence10", 10, N("ReverseSequence", ["X", "sl"], ["Y"], batch_axis=1, time_axis=0),
     [("X", F, [4, 3, "W"])], ["Y"], {"sl": I64(1, 2, 4)})
case("Einsum12", 12, N("Einsum", ["A", "B"], ["Y"], equation="bij,bjk->bik"),
     [("A", F, ["N", "S", 4]), ("B", F, ["N", 4, "T"])], ["Y"])
case("Einsum12_implicit", 12, N("Einsum", ["A", "B"], ["Y"], equation="ij,kj"),
     [("A", F, ["S", 4]), ("B", F, ["T", 4])], ["Y"])
case("Einsum12_ellipsis", 12, N("Einsum", ["A"], ["Y"], equation="...ii->...i"), [("A", F, ["N", 3, 3])], ["Y"])
case("MatMul13_bcast", 13, N("MatMul", ["A", "B"], ["Y"]), [("A", F, ["N", 1, "S", 4]), ("B", F, [3, 4, "T"])],
     ["Y"])
case("MatMul13_1d", 13, N("MatMul", ["A", "B"], ["Y"]), [("A", F, [4]), ("B", F, ["N", 4, "T"])], ["Y"])
case("Gemm13_trans", 13, N("Gemm", ["A", "B", "C"], ["Y"], transA=1, transB=1),
     [("A", F, [4, "N"]), ("B", F, ["T", 4])], ["Y"], {"C": F32(1)})
case("Det22", 22, N("Det", ["X"], ["Y"]), [("X", F, ["N", 3, 3])], ["Y"])
case("Hardmax13", 13, N("Hardmax", ["X"], ["Y"], axis=1), X4, ["Y"])
case("LogSoftmax13", 13, N("LogSoftmax", ["X"], ["Y"]), X4, ["Y"])
case("Dropout22_mask", 22, N("Dropout", ["X"], ["Y", "M"]), X4, ["Y", "M"])
case("Bernoulli15", 15, N("Bernoulli", ["X"], ["Y"], dtype=TP.INT32), X4, ["Y"])
case("RandomNormalLike1", 1, N("RandomNormalLike", ["X"], ["Y"], dtype=TP.DOUBLE), X4, ["Y"])
case("RandomUniform1", 1, N("RandomUniform", [], ["Y"], shape=[2, 3]), [], ["Y"])
case("Multinomial7", 7, N("Multinomial", ["X"], ["Y"], sample_size=5), [("X", F, ["N", 4])], ["Y"])

# ---- Data-dependent outputs: TopK, Unique, Compress, NonZero ------------------------------------------

case("TopK11_K_init", 11, N("TopK", ["X", "k"], ["V", "I"], axis=1), X4, ["V", "I"], {"k": I64(3)})
case("TopK11_K_init_last", 11, N("TopK", ["X", "k"], ["V", "I"], largest=0), X4, ["V", "I"], {"k": I64(2)})
case("TopK24_K_dynamic", 24, N("TopK", ["X", "k"], ["V", "I"], axis=-2), X4 + [("k", I, [1])], ["V", "I"],
     fills={"k": {"value": [2]}})
case("Unique11_noaxis", 11, N("Unique", ["X"], ["Y", "I", "Inv", "C"]), [("X", F, ["N", "W"])], ["Y", "I", "Inv", "C"])
case("Unique11_axis", 11, N("Unique", ["X"], ["Y", "I", "Inv", "C"], axis=1, sorted=0), [("X", I, ["N", "W"])],
     ["Y", "I", "Inv", "C"], fills={"X": {"int_range": [0, 2]}})
case("Compress11_axis", 11, N("Compress", ["X", "c"], ["Y"], axis=1), X4, ["Y"], {"c": np.array([1, 0, 1], bool)})
case("Compress11_noaxis", 11, N("Compress", ["X", "c"], ["Y"]), [("X", F, ["N", 3])], ["Y"],
     {"c": np.array([1, 0, 1, 1], bool)})
case("NonZero13", 13, N("NonZero", ["X"], ["Y"]), [("X", F, ["N", "W"])], ["Y"])
case("NonMaxSuppression11", 11, N("NonMaxSuppression", ["b", "s"], ["Y"]), [("b", F, ["N", "K", 4]),
                                                                          ("s", F, ["N", 2, "K"])], ["Y"])

# ---- Attention, RotaryEmbedding (23), loss functions --------------------------------------------------

case("Attention23_4d", 23, N("Attention", ["Q", "K_", "V"], ["Y"]),
     [("Q", F, ["B", 2, "S", 8]), ("K_", F, ["B", 2, "T", 8]), ("V", F, ["B", 2, "T", 6])], ["Y"])
case("Attention23_3d_heads", 23, N("Attention", ["Q", "K_", "V"], ["Y"], q_num_heads=4, kv_num_heads=2),
     [("Q", F, ["B", "S", 16]), ("K_", F, ["B", "T", 8]), ("V", F, ["B", "T", 12])], ["Y"])
case("Attention23_present", 23, N("Attention", ["Q", "K_", "V", "", "pk", "pv"], ["Y", "PK", "PV"]),
     [("Q", F, ["B", 2, "S", 8]), ("K_", F, ["B", 2, "T", 8]), ("V", F, ["B", 2, "T", 8]),
      ("pk", F, ["B", 2, "L", 8]), ("pv", F, ["B", 2, "L", 8])], ["Y", "PK", "PV"])
case("Attention23_qk_out", 23, N("Attention", ["Q", "K_", "V"], ["Y", "", "", "QK"], qk_matmul_output_mode=0),
     [("Q", F, ["B", 2, "S", 8]), ("K_", F, ["B", 2, "T", 8]), ("V", F, ["B", 2, "T", 8])], ["Y", "QK"])
case("RotaryEmbedding23_4d", 23, N("RotaryEmbedding", ["X", "cos", "sin", "pos"], ["Y"]),
     [("X", F, ["B", 2, "S", 8]), ("pos", I, ["B", "S"])], ["Y"],
     {"cos": np.ones([16, 4], np.float32), "sin": np.zeros([16, 4], np.float32)}, fills={"pos": {"int_range": [0, 16]}})
case("RotaryEmbedding23_3d", 23, N("RotaryEmbedding", ["X", "cos", "sin", "pos"], ["Y"], num_heads=2),
     [("X", F, ["B", "S", 16]), ("pos", I, ["B", "S"])], ["Y"],
     {"cos": np.ones([16, 4], np.float32), "sin": np.zeros([16, 4], np.float32)}, fills={"pos": {"int_range": [0, 16]}})
case("SoftmaxCrossEntropyLoss13_none", 13, N("SoftmaxCrossEntropyLoss", ["X", "y"], ["L", "P"], reduction="none"),
     [("X", F, ["N", 5, "W"]), ("y", I, ["N", "W"])], ["L", "P"], fills={"y": {"int_range": [0, 5]}})
case("SoftmaxCrossEntropyLoss13_mean", 13, N("SoftmaxCrossEntropyLoss", ["X", "y"], ["L"]),
     [("X", F, ["N", 5]), ("y", I, ["N"])], ["L"], fills={"y": {"int_range": [0, 5]}})
case("NegativeLogLikelihoodLoss22", 22, N("NegativeLogLikelihoodLoss", ["X", "y"], ["L"], reduction="none"),
     [("X", F, ["N", 5, "W"]), ("y", I, ["N", "W"])], ["L"], fills={"y": {"int_range": [0, 5]}})

# ---- Recurrent (22) -----------------------------------------------------------------------------------

case("LSTM22_bidirectional", 22, N("LSTM", ["X", "W_", "R"], ["Y", "Yh", "Yc"], hidden_size=3,
                              direction="bidirectional"),
     [("X", F, ["S", "B", 4])], ["Y", "Yh", "Yc"],
     {"W_": np.ones([2, 12, 4], np.float32), "R": np.ones([2, 12, 3], np.float32)})
case("GRU22", 22, N("GRU", ["X", "W_", "R"], ["Y", "Yh"], hidden_size=3), [("X", F, ["S", "B", 4])], ["Y", "Yh"],
     {"W_": np.ones([1, 9, 4], np.float32), "R": np.ones([1, 9, 3], np.float32)})
case("RNN22", 22, N("RNN", ["X", "W_", "R"], ["Y", "Yh"], hidden_size=5, direction="reverse"),
     [("X", F, ["S", "B", 4])], ["Y", "Yh"],
     {"W_": np.ones([1, 5, 4], np.float32), "R": np.ones([1, 5, 5], np.float32)})


# ---- Opset 24/25 versions ------------------------------------------------------------------------------

case("TensorScatter24", 24, N("TensorScatter", ["past", "upd", "wi"], ["Y"]),
     [("past", F, ["B", 2, 16, 8]), ("upd", F, ["B", 2, "S", 8]), ("wi", I, ["B"])], ["Y"],
     fills={"wi": {"int_range": [0, 4]}})
case("TensorScatter24_circular_axis1", 24, N("TensorScatter", ["past", "upd"], ["Y"], mode="circular", axis=1),
     [("past", F, ["B", 10, 4]), ("upd", F, ["B", "S", 4])], ["Y"])
case("Attention24_mask_causal", 24, N("Attention", ["Q", "K_", "V", "mask"], ["Y"], is_causal=0, softcap=5.0),
     [("Q", F, ["B", 2, "S", 8]), ("K_", F, ["B", 2, "T", 8]), ("V", F, ["B", 2, "T", 6]), ("mask", BOOL, ["S", "T"])],
     ["Y"], fills={"mask": {"value": [1]}})
case("Attention24_3d_gqa_present", 24,
     N("Attention", ["Q", "K_", "V", "", "pk", "pv"], ["Y", "PK", "PV"], q_num_heads=4, kv_num_heads=2),
     [("Q", F, ["B", "S", 16]), ("K_", F, ["B", "T", 8]), ("V", F, ["B", "T", 8]),
      ("pk", F, ["B", 2, "L", 4]), ("pv", F, ["B", 2, "L", 4])], ["Y", "PK", "PV"])
case("TopK24_sorted0", 24, N("TopK", ["X", "k"], ["V", "I"], sorted=0), X4, ["V", "I"], {"k": I64(1)})
for v in (24, 25):
    case(f"Reshape{v}", v, N("Reshape", ["X", "s"], ["Y"]), X4, ["Y"], {"s": I64(0, 0, -1)})
    case(f"Flatten{v}", v, N("Flatten", ["X"], ["Y"], axis=2), X4, ["Y"])
    case(f"Squeeze{v}", v, N("Squeeze", ["X", "a"], ["Y"]), [("X", F, ["N", 1, "W"])], ["Y"], {"a": I64(1)})
    case(f"Unsqueeze{v}", v, N("Unsqueeze", ["X", "a"], ["Y"]), [("X", F, ["N", "W"])], ["Y"], {"a": I64(1, -1)})
    case(f"Transpose{v}", v, N("Transpose", ["X"], ["Y"], perm=[3, 1, 0, 2]), X4, ["Y"])
    case(f"Shape{v}_start", v, N("Shape", ["X"], ["Y"], start=1), X4, ["Y"])
    case(f"Size{v}", v, N("Size", ["X"], ["Y"]), X4, ["Y"])
    case(f"Pad{v}_edge_axes", v, N("Pad", ["X", "p", "", "a"], ["Y"], mode="edge"), X4, ["Y"],
         {"p": I64(1, 2), "a": I64(-1)})
    case(f"ConstantOfShape{v}", v, N("ConstantOfShape", ["s"], ["Y"], value=helper.make_tensor("v", TP.INT64, [1], [7])),
         [], ["Y"], {"s": I64(3, 2)})
    case(f"Identity{v}", v, N("Identity", ["X"], ["Y"]), X4, ["Y"])
    case(f"Cast{v}_f8_roundtrip", v, [N("Cast", ["X"], ["t"], to=FLOAT8E5M2), N("Cast", ["t"], ["Y"], to=TP.FLOAT)],
         X4, ["Y"])
    case(f"CastLike{v}", v, N("CastLike", ["X", "l"], ["Y"]), X4, ["Y"], {"l": np.zeros([1], np.int32)})
    case(f"QuantizeLinear{v}_block", v, [N("QuantizeLinear", ["X", "s"], ["q"], axis=1, block_size=2),
                                        N("DequantizeLinear", ["q", "s"], ["Y"], axis=1, block_size=2)],
         [("X", F, ["N", 6])], ["Y", "q"], {"s": np.full([1, 3], 0.1, np.float32)}, sizes={"N": [1, 1, 1]})

# ---- Control flow at opsets 21+ -------------------------------------------------------------------------


def body(nodes, ins, outs):
    return helper.make_graph(nodes, "body", [vi(n, e, d) for n, e, d in ins], [vi(n, e, None) for n, e in outs])


for v in (21, 23):
    then_g = body([N("Identity", ["X"], ["o"])], [], [("o", F)])
    else_g = body([N("Abs", ["X"], ["o"])], [], [("o", F)])
    case(f"If{v}_same_shapes", v, N("If", ["c"], ["Y"], then_branch=then_g, else_branch=else_g),
         X4 + [("c", BOOL, [])], ["Y"], fills={"c": {"value": [1]}})
    else_g2 = body([N("ReduceSum", ["X", "ax"], ["o"], keepdims=1)], [], [("o", F)])
    case(f"If{v}_branch_dims_differ", v, N("If", ["c"], ["Y"], then_branch=then_g, else_branch=else_g2),
         X4 + [("c", BOOL, [])], ["Y"], {"ax": I64(2)}, fills={"c": {"value": [0]}})
    loop_g = body([N("Identity", ["ci"], ["co"]), N("Add", ["v", "one"], ["vo"]), N("Unsqueeze", ["v", "a0"], ["so"])],
                  [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F), ("so", F)])
    case(f"Loop{v}_scan_out", v, N("Loop", ["M", "", "V0"], ["V", "S_"], body=loop_g),
         [("V0", F, ["N", "W"])], ["V", "S_"], {"M": np.array(3, np.int64), "one": F32(1), "a0": I64(0)})
    scan_g = body([N("Add", ["s", "x"], ["so"]), N("Mul", ["x", "x"], ["yo"])],
                  [("s", F, ["N", 4]), ("x", F, ["N", 4])], [("so", F), ("yo", F)])
    case(f"Scan{v}_axes", v, N("Scan", ["S0", "X"], ["S", "Y"], body=scan_g, num_scan_inputs=1, scan_input_axes=[1],
                               scan_output_axes=[-1]),
         [("S0", F, ["N", 4]), ("X", F, ["N", "L", 4])], ["S", "Y"])


# ---- Edge cases of size arithmetic ---------------------------------------------------------------------

case("Resize18_scales_const_odd", 18, N("Resize", ["X", "", "scales"], ["Y"], mode="linear"),
     [("X", F, ["N", 3, 10, 21])], ["Y"], {"scales": F32(1, 1, 0.3, 0.7)})
case("Resize18_scales_const_third", 18, N("Resize", ["X", "", "scales"], ["Y"]),
     [("X", F, ["N", 3, 9, 30])], ["Y"], {"scales": F32(1, 1, 1 / 3, 1.1)})
case("Resize18_keep_aspect_half", 18,
     N("Resize", ["X", "", "", "sizes"], ["Y"], axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
     [("X", F, ["N", 1, 3, 8])], ["Y"], {"sizes": I64(3, 4)})
case("Resize18_keep_aspect_third", 18,
     N("Resize", ["X", "", "", "sizes"], ["Y"], axes=[3, 2], keep_aspect_ratio_policy="not_smaller"),
     [("X", F, ["N", 1, 5, 9])], ["Y"], {"sizes": I64(3, 3)})
# keep_aspect_ratio_policy over symbolic sizes: sizes that repeat the input's own size give a
# ratio of 1; under not_smaller a symbolic size whose target is at most the known maximum ratio
# cannot raise the scale, and one whose target is larger leaves the scale open.
shape_sizes = [N("Shape", ["X"], ["sh"], start=0, end=2), N("Concat", ["sh", "hw"], ["sizes"], axis=0)]
case("Resize18_keep_aspect_shape_not_larger", 18,
     shape_sizes + [N("Resize", ["X", "", "", "sizes"], ["Y"], keep_aspect_ratio_policy="not_larger")],
     [("X", F, ["N", "C", 10, 20])], ["Y"], {"hw": I64(5, 5)})
case("Resize18_keep_aspect_shape_not_smaller", 18,
     shape_sizes + [N("Resize", ["X", "", "", "sizes"], ["Y"], keep_aspect_ratio_policy="not_smaller")],
     [("X", F, ["N", "C", 10, 20])], ["Y"], {"hw": I64(30, 30)})
case("Resize18_keep_aspect_not_smaller_open", 18,
     N("Resize", ["X", "", "", "sizes"], ["Y"], keep_aspect_ratio_policy="not_smaller"),
     [("X", F, ["N", 3, 10, 20])], ["Y"], {"sizes": I64(5, 3, 7, 7)})
case("Upsample9", 9, N("Upsample", ["X", "scales"], ["Y"]), X4, ["Y"], {"scales": F32(1, 1, 2, 3)})
case("Split18_num_outputs_3_of_8_sym", 18, N("Split", ["X"], ["A", "B", "C"], axis=0, num_outputs=3),
     [("X", F, ["L"])], ["A", "B", "C"], sizes={"L": [8, 9, 12]})
case("MaxPool22_ceil_last_window_in_pad", 22,
     N("MaxPool", ["X"], ["Y"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1), X4, ["Y"])
case("AveragePool22_ceil_last_window_in_pad", 22,
     N("AveragePool", ["X"], ["Y"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1), X4, ["Y"])
case("LpPool22_ceil_last_window_in_pad", 22,
     N("LpPool", ["X"], ["Y"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1), X4, ["Y"])
case("AveragePool22_1d_ceil", 22, N("AveragePool", ["X"], ["Y"], kernel_shape=[3], strides=[3], ceil_mode=1),
     [("X", F, ["N", 2, "L"])], ["Y"])
case("MaxPool22_3d_same_upper", 22, N("MaxPool", ["X"], ["Y"], kernel_shape=[2, 2, 3], strides=[2, 1, 2],
                                      auto_pad="SAME_UPPER"), [("X", F, ["N", 2, "D", "H", "W"])], ["Y"])
case("Conv22_valid_3d", 22, N("Conv", ["X", "w"], ["Y"], auto_pad="VALID", strides=[1, 2, 2]),
     [("X", F, ["N", 2, "D", "H", "W"])], ["Y"], {"w": np.ones([3, 2, 2, 2, 3], np.float32)})
case("ConvTranspose22_same_lower_dil", 22,
     N("ConvTranspose", ["X", "w"], ["Y"], strides=[3, 2], dilations=[2, 1], auto_pad="SAME_LOWER"), X4, ["Y"],
     {"w": np.ones([4, 2, 2, 3], np.float32)})
case("ConvTranspose22_1d_output_shape_sym", 22,
     N("ConvTranspose", ["X", "w"], ["Y"], strides=[2], output_shape=[13]), [("X", F, ["N", 2, 6])], ["Y"],
     {"w": np.ones([2, 1, 3], np.float32)})
case("MaxUnpool22", 22, N("MaxUnpool", ["X", "I_"], ["Y"], kernel_shape=[2, 2], strides=[2, 2]),
     [("X", F, ["N", 2, "H", "W"]), ("I_", I, ["N", 2, "H", "W"])], ["Y"], fills={"I_": {"value": [0]}})
case("MaxUnpool22_output_shape", 22, N("MaxUnpool", ["X", "I_", "os"], ["Y"], kernel_shape=[2, 2], strides=[2, 2]),
     [("X", F, [1, 2, 2, 3]), ("I_", I, [1, 2, 2, 3])], ["Y"], {"os": I64(1, 2, 5, 7)}, fills={"I_": {"value": [0]}})
case("Expand13_bcast_both", 13, N("Expand", ["X", "s"], ["Y"]), [("X", F, ["N", 1])], ["Y"], {"s": I64(1, 5)})
case("Einsum12_bcast_ellipsis", 12, N("Einsum", ["A", "B"], ["Y"], equation="...ij,...jk->...ik"),
     [("A", F, ["N", 1, 2, 3]), ("B", F, [1, 4, 3, 5])], ["Y"])
case("OneHot11_neg_axis_float_depth", 11, N("OneHot", ["i", "depth", "vals"], ["Y"], axis=-2), [("i", I, ["N", "L"])],
     ["Y"], {"depth": F32(4.0), "vals": np.array([0, 1], np.int32)}, fills={"i": {"int_range": [0, 4]}})
case("Range11_int_neg", 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": np.array(10, np.int32), "b": np.array(-3, np.int32), "d": np.array(-4, np.int32)})
case("CenterCropPad18_pad_odd", 18, N("CenterCropPad", ["X", "shape"], ["Y"], axes=[1]),
     [("X", F, ["N", "W"])], ["Y"], {"shape": I64(10)})
case("DFT20_onesided_odd_len", 20, N("DFT", ["X", "len", "axis"], ["Y"], onesided=1),
     [("X", F, ["N", "L", "W", 1])], ["Y"], {"len": np.array(7, np.int64), "axis": np.array(-3, np.int64)})
case("GatherND13_batch2", 13, N("GatherND", ["X", "idx"], ["Y"], batch_dims=2),
     [("X", F, ["N", 3, 4, 5]), ("idx", I, ["N", 3, "K", 2])], ["Y"], fills={"idx": {"int_range": [0, 4]}})
case("Gather13_neg_scalar_const", 13, N("Gather", ["X", "i"], ["Y"], axis=0), [("X", F, [5, "W"])], ["Y"],
     {"i": I64(-1, 0, -2)})

# ---- Values flowing through shape computations (opset 18+ forms) -----------------------------------------

case("Chain_Shape_start_Reshape", 18,
     [N("Shape", ["X"], ["s"], end=1), N("Concat", ["s", "m1"], ["t"], axis=0), N("Reshape", ["X", "t"], ["Y"])],
     X4, ["Y"], {"m1": I64(-1)})
case("Chain_Shape_ReduceProd18", 18,
     [N("Shape", ["X"], ["s"], start=2), N("ReduceProd", ["s"], ["p"], keepdims=1),
      N("Shape", ["X"], ["n"], end=2), N("Concat", ["n", "p"], ["t"], axis=0), N("Reshape", ["X", "t"], ["Y"])],
     X4, ["Y"])
case("Chain_Shape_Mul_Resize_sizes", 18,
     [N("Shape", ["X"], ["s"]), N("Mul", ["s", "two"], ["t"]), N("Slice", ["t", "st", "en"], ["hw"]),
      N("Resize", ["X", "", "", "hw"], ["Y"], axes=[2, 3], mode="nearest")],
     X4, ["Y"], {"two": I64(1, 1, 2, 3), "st": I64(2), "en": I64(4)})
case("Chain_Range_from_Shape", 18,
     [N("Shape", ["X"], ["s"], start=-1), N("Squeeze", ["s", "a0"], ["w"]), N("Range", ["z", "w", "o"], ["Y"])],
     X4, ["Y"], {"a0": I64(0), "z": np.array(0, np.int64), "o": np.array(2, np.int64)})
case("Chain_TopK_K_from_Shape", 18, [N("Shape", ["X"], ["s"], start=-1), N("TopK", ["X", "s"], ["V", "I"])],
     X4, ["V", "I"])
case("Chain_Split18_shape_parts", 18,
     [N("Shape", ["X"], ["s"]), N("Split", ["s"], ["a", "b"], num_outputs=2), N("ReduceProd", ["b"], ["p"], keepdims=1),
      N("Concat", ["a", "p"], ["t"], axis=0), N("Reshape", ["X", "t"], ["Y"])], X4, ["Y"])
case("Chain_ConstantOfShape_Expand", 20,
     [N("Shape", ["X"], ["s"], start=1, end=3), N("ConstantOfShape", ["s"], ["c"]), N("Expand", ["Z", "s"], ["Y"]),
      N("Add", ["c", "Y"], ["Y2"])], X4 + [("Z", F, [1, 1])], ["Y2"])
case("Chain_CenterCropPad_shape_of_other", 18,
     [N("Shape", ["R"], ["s"], start=2), N("CenterCropPad", ["X", "s"], ["Y"], axes=[2, 3])],
     X4 + [("R", F, [1, 1, "S", "T"])], ["Y"])
case("Chain_Pad18_pads_from_shape", 18,
     [N("Shape", ["R"], ["s"]), N("Concat", ["s", "s"], ["p"], axis=0), N("Pad", ["X", "p", "", "ax"], ["Y"])],
     X4 + [("R", F, ["S"])], ["Y"], {"ax": I64(3)})
case("Chain_Tile_repeats_from_shape", 13,
     [N("Shape", ["R"], ["s"]), N("Tile", ["X", "s"], ["Y"])], [("X", F, ["N", 3]), ("R", F, ["S", 2])], ["Y"])

# ---- Sequences feeding tensors ---------------------------------------------------------------------------

case("SplitToSequence_ConcatFromSequence", 11,
     [N("SplitToSequence", ["X", "sp"], ["q"], axis=1), N("ConcatFromSequence", ["q"], ["Y"], axis=1)],
     [("X", F, ["N", 6, "W"])], ["Y"], {"sp": np.array(2, np.int64)})
case("SplitToSequence_new_axis", 11,
     [N("SplitToSequence", ["X", "sp"], ["q"], axis=1), N("ConcatFromSequence", ["q"], ["Y"], axis=0, new_axis=1),
      N("SequenceLength", ["q"], ["L_"])],
     [("X", F, ["N", 6, "W"])], ["Y", "L_"], {"sp": np.array(2, np.int64)})
case("SplitToSequence_nokeep_At", 11,
     [N("SplitToSequence", ["X"], ["q"], axis=-1, keepdims=0), N("SequenceAt", ["q", "p"], ["Y"])],
     [("X", F, ["N", 3])], ["Y"], {"p": np.array(-1, np.int64)})
case("SequenceConstruct_Insert_At", 11,
     [N("SequenceConstruct", ["A", "A"], ["q"]), N("SequenceInsert", ["q", "A"], ["q2"]),
      N("SequenceAt", ["q2", "p"], ["Y"]), N("SequenceLength", ["q2"], ["L_"])],
     [("A", F, ["N", 2])], ["Y", "L_"], {"p": np.array(1, np.int64)})


# ---- Clamping: symbolic sizes that may be smaller than the constants applied to them ---------------------

SMALL = {"W": [2, 5, 1], "N": [1, 3, 2]}
case("Slice13_neg_start_small", 13, N("Slice", ["X", "st", "en", "ax"], ["Y"]), [("X", F, ["N", "W"])], ["Y"],
     {"st": I64(-3), "en": I64(1 << 62), "ax": I64(1)}, sizes=SMALL)
case("Slice13_inner_small", 13, N("Slice", ["X", "st", "en", "ax"], ["Y"]), [("X", F, ["N", "W"])], ["Y"],
     {"st": I64(1), "en": I64(-1), "ax": I64(1)}, sizes=SMALL)
case("Slice13_neg_step_small", 13, N("Slice", ["X", "st", "en", "ax", "sp"], ["Y"]), [("X", F, ["N", "W"])], ["Y"],
     {"st": I64(3), "en": I64(0), "ax": I64(1), "sp": I64(-1)}, sizes=SMALL)
case("Slice13_neg_step_full", 13, N("Slice", ["X", "st", "en", "ax", "sp"], ["Y"]), [("X", F, ["N", "W"])], ["Y"],
     {"st": I64(-1), "en": I64(-(1 << 62)), "ax": I64(1), "sp": I64(-2)}, sizes=SMALL)
case("Slice13_fixed_window", 13, N("Slice", ["X", "st", "en", "ax"], ["Y"]), [("X", F, ["N", "W"])], ["Y"],
     {"st": I64(1), "en": I64(3), "ax": I64(1)}, sizes=SMALL)
case("Pad18_negative_small", 18, N("Pad", ["X", "p", "", "a"], ["Y"]), [("X", F, ["N", "W"])], ["Y"],
     {"p": I64(-1, 0), "a": I64(1)}, sizes=SMALL)
case("CenterCropPad18_small", 18, N("CenterCropPad", ["X", "shape"], ["Y"], axes=[1]), [("X", F, ["N", "W"])], ["Y"],
     {"shape": I64(3)}, sizes=SMALL)
case("TopK11_K_vs_small", 11, N("TopK", ["X", "k"], ["V", "I"]), [("X", F, ["N", "W"])], ["V", "I"], {"k": I64(1)},
     sizes=SMALL)
case("Range11_float_rounding", 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": F32(0).reshape([]), "b": F32(0.3).reshape([]), "d": F32(0.1).reshape([])})
case("Range11_float_rounding2", 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": F32(0.1).reshape([]), "b": F32(0.7).reshape([]), "d": F32(0.2).reshape([])})
case("Range11_double", 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": np.array(0, np.float64), "b": np.array(0.3, np.float64), "d": np.array(0.1, np.float64)})
case("STFT17_frame_step_small", 17, N("STFT", ["X", "step", "", "fl"], ["Y"], onesided=1), [("X", F, ["N", "L", 1])],
     ["Y"], {"step": np.array(4, np.int64), "fl": np.array(6, np.int64)}, sizes={"L": [6, 13, 9]})
case("Chain_AffineGrid_size_from_shape", 20, [N("Shape", ["X"], ["s"]), N("AffineGrid", ["theta", "s"], ["G"])],
     [("X", F, [2, 3, "H", "W"]), ("theta", F, [2, 2, 3])], ["G"])
case("Chain_Col2Im_image_from_shape", 18,
     [N("Shape", ["R"], ["s"]), N("Col2Im", ["X", "s", "bs"], ["Y"])],
     [("X", F, ["N", 8, 20]), ("R", F, [5, 6])], ["Y"], {"bs": I64(2, 2)})
case("DequantizeLinear23_output_dtype", 23, N("DequantizeLinear", ["X", "s"], ["Y"], output_dtype=TP.FLOAT16),
     [("X", TP.INT8, ["N", "W"])], ["Y"], {"s": np.array(0.5, np.float16)})
case("QuantizeLinear23_int16_zp", 23, N("QuantizeLinear", ["X", "s", "z"], ["Y"]), X4, ["Y"],
     {"s": F32(0.5), "z": np.array(1, np.int16)})


# ---- Control flow whose shapes change between iterations / branches -------------------------------------

grow_g = body([N("Identity", ["ci"], ["co"]), N("Concat", ["v", "v"], ["vo"], axis=1), N("Shape", ["v"], ["so"])],
              [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F), ("so", I)])
case("Loop21_carried_grows", 21, N("Loop", ["M", "", "V0"], ["V", "S_"], body=grow_g),
     [("V0", F, ["N", "W"])], ["V", "S_"], {"M": np.array(3, np.int64)})
# A negative trip count runs no iteration (ONNX Runtime loops while the iteration number is below M).
case("Loop21_negative_trip_count", 21, N("Loop", ["M", "", "V0"], ["V", "S_"], body=grow_g),
     [("V0", F, ["N", "W"])], ["V", "S_"], {"M": np.array(-2, np.int64)})
case("Loop21_dynamic_trip_count", 21, N("Loop", ["M", "", "V0"], ["V", "S_"], body=grow_g),
     [("V0", F, ["N", "W"]), ("M", I, [])], ["V", "S_"], fills={"M": {"value": [2]}})
cnt_g = body([N("Less", ["i", "lim"], ["co"]), N("Add", ["v", "one"], ["vo"]), N("Identity", ["v"], ["so"])],
             [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F), ("so", F)])
case("Loop21_cond_stops", 21, N("Loop", ["", "c0", "V0"], ["V", "S_"], body=cnt_g),
     [("V0", F, ["N", "W"]), ("c0", BOOL, [])], ["V", "S_"], {"lim": np.array(3, np.int64), "one": F32(1)},
     fills={"c0": {"value": [1]}})
# torch declares the iteration number and condition as [1]: ONNX Runtime then feeds them as [1].
iter1_g = body([N("Identity", ["ci"], ["co"]), N("Add", ["v", "one"], ["vo"]), N("Gather", ["tab", "i"], ["so"])],
               [("i", I, [1]), ("ci", BOOL, [1]), ("v", F, None)], [("co", BOOL), ("vo", F), ("so", F)])
case("Loop16_iteration_number_1d", 16, N("Loop", ["M", "c0", "V0"], ["V", "S_"], body=iter1_g),
     [("V0", F, ["N", "W"])], ["V", "S_"],
     {"M": np.array([3], np.int64), "c0": np.array([True]), "one": F32(1), "tab": np.ones((5, 2), np.float32)})
then_r = body([N("Identity", ["X"], ["o"])], [], [("o", F)])
else_r = body([N("ReduceSum", ["X", "ax"], ["o"], keepdims=0)], [], [("o", F)])
case("If21_branch_ranks_differ", 21, N("If", ["c"], ["Y"], then_branch=then_r, else_branch=else_r),
     X4 + [("c", BOOL, [])], ["Y"], {"ax": I64(2)}, fills={"c": {"value": [0]}})

shrink_g = body([N("Identity", ["ci"], ["co"]), N("Slice", ["v", "one_", "big"], ["vo"]),
                 N("ReduceSum", ["v", "ax1"], ["so"], keepdims=0)],
                [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F), ("so", F)])
case("Loop21_carried_shrinks", 21, N("Loop", ["M", "", "V0"], ["V", "S_"], body=shrink_g),
     [("V0", F, ["N", "W"])], ["V", "S_"],
     {"M": np.array(2, np.int64), "one_": I64(1), "big": I64(1 << 62), "ax1": I64(0)}, sizes={"N": [3, 4, 5]})
outer_g = body([N("Identity", ["ci"], ["co"]), N("Add", ["v", "R"], ["vo"]), N("Shape", ["R"], ["so"])],
               [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F), ("so", I)])
case("Loop21_outer_scope_bcast", 21, N("Loop", ["M", "", "V0"], ["V", "S_"], body=outer_g),
     [("V0", F, ["N", 1]), ("R", F, ["N", "W"])], ["V", "S_"], {"M": np.array(2, np.int64)})
# A loop that runs at least once (cond true on entry) and stops on its own: it ends with a value of
# the body's output, R's [N, W], not the initial [N, 1].
reset_g = body([N("Less", ["i", "lim"], ["co"]), N("Identity", ["R"], ["vo"])],
               [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F)])
case("Loop21_runs_at_least_once", 21, N("Loop", ["M", "c0", "V0"], ["V"], body=reset_g),
     [("V0", F, ["N", 1]), ("R", F, ["N", "W"])], ["V"],
     {"M": np.array(5, np.int64), "c0": np.array(True), "lim": np.array(2, np.int64)})
rev_g = body([N("Add", ["s", "x"], ["so"]), N("Identity", ["x"], ["yo"])],
             [("s", F, ["N", "W"]), ("x", F, ["N", "W"])], [("so", F), ("yo", F)])
case("Scan21_reverse_two_outputs", 21,
     N("Scan", ["S0", "X"], ["S", "Y"], body=rev_g, num_scan_inputs=1, scan_input_axes=[0], scan_input_directions=[1],
       scan_output_directions=[1], scan_output_axes=[2]),
     [("S0", F, ["N", "W"]), ("X", F, ["L", "N", "W"])], ["S", "Y"])
inner_then = body([N("Identity", ["X"], ["o"])], [], [("o", F)])
inner_else = body([N("Neg", ["X"], ["o"])], [], [("o", F)])
nest_g = body([N("Identity", ["ci"], ["co"]), N("If", ["c2"], ["t"], then_branch=inner_then, else_branch=inner_else),
               N("Add", ["v", "t"], ["vo"])],
              [("i", I, []), ("ci", BOOL, []), ("v", F, None)], [("co", BOOL), ("vo", F)])
case("Loop21_nested_If", 21, N("Loop", ["M", "", "V0"], ["V"], body=nest_g),
     X4 + [("V0", F, ["N", 4, "H", "W"]), ("c2", BOOL, [])], ["V"], {"M": np.array(2, np.int64)},
     fills={"c2": {"value": [1]}})


# ---- ai.onnx.ml ------------------------------------------------------------------------------------------


def ml(op, ins, outs, **kw):
    return N(op, ins, outs, domain="ai.onnx.ml", **kw)


MLX = [("X", F, ["N", 3])]
ML3 = {"ai.onnx.ml": 3}
case("ml_TreeEnsembleRegressor", 17, ml("TreeEnsembleRegressor", ["X"], ["Y"], n_targets=2, nodes_treeids=[0],
                                        nodes_nodeids=[0], nodes_featureids=[0], nodes_modes=["LEAF"],
                                        nodes_values=[0.0], nodes_truenodeids=[0], nodes_falsenodeids=[0],
                                        target_treeids=[0], target_nodeids=[0], target_ids=[1], target_weights=[1.0]),
     MLX, ["Y"], domains=ML3)
case("ml_TreeEnsembleClassifier", 17, ml("TreeEnsembleClassifier", ["X"], ["L_", "P"], classlabels_int64s=[0, 1, 2],
                                         nodes_treeids=[0], nodes_nodeids=[0], nodes_featureids=[0],
                                         nodes_modes=["LEAF"], nodes_values=[0.0], nodes_truenodeids=[0],
                                         nodes_falsenodeids=[0], class_treeids=[0], class_nodeids=[0], class_ids=[1],
                                         class_weights=[1.0]),
     MLX, ["L_", "P"], domains=ML3)
case("ml_TreeEnsembleClassifier_binary_strings", 17,
     ml("TreeEnsembleClassifier", ["X"], ["L_", "P"], classlabels_strings=["no", "yes"], nodes_treeids=[0],
        nodes_nodeids=[0], nodes_featureids=[0], nodes_modes=["LEAF"], nodes_values=[0.0], nodes_truenodeids=[0],
        nodes_falsenodeids=[0], class_treeids=[0], class_nodeids=[0], class_ids=[1], class_weights=[1.0]),
     MLX, ["L_", "P"], domains=ML3)
case("ml_TreeEnsemble5", 21, ml("TreeEnsemble", ["X"], ["Y"], n_targets=3, tree_roots=[0], nodes_featureids=[0],
                                nodes_splits=helper.make_tensor("s", TP.FLOAT, [1], [0.0]),
                                nodes_modes=helper.make_tensor("m", TP.UINT8, [1], [0]), nodes_truenodeids=[0],
                                nodes_trueleafs=[1], nodes_falsenodeids=[1], nodes_falseleafs=[1],
                                leaf_targetids=[0, 2], leaf_weights=helper.make_tensor("w", TP.FLOAT, [2], [1.0, 2.0])),
     MLX, ["Y"], domains={"ai.onnx.ml": 5})
case("ml_LinearClassifier_3", 17, ml("LinearClassifier", ["X"], ["L_", "P"], classlabels_ints=[5, 6, 7],
                                     coefficients=[1.0] * 9, intercepts=[0.0, 0.0, 0.0]), MLX, ["L_", "P"], domains=ML3)
case("ml_LinearClassifier_binary", 17, ml("LinearClassifier", ["X"], ["L_", "P"], classlabels_ints=[0, 1],
                                          coefficients=[1.0] * 3, intercepts=[0.0]), MLX, ["L_", "P"], domains=ML3)
case("ml_LinearRegressor", 17, ml("LinearRegressor", ["X"], ["Y"], targets=2, coefficients=[1.0] * 6,
                                  intercepts=[0.0, 1.0]), MLX, ["Y"], domains=ML3)
case("ml_SVMClassifier_binary", 17,
     ml("SVMClassifier", ["X"], ["L_", "P"], classlabels_ints=[0, 1], kernel_type="LINEAR", kernel_params=[0.001, 0.0, 3.0], vectors_per_class=[1, 1],
        support_vectors=[1.0] * 6, coefficients=[1.0, -1.0], rho=[0.0]), MLX, ["L_", "P"], domains=ML3)
case("ml_SVMClassifier_3", 17,
     ml("SVMClassifier", ["X"], ["L_", "P"], classlabels_ints=[0, 1, 2], kernel_type="LINEAR", kernel_params=[0.001, 0.0, 3.0],
        vectors_per_class=[1, 1, 1], support_vectors=[1.0] * 9, coefficients=[1.0] * 6, rho=[0.0] * 3), MLX,
     ["L_", "P"], domains=ML3)
case("ml_SVMRegressor", 17, ml("SVMRegressor", ["X"], ["Y"], n_supports=2, kernel_type="LINEAR", kernel_params=[0.001, 0.0, 3.0],
                               support_vectors=[1.0] * 6, coefficients=[1.0, 2.0], rho=[0.0]), MLX, ["Y"], domains=ML3)
case("ml_LabelEncoder2", 17, ml("LabelEncoder", ["X"], ["Y"], keys_strings=["a", "b"], values_int64s=[1, 2]),
     [("X", STR, ["N", "W"])], ["Y"], fills={"X": {"value": ["a", "c"]}}, domains={"ai.onnx.ml": 2})
case("ml_LabelEncoder4_tensors", 21,
     ml("LabelEncoder", ["X"], ["Y"], keys_tensor=helper.make_tensor("k", TP.INT64, [2], [1, 2]),
        values_tensor=helper.make_tensor("v", TP.FLOAT, [2], [0.5, 1.5])),
     [("X", I, ["N", "W"])], ["Y"], domains={"ai.onnx.ml": 4})
case("ml_CategoryMapper", 17, ml("CategoryMapper", ["X"], ["Y"], cats_strings=["a", "b"], cats_int64s=[1, 2]),
     [("X", STR, ["N"])], ["Y"], fills={"X": {"value": ["a"]}}, domains=ML3)
case("ml_ArrayFeatureExtractor", 17, ml("ArrayFeatureExtractor", ["X", "i"], ["Y"]), [("X", F, ["N", 5])], ["Y"],
     {"i": I64(0, 3)}, domains=ML3)
case("ml_OneHotEncoder", 17, ml("OneHotEncoder", ["X"], ["Y"], cats_int64s=[1, 2, 3]), [("X", I, ["N", 2])], ["Y"],
     domains=ML3)
case("ml_FeatureVectorizer", 17, ml("FeatureVectorizer", ["A", "B"], ["Y"], inputdimensions=[2, 3]),
     [("A", F, ["N", 2]), ("B", F, ["N", 3])], ["Y"], domains=ML3)
case("ml_Binarizer", 17, ml("Binarizer", ["X"], ["Y"], threshold=0.5), MLX, ["Y"], domains=ML3)
case("ml_Normalizer", 17, ml("Normalizer", ["X"], ["Y"], norm="L2"), MLX, ["Y"], domains=ML3)
case("ml_Scaler_int", 17, ml("Scaler", ["X"], ["Y"], offset=[1.0], scale=[2.0]), [("X", I, ["N", 3])], ["Y"],
     domains=ML3)
case("ml_Imputer", 17, ml("Imputer", ["X"], ["Y"], imputed_value_floats=[0.0], replaced_value_float=1.0), MLX, ["Y"],
     domains=ML3)


# ---- More of opsets 19-26 --------------------------------------------------------------------------------

case("DeformConv22_strides_mask", 22,
     N("DeformConv", ["X", "w", "off", "b", "mask"], ["Y"], strides=[2, 2], dilations=[1, 2], group=2, offset_group=2),
     [("X", F, ["N", 4, 7, 9]), ("off", F, ["N", 16, 3, 4]), ("mask", F, ["N", 8, 3, 4])], ["Y"],
     {"w": np.ones([6, 2, 2, 2], np.float32), "b": np.zeros([6], np.float32)})
case("RotaryEmbedding23_partial_interleaved", 23,
     N("RotaryEmbedding", ["X", "cos", "sin", "pos"], ["Y"], rotary_embedding_dim=4, interleaved=1),
     [("X", F, ["B", 2, "S", 8]), ("pos", I, ["B", "S"])], ["Y"],
     {"cos": np.ones([16, 2], np.float32), "sin": np.zeros([16, 2], np.float32)}, fills={"pos": {"int_range": [0, 16]}})
case("RotaryEmbedding23_no_pos", 23, N("RotaryEmbedding", ["X", "cos", "sin"], ["Y"]),
     [("X", F, ["B", 2, "S", 8]), ("cos", F, ["B", "S", 4]), ("sin", F, ["B", "S", 4])], ["Y"])
case("RMSNormalization23_axis1", 23, N("RMSNormalization", ["X", "s"], ["Y"], axis=1), X4, ["Y"],
     {"s": np.ones([1, 1, 1], np.float32)})
case("Attention23_mask4d_scale", 23, N("Attention", ["Q", "K_", "V", "mask"], ["Y"], scale=0.5),
     [("Q", F, ["B", 2, "S", 8]), ("K_", F, ["B", 2, "T", 8]), ("V", F, ["B", 2, "T", 8]),
      ("mask", F, ["B", 1, "S", "T"])], ["Y"])
case("Attention23_3d_present_qk", 23,
     N("Attention", ["Q", "K_", "V", "", "pk", "pv"], ["Y", "PK", "PV", "QK"], q_num_heads=2, kv_num_heads=2,
       qk_matmul_output_mode=1),
     [("Q", F, ["B", "S", 8]), ("K_", F, ["B", "T", 8]), ("V", F, ["B", "T", 6]),
      ("pk", F, ["B", 2, "L", 4]), ("pv", F, ["B", 2, "L", 3])], ["Y", "PK", "PV", "QK"])
case("CumProd26", 26, N("CumProd", ["X", "ax"], ["Y"]), X4, ["Y"], {"ax": np.array(1, np.int64)})
case("BitCast26", 26, N("BitCast", ["X"], ["Y"], to=TP.INT32), X4, ["Y"])

# ---- Opset 27 (ONNX 1.22): LinearAttention, CausalConvWithState; and ONNX Runtime's contrib forms --
# ONNX Runtime 1.30 runs opset 27 only with ALLOW_RELEASED_ONNX_OPSET_ONLY=0 (verify_newops.py sets it).
F16_ = TP.FLOAT16
MS_ = {"com.microsoft": 1}
QKV = [("q", F, ["B", "T", 20]), ("k", F, ["B", "T", 10]), ("v", F, ["B", "T", 12])]
LA = dict(q_num_heads=4, kv_num_heads=2)
for dom, opset, tag in (("", 27, "LinearAttention27"), ("com.microsoft", 26, "ms_LinearAttention")):
    doms = MS_ if dom else None
    case(f"{tag}_linear", opset, N("LinearAttention", ["q", "k", "v"], ["o", "s"], domain=dom, update_rule="linear", **LA),
         QKV, ["o", "s"], domains=doms)
    case(f"{tag}_gated_delta_past", opset, N("LinearAttention", ["q", "k", "v", "p", "d", "b"], ["o", "s"], domain=dom, **LA),
         QKV + [("p", F, ["B", 2, 5, 6]), ("d", F, ["B", "T", 2]), ("b", F, ["B", "T", 1])], ["o", "s"], domains=doms)
    case(f"{tag}_gated_full_decay", opset,
         N("LinearAttention", ["q", "k", "v", "", "d"], ["o", "s"], domain=dom, update_rule="gated", **LA),
         QKV + [("d", F, ["B", "T", 10])], ["o", "s"], domains=doms)
    case(f"{tag}_delta_f16_state_f32", opset,
         N("LinearAttention", ["q", "k", "v", "p", "", "b"], ["o", "s"], domain=dom, update_rule="delta", **LA),
         [("q", F16_, ["B", "T", 20]), ("k", F16_, ["B", "T", 10]), ("v", F16_, ["B", "T", 12]),
          ("p", F, ["B", 2, 5, 6]), ("b", F16_, ["B", "T", 2])], ["o", "s"], domains=doms)
    case(f"{tag}_mha_symbolic_value", opset,
         N("LinearAttention", ["q", "k", "v"], ["o", "s"], domain=dom, update_rule="linear", q_num_heads=2, kv_num_heads=2),
         [("q", F, ["B", "T", 8]), ("k", F, ["B", "T", 8]), ("v", F, ["B", "T", "M"])], ["o", "s"], domains=doms,
         sizes={"M": [4, 6, 10]})
    # ONNX Runtime expands CausalConvWithState-27 by its function body, which it builds only for a
    # weight of known channels; its contrib kernel takes symbolic ones.
    CH = "C" if dom else 4
    CW = [("x", F, ["B", CH, "L"]), ("w", F, [CH, 1, 3])]
    case(f"{tag.replace('LinearAttention', 'CausalConvWithState')}", opset,
         N("CausalConvWithState", ["x", "w"], ["y", "s"], domain=dom), CW, ["y", "s"], domains=doms)
    case(f"{tag.replace('LinearAttention', 'CausalConvWithState')}_bias_past_silu", opset,
         N("CausalConvWithState", ["x", "w", "bias", "p"], ["y", "s"], domain=dom, activation="silu"),
         CW + [("bias", F, [CH]), ("p", F, ["B", CH, 2])], ["y", "s"], domains=doms)
    case(f"{tag.replace('LinearAttention', 'CausalConvWithState')}_decode_f16", opset,
         N("CausalConvWithState", ["x", "w", "", "p"], ["y", "s"], domain=dom),
         [("x", F16_, ["B", 6, 1]), ("w", F16_, [6, 1, "K"]), ("p", F16_, ["B", 6, 3])], ["y", "s"], domains=doms,
         sizes={"K": [4, 4, 4]})
# Range-27 takes float16 and bfloat16.
case("Range27_f16", 27, N("Range", ["a", "b", "c"], ["Y"]), [], ["Y"],
     {"a": np.array(1, np.float16), "b": np.array(7.5, np.float16), "c": np.array(1.5, np.float16)})
case("Range27_f16_input_limit", 27, N("Range", ["a", "b", "c"], ["Y"]), [("b", F16_, [])], ["Y"],
     {"a": np.array(0, np.float16), "c": np.array(1, np.float16)})
case("ms_GatedRMSNorm", 17, N("GatedRMSNorm", ["x", "s", "g"], ["y"], domain="com.microsoft", epsilon=1e-6),
     [("x", F, ["B", "S", 8]), ("s", F, [4]), ("g", F, ["B", "S", 8])], ["y"], domains=MS_)


def gdn_block(contrib):
    """A Gated DeltaNet token mixer as Qwen3.5 exports use it: projection, causal depthwise conv
    with carried state (channels first), split into q/k/v, gated-delta linear attention with a
    recurrent state, a gated norm, output projection. ONNX's operators at opset 27, or ONNX
    Runtime's contrib forms (and its GatedRMSNorm)."""
    rng = np.random.default_rng(27)
    w = lambda *d: rng.standard_normal(d).astype(np.float32) * 0.1  # noqa: E731
    dom = "com.microsoft" if contrib else ""
    nodes = [N("MatMul", ["x", "w_qkv"], ["qkv"]), N("Transpose", ["qkv"], ["qkv_t"], perm=[0, 2, 1]),
             N("CausalConvWithState", ["qkv_t", "w_conv", "", "conv_past"], ["conv", "conv_present"], domain=dom,
               activation="silu"),
             N("Transpose", ["conv"], ["conv_t"], perm=[0, 2, 1]),
             N("Split", ["conv_t", "split"], ["q", "k", "v"], axis=2),
             N("MatMul", ["x", "w_a"], ["decay"]), N("MatMul", ["x", "w_b"], ["b_lin"]), N("Sigmoid", ["b_lin"], ["beta"]),
             N("LinearAttention", ["q", "k", "v", "state_past", "decay", "beta"], ["attn", "state_present"], domain=dom,
               q_num_heads=2, kv_num_heads=2),
             N("MatMul", ["x", "w_g"], ["gate"])]
    if contrib:
        nodes.append(N("GatedRMSNorm", ["attn", "norm_scale", "gate"], ["normed"], domain=dom))
    else:
        nodes += [N("Sigmoid", ["gate"], ["gate_s"]), N("Mul", ["attn", "gate_s"], ["normed"])]
    nodes.append(N("MatMul", ["normed", "w_o"], ["out"]))
    inits = {"w_qkv": w(16, 24), "w_conv": w(24, 1, 4), "split": I64(8, 8, 8), "w_a": w(16, 2), "w_b": w(16, 2),
             "w_g": w(16, 8), "w_o": w(8, 16)}
    if contrib:
        inits["norm_scale"] = np.ones(4, np.float32)
    case("ms_GDN_block" if contrib else "GDN27_block", 26 if contrib else 27, nodes,
         [("x", F, ["B", "T", 16]), ("conv_past", F, ["B", 24, 3]), ("state_past", F, ["B", 2, 4, 4])],
         ["out", "conv_present", "state_present", "q", "attn"], inits, domains=MS_ if contrib else None)


gdn_block(False)
gdn_block(True)
case("ms_LinearAttention_key_heads", 26,
     N("LinearAttention", ["q", "k", "v"], ["o", "s"], domain="com.microsoft", update_rule="linear", **LA),
     [("q", F, ["B", "T", 20]), ("k", F, ["B", "T", 5]), ("v", F, ["B", "T", 12])], ["o", "s"], domains=MS_)
case("ms_LinearAttention_inverse_gqa", 26,
     N("LinearAttention", ["q", "k", "v"], ["o", "s"], domain="com.microsoft", update_rule="linear", q_num_heads=2,
       kv_num_heads=4),
     [("q", F, ["B", "T", 10]), ("k", F, ["B", "T", 10]), ("v", F, ["B", "T", 24])], ["o", "s"], domains=MS_)
case("ms_CausalConvWithState_dilation_channels_last", 26,
     N("CausalConvWithState", ["x", "w", "", "p"], ["y", "s"], domain="com.microsoft", dilation=2, channels_last=1),
     [("x", F, ["B", "L", "C"]), ("w", F, ["C", 1, 3]), ("p", F, ["B", 4, "C"])], ["y", "s"], domains=MS_)


# ---- Element types: mixed-type operators and float16 ----------------------------------------------------

H16 = TP.FLOAT16
X16 = [("X", H16, ["N", 4, "H", "W"])]
case("LayerNormalization17_fp16_stats", 17, N("LayerNormalization", ["X", "s"], ["Y", "Mean", "InvStd"], axis=-1),
     [("X", H16, ["N", "L", 6])], ["Y", "Mean", "InvStd"], {"s": np.ones([6], np.float16)})
case("GroupNormalization21_fp16", 21, N("GroupNormalization", ["X", "s", "b"], ["Y"], num_groups=2), X16, ["Y"],
     {"s": np.ones([4], np.float16), "b": np.zeros([4], np.float16)})
case("RMSNormalization23_fp16", 23, N("RMSNormalization", ["X", "s"], ["Y"]), [("X", H16, ["N", "L", 6])], ["Y"],
     {"s": np.ones([6], np.float16)})
case("Attention23_fp16", 23, N("Attention", ["Q", "K_", "V"], ["Y"]),
     [("Q", H16, ["B", 2, "S", 8]), ("K_", H16, ["B", 2, "T", 8]), ("V", H16, ["B", 2, "T", 8])], ["Y"])
case("Pow15_int_exponent", 15, N("Pow", ["A", "B"], ["Y"]), [("A", F, ["N", "W"]), ("B", I, [1])], ["Y"],
     fills={"B": {"value": [2]}})
case("Pow15_int_base_float_exp", 15, N("Pow", ["A", "B"], ["Y"]), [("A", TP.INT32, ["N", "W"]), ("B", F, [])], ["Y"],
     fills={"B": {"value": [2]}})
case("MatMulInteger10_int8", 10, N("MatMulInteger", ["A", "B"], ["Y"]), [("A", TP.INT8, ["N", 4])], ["Y"],
     {"B": np.ones([4, 2], np.int8)})
case("QLinearMatMul21_int8", 21, N("QLinearMatMul", ["A", "as", "az", "B", "bs", "bz", "ys", "yz"], ["Y"]),
     [("A", TP.INT8, ["N", 4])], ["Y"],
     {"as": F32(0.1), "az": np.array(0, np.int8), "B": np.ones([4, 3], np.int8), "bs": F32(0.1),
      "bz": np.array(0, np.int8), "ys": F32(0.2), "yz": np.array(0, np.int8)})
case("Where16_string", 16, N("Where", ["c", "A", "B"], ["Y"]),
     [("c", BOOL, ["N", 1]), ("A", STR, ["W"]), ("B", STR, [1])], ["Y"],
     fills={"A": {"value": ["a"]}, "B": {"value": ["b"]}})
case("Gather13_bool", 13, N("Gather", ["X", "i"], ["Y"]), [("X", BOOL, ["N", "W"])], ["Y"], {"i": I64(0)})
case("TopK11_int32", 11, N("TopK", ["X", "k"], ["V", "I"]), [("X", TP.INT32, ["N", "W"])], ["V", "I"], {"k": I64(1)})
case("Clip13_inputs_int", 13, N("Clip", ["X", "lo", "hi"], ["Y"]), [("X", TP.INT32, ["N", "W"])], ["Y"],
     {"lo": np.array(1, np.int32), "hi": np.array(5, np.int32)})
case("Mean13_fp16_bcast", 13, N("Mean", ["A", "B"], ["Y"]), [("A", H16, ["N", 1]), ("B", H16, ["W"])], ["Y"])
case("Softmax13_fp16", 13, N("Softmax", ["X"], ["Y"], axis=1), X16, ["Y"])
case("ReduceMean18_fp16", 18, N("ReduceMean", ["X", "a"], ["Y"], keepdims=0), X16, ["Y"], {"a": I64(1)})
case("CastLike19_fp16", 19, N("CastLike", ["X", "l"], ["Y"]), X4, ["Y"], {"l": np.zeros([1], np.float16)})
case("Einsum12_int64", 12, N("Einsum", ["A"], ["Y"], equation="ij->j"), [("A", I, ["N", "W"])], ["Y"])
case("ArgMax13_int8", 13, N("ArgMax", ["X"], ["Y"], axis=0, keepdims=0), [("X", TP.INT8, ["N", "W"])], ["Y"])
case("Shape15_fp16", 15, N("Shape", ["X"], ["Y"]), X16, ["Y"])
case("Equal13_int_bcast", 13, N("Equal", ["A", "B"], ["Y"]), [("A", I, ["N", 1]), ("B", I, ["W"])], ["Y"])
case("BitwiseAnd18_int64", 18, N("BitwiseAnd", ["A", "B"], ["Y"]), [("A", I, ["N", "W"]), ("B", I, [])], ["Y"])
case("IsNaN20_fp16", 20, N("IsNaN", ["X"], ["Y"]), X16, ["Y"])
case("Gelu20_fp16", 20, N("Gelu", ["X"], ["Y"]), X16, ["Y"])
case("GridSample20_fp16", 20, N("GridSample", ["X", "g"], ["Y"]), X16 + [("g", H16, ["N", "S", "T", 2])], ["Y"])
case("DFT20_fp16", 20, N("DFT", ["X"], ["Y"]), [("X", H16, ["N", "L", 2])], ["Y"])
case("AffineGrid20_fp16", 20, N("AffineGrid", ["theta", "size"], ["G"]), [("theta", H16, [2, 2, 3])], ["G"],
     {"size": I64(2, 3, 5, 7)})
case("Resize19_fp16_sizes", 19, N("Resize", ["X", "", "", "sz"], ["Y"]), X16, ["Y"], {"sz": I64(1, 4, 3, 3)},
     sizes={"N": [1, 1, 1]})
case("DequantizeLinear21_int4_block", 21,
     [N("QuantizeLinear", ["X", "s"], ["q"], axis=1, block_size=3, output_dtype=INT4),
      N("DequantizeLinear", ["q", "s"], ["Y"], axis=1, block_size=3)],
     [("X", F, ["N", 6])], ["Y"], {"s": np.full([1, 2], 0.1, np.float32)}, sizes={"N": [1, 1, 1]})


# ---- Broadcasting where a symbolic dim is 1 at some bindings ----------------------------------------------

ONES = {"P": [1, 3, 3], "Q": [3, 3, 1], "W": [4, 1, 2]}
case("Add_sym_bcast_ones", 14, N("Add", ["A", "B"], ["Y"]), [("A", F, ["P", "W"]), ("B", F, ["Q", 1])], ["Y"], sizes=ONES)
case("Where_sym_bcast_ones", 16, N("Where", ["c", "A", "B"], ["Y"]),
     [("c", BOOL, ["P", 1]), ("A", F, ["Q", "W"]), ("B", F, [1])], ["Y"], sizes=ONES)
case("Sum_sym_bcast_ones", 13, N("Sum", ["A", "B", "C"], ["Y"]),
     [("A", F, ["P"]), ("B", F, ["Q"]), ("C", F, [1])], ["Y"], sizes=ONES)
case("MatMul_sym_batch_bcast", 13, N("MatMul", ["A", "B"], ["Y"]),
     [("A", F, ["P", 2, 3]), ("B", F, ["Q", 3, 4])], ["Y"], sizes=ONES)
case("Expand_sym_shape_ones", 13, [N("Shape", ["S"], ["s"]), N("Expand", ["X", "s"], ["Y"])],
     [("X", F, ["P", 1]), ("S", F, ["Q", "W"])], ["Y"], sizes=ONES)
case("BitwiseOr_sym_bcast_ones", 18, N("BitwiseOr", ["A", "B"], ["Y"]),
     [("A", TP.INT32, ["P", 1]), ("B", TP.INT32, ["Q", "W"])], ["Y"], sizes=ONES)
case("Attention_mask_sym_bcast", 23, N("Attention", ["Q_", "K_", "V", "mask"], ["Y"]),
     [("Q_", F, ["P", 2, 3, 8]), ("K_", F, ["P", 2, 5, 8]), ("V", F, ["P", 2, 5, 8]), ("mask", F, ["Q", 1, 3, 5])],
     ["Y"], sizes={"P": [1, 3, 3], "Q": [1, 3, 1]})
case("Einsum_sym_bcast", 12, N("Einsum", ["A", "B"], ["Y"], equation="...i,...i->..."),
     [("A", F, ["P", 4]), ("B", F, ["Q", 4])], ["Y"], sizes=ONES)

# ---- Experimental operators removed in opset 10 (ONNX Runtime still runs them under opsets 7-9) ----------

XC = [("X", F, ["N", "C", "H", "W"])]
case("ImageScaler8_bias_sets_C", 8, N("ImageScaler", ["X"], ["Y"], scale=0.5, bias=[1.0, 2.0, 3.0]), XC, ["Y"],
     sizes={"C": [3, 3, 3]}, ir=3)
case("Crop8_border", 8, N("Crop", ["X"], ["Y"], border=[1, 2, 3, 4]), XC, ["Y"],
     sizes={"H": [6, 11, 8], "W": [4, 9, 5]}, ir=3)
case("Crop9_border_scale", 9, N("Crop", ["X"], ["Y"], border=[1, 2, 0, 0], scale=[3, 2]), XC, ["Y"],
     sizes={"H": [5, 11, 8], "W": [3, 9, 5]}, ir=4)
case("Affine7", 7, N("Affine", ["X"], ["Y"], alpha=2.0, beta=0.5), XC, ["Y"], ir=3)
case("ScaledTanh8", 8, N("ScaledTanh", ["X"], ["Y"], alpha=2.0, beta=0.5), [("X", F, ["N", "L"])], ["Y"], ir=3)
case("ParametricSoftplus9", 9, N("ParametricSoftplus", ["X"], ["Y"], alpha=2.0, beta=0.5), XC, ["Y"], ir=4)
case("Scale7", 7, N("Scale", ["X"], ["Y"], scale=3.0), [("X", F, ["L"])], ["Y"], ir=3)
case("ThresholdedRelu8", 8, N("ThresholdedRelu", ["X"], ["Y"], alpha=0.5), XC, ["Y"], ir=3)
case("MeanVarianceNormalization7_across", 7, N("MeanVarianceNormalization", ["X"], ["Y"], across_channels=1), XC,
     ["Y"], ir=3)
case("MeanVarianceNormalization8_rank2", 8, N("MeanVarianceNormalization", ["X"], ["Y"]), [("X", F, ["N", "L"])],
     ["Y"], ir=3)
case("DynamicSlice8_axes", 8, N("DynamicSlice", ["X", "starts", "ends", "axes"], ["Y"]), XC, ["Y"],
     {"starts": I64(1, -3), "ends": I64(1000, -1), "axes": I64(3, 2)}, ir=3)
case("DynamicSlice9_int32_no_axes", 9, N("DynamicSlice", ["X", "starts", "ends"], ["Y"]), XC, ["Y"],
     {"starts": np.array([0, 1], np.int32), "ends": np.array([-1, 2], np.int32)}, ir=4)
case("Legacy8_scaler_crop_conv", 8,
     [N("ImageScaler", ["X"], ["s"], scale=0.25, bias=[0.0, 0.5, 1.0]),
      N("Conv", ["s", "Wc"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
      N("Crop", ["c"], ["Y"], border=[0, 1, 1, 0])], XC, ["Y"],
     {"Wc": np.ones([2, 3, 3, 3], np.float32)}, sizes={"C": [3, 3, 3], "H": [5, 8, 7], "W": [7, 4, 9]}, ir=3)
# The head of WinMLTools' Tiny YOLOv2 (opset 8): ImageScaler, then Conv/BatchNormalization/LeakyRelu
# stages with stride-2 pools, a stride-1 pool padded at the end, and a 1x1 convolution.
tiny = [N("ImageScaler", ["X"], ["s"], scale=1 / 255, bias=[0.0, 0.0, 0.0])]
prev, ch = "s", 3
for i, (out_ch, pool) in enumerate([(4, (2, [0, 0, 0, 0])), (8, (2, [0, 0, 0, 0])), (8, (1, [0, 0, 1, 1]))]):
    tiny += [N("Conv", [prev, f"w{i}"], [f"c{i}"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             N("BatchNormalization", [f"c{i}", f"g{i}", f"b{i}", f"m{i}", f"v{i}"], [f"n{i}"], epsilon=1e-5),
             N("LeakyRelu", [f"n{i}"], [f"l{i}"], alpha=0.1),
             N("MaxPool", [f"l{i}"], [f"p{i}"], kernel_shape=[2, 2], strides=[pool[0]] * 2, pads=pool[1])]
    prev, ch = f"p{i}", out_ch
tiny.append(N("Conv", [prev, "wh", "bh"], ["Y"], kernel_shape=[1, 1]))
tiny_inits = {"wh": np.ones([5, 8, 1, 1], np.float32), "bh": np.zeros([5], np.float32)}
for i, (cin, cout) in enumerate([(3, 4), (4, 8), (8, 8)]):
    tiny_inits.update({f"w{i}": np.ones([cout, cin, 3, 3], np.float32), f"g{i}": np.ones([cout], np.float32),
                       f"b{i}": np.zeros([cout], np.float32), f"m{i}": np.zeros([cout], np.float32),
                       f"v{i}": np.ones([cout], np.float32)})
case("Legacy8_tiny_yolo_head", 8, tiny, XC, ["Y"], tiny_inits,
     sizes={"C": [3, 3, 3], "H": [13, 16, 8], "W": [9, 20, 4]}, ir=3)


# ---- ONNX Runtime contrib operators (com.microsoft; SimplifiedLayerNormalization in the default domain) ----

MS = {"com.microsoft": 1}


def ms(op, ins, outs, **kw):
    return N(op, ins, outs, domain="com.microsoft", **kw)


U8, I8, U16, F16 = TP.UINT8, TP.INT8, TP.UINT16, TP.FLOAT16
XS = [("X", F, ["N", "S", 8])]
BIAS8 = {"bias": F32(*range(8))}
case("ms_Gelu", 17, ms("Gelu", ["X"], ["Y"]), XS, ["Y"], domains=MS)
case("ms_QuickGelu", 17, ms("QuickGelu", ["X"], ["Y"], alpha=1.5), XS, ["Y"], domains=MS)
case("ms_FastGelu_bias", 17, ms("FastGelu", ["X", "bias"], ["Y"]), XS, ["Y"], BIAS8, domains=MS)
case("ms_FastGelu", 17, ms("FastGelu", ["X"], ["Y"]), [("X", F, ["N", "T"])], ["Y"], domains=MS)
case("ms_BiasGelu", 17, ms("BiasGelu", ["X", "bias"], ["Y"]), XS, ["Y"], BIAS8, domains=MS)
case("ms_BiasGelu_dynamic_hidden", 17, ms("BiasGelu", ["X", "bias"], ["Y"]),
     [("X", F, ["N", "S", "H"]), ("bias", F, ["H"])], ["Y"], domains=MS)
LN = {"gamma": F32(*([1.0] * 8)), "beta": F32(*([0.0] * 8)), "bias": F32(*([0.5] * 8))}
case("ms_SkipLayerNormalization", 17,
     ms("SkipLayerNormalization", ["X", "skip", "gamma", "beta", "bias"], ["Y", "mean", "inv_std", "sum"],
        epsilon=1e-5), XS + [("skip", F, ["N", "S", 8])], ["Y", "mean", "inv_std", "sum"], LN, domains=MS)
# float16 activations: mean and inv_std_var stay float (type constraint U), one per row; 2-D input.
LN16 = {k: v.astype(np.float16) for k, v in LN.items()}
case("ms_SkipLayerNormalization_f16_2d", 17,
     ms("SkipLayerNormalization", ["X", "skip", "gamma", "beta"], ["Y", "mean", "inv_std"], epsilon=1e-5),
     [("X", TP.FLOAT16, ["T", 8]), ("skip", TP.FLOAT16, ["T", 8])], ["Y", "mean", "inv_std"],
     {"gamma": LN16["gamma"], "beta": LN16["beta"]}, domains=MS)
case("ms_SkipLayerNormalization_min", 17, ms("SkipLayerNormalization", ["X", "skip", "gamma"], ["Y"]),
     XS + [("skip", F, ["N", "S", 8])], ["Y"], {"gamma": LN["gamma"]}, domains=MS)
case("ms_SkipSimplifiedLayerNormalization", 17,
     ms("SkipSimplifiedLayerNormalization", ["X", "skip", "gamma", "bias"], ["Y", "", "", "sum"], epsilon=1e-5),
     XS + [("skip", F, ["N", "S", 8])], ["Y", "sum"], {"gamma": LN["gamma"], "bias": LN["bias"]}, domains=MS)
case("SimplifiedLayerNormalization_ort", 17, N("SimplifiedLayerNormalization", ["X", "scale"], ["Y"], epsilon=1e-5),
     XS, ["Y"], {"scale": LN["gamma"]})
case("SimplifiedLayerNormalization_axis", 17,
     N("SimplifiedLayerNormalization", ["X", "scale"], ["Y"], axis=1),
     [("X", F, ["N", 2, 4])], ["Y"], {"scale": np.ones((2, 4), np.float32)})
case("ms_FusedMatMul", 17, ms("FusedMatMul", ["A", "B"], ["Y"], alpha=2.0),
     [("A", F, ["N", "M", 8]), ("B", F, [8, "K"])], ["Y"], domains=MS)
case("ms_FusedMatMul_transB", 17, ms("FusedMatMul", ["A", "B"], ["Y"], transB=1),
     [("A", F, ["N", "M", 8]), ("B", F, ["K", 8])], ["Y"], domains=MS)
case("ms_FusedMatMul_transA_batch", 17, ms("FusedMatMul", ["A", "B"], ["Y"], transA=1),
     [("A", F, ["B", 8, "M"]), ("B", F, ["B", 8, "K"])], ["Y"], domains=MS)
case("ms_FusedMatMul_transAB_bcast", 17, ms("FusedMatMul", ["A", "B"], ["Y"], transA=1, transB=1),
     [("A", F, [8, "M"]), ("B", F, ["N", "K", 8])], ["Y"], domains=MS)
case("ms_FusedConv", 17, ms("FusedConv", ["X", "W", "Bc"], ["Y"], activation="Relu", pads=[1, 1, 1, 1],
                            strides=[2, 2], kernel_shape=[3, 3]),
     [("X", F, ["N", 3, "H", "W"])], ["Y"], {"W": np.ones((4, 3, 3, 3), np.float32), "Bc": F32(1, 2, 3, 4)},
     domains=MS)
case("ms_FusedConv_sum", 17, ms("FusedConv", ["X", "W", "Bc", "Z"], ["Y"], activation="Relu"),
     [("X", F, ["N", 3, "H", "W"]), ("Z", F, ["N", 4, "H", "W"])], ["Y"],
     {"W": np.ones((4, 3, 1, 1), np.float32), "Bc": F32(1, 2, 3, 4)}, domains=MS)
# MatMulNBits: K = 32 in blocks of 16, 4 bits: B is [N, 2 blocks, 8 bytes], one scale per block.
case("ms_MatMulNBits", 17, ms("MatMulNBits", ["A", "Bq", "scales"], ["Y"], K=32, N=6, bits=4, block_size=16),
     [("A", F, ["N", "S", 32])], ["Y"],
     {"Bq": np.full((6, 2, 8), 0x88, np.uint8), "scales": np.full((12,), 0.5, np.float32)}, domains=MS)
case("ms_MatMulNBits_2d", 17, ms("MatMulNBits", ["A", "Bq", "scales"], ["Y"], K=32, N=6, bits=4, block_size=16),
     [("A", F, ["M", 32])], ["Y"],
     {"Bq": np.full((6, 2, 8), 0x88, np.uint8), "scales": np.full((12,), 0.5, np.float32)}, domains=MS)
QS = {"sa": np.array(0.1, np.float32), "za": np.array(128, np.uint8), "sb": np.array(0.2, np.float32),
      "zb": np.array(120, np.uint8), "sc": np.array(0.3, np.float32), "zc": np.array(100, np.uint8)}
for op in ("QLinearAdd", "QLinearMul"):
    case(f"ms_{op}", 17, ms(op, ["A", "sa", "za", "B", "sb", "zb", "sc", "zc"], ["C"]),
         [("A", U8, ["N", "H", "W"]), ("B", U8, ["W"])], ["C"], QS, domains=MS)
    case(f"ms_{op}_bcast", 17, ms(op, ["A", "sa", "za", "B", "sb", "zb", "sc", "zc"], ["C"]),
         [("A", U8, ["N", 1, "W"]), ("B", U8, ["H", 1])], ["C"], QS, domains=MS)
case("ms_QLinearSigmoid", 17, ms("QLinearSigmoid", ["X", "sa", "za", "sc", "zc"], ["Y"]),
     [("X", U8, ["N", "H", "W"])], ["Y"], QS, domains=MS)
case("ms_QLinearLeakyRelu", 17, ms("QLinearLeakyRelu", ["X", "sa", "za", "sc", "zc"], ["Y"], alpha=0.1),
     [("X", U8, ["N", "H", "W"])], ["Y"], QS, domains=MS)
case("ms_QLinearGlobalAveragePool", 17, ms("QLinearGlobalAveragePool", ["X", "sa", "za", "sc", "zc"], ["Y"]),
     [("X", U8, ["N", 4, "H", "W"])], ["Y"], QS, domains=MS)
case("ms_QLinearGlobalAveragePool_nhwc", 17,
     ms("QLinearGlobalAveragePool", ["X", "sa", "za", "sc", "zc"], ["Y"], channels_last=1),
     [("X", U8, ["N", "H", "W", 4])], ["Y"], QS, domains=MS)
case("ms_QuantizeLinear_int8", 17, ms("QuantizeLinear", ["X", "sa", "z8"], ["Y"]), [("X", F, ["N", "H"])], ["Y"],
     {"sa": QS["sa"], "z8": np.array(3, np.int8)}, domains=MS)
case("ms_QuantizeLinear_uint16", 17, ms("QuantizeLinear", ["X", "sa", "z16"], ["Y"]), [("X", F, ["N", "H"])],
     ["Y"], {"sa": QS["sa"], "z16": np.array(300, np.uint16)}, domains=MS)
case("ms_QuantizeLinear_no_zp", 17, ms("QuantizeLinear", ["X", "sa"], ["Y"]), [("X", F, ["N", "H"])], ["Y"],
     {"sa": QS["sa"]}, domains=MS)
case("ms_DequantizeLinear", 17, ms("DequantizeLinear", ["X", "sa", "z8"], ["Y"]), [("X", I8, ["N", "H"])], ["Y"],
     {"sa": QS["sa"], "z8": np.array(3, np.int8)}, domains=MS)
case("ms_DequantizeLinear_axis", 17, ms("DequantizeLinear", ["X", "s4", "z4"], ["Y"], axis=1),
     [("X", U8, ["N", 4, "H"])], ["Y"], {"s4": F32(0.1, 0.2, 0.3, 0.4), "z4": np.array([1, 2, 3, 4], np.uint8)},
     domains=MS)
case("ms_DynamicQuantizeMatMul", 17, ms("DynamicQuantizeMatMul", ["A", "Bq", "sb", "zb8"], ["Y"]),
     [("A", F, ["N", "M", 8])], ["Y"],
     {"Bq": np.ones((8, 5), np.int8), "sb": np.array([0.5], np.float32), "zb8": np.array([0], np.int8)},
     domains=MS)
case("ms_MatMulIntegerToFloat", 17, ms("MatMulIntegerToFloat", ["A", "Bq", "sa", "sb", "za"], ["Y"]),
     [("A", U8, ["N", "M", 8])], ["Y"],
     {"Bq": np.ones((8, 5), np.int8), "sa": np.array(0.1, np.float32), "sb": np.array(0.2, np.float32),
      "za": np.array(128, np.uint8)}, domains=MS)
# RotaryEmbedding: [batch, seq, hidden] with 2 heads of 8; position ids below the caches' 16 rows.
case("ms_RotaryEmbedding", 17, ms("RotaryEmbedding", ["X", "pos", "cos", "sin"], ["Y"], num_heads=2),
     [("X", F, ["N", "S", 16]), ("pos", I, ["N", "S"])], ["Y"],
     {"cos": np.ones((16, 4), np.float32), "sin": np.zeros((16, 4), np.float32)},
     fills={"pos": {"int_range": [0, 10]}}, domains=MS)

# MRotaryEmbedding (Qwen2-VL-style multimodal rotary): input [B, S, hidden] or [B, N, S, H],
# position_ids [3, B, S] (temporal, height, width rows); the sections add up to half the rotary dim.
case("ms_MRotaryEmbedding_3d", 17,
     ms("MRotaryEmbedding", ["X", "pos", "cos", "sin"], ["Y"], num_heads=2, mrope_section=[2, 1, 1]),
     [("X", F, ["N", "S", 16]), ("pos", I, [3, "N", "S"])], ["Y"],
     {"cos": np.ones((16, 4), np.float32), "sin": np.zeros((16, 4), np.float32)},
     fills={"pos": {"int_range": [0, 10]}}, domains=MS)
case("ms_MRotaryEmbedding_4d_partial", 17,
     ms("MRotaryEmbedding", ["X", "pos", "cos", "sin"], ["Y"], num_heads=2, rotary_embedding_dim=4, mrope_section=[1, 1, 0],
        interleaved=1),
     [("X", F, ["N", 2, "S", 8]), ("pos", I, [3, "N", "S"])], ["Y"],
     {"cos": np.ones((16, 2), np.float32), "sin": np.zeros((16, 2), np.float32)},
     fills={"pos": {"int_range": [0, 10]}}, domains=MS)


# ONNX Runtime 1.30's CPU contrib operators of the newest model families (Gated DeltaNet's gates,
# Engram's n-gram memory) and its older signal/text/decoding helpers.
HEADS4 = {"dt": np.zeros(4, np.float32), "ds": -np.ones(4, np.float32)}
case("ms_LinearAttentionGate", 17, ms("LinearAttentionGate", ["a", "dt", "ds", "b"], ["decay", "beta"]),
     [("a", F, ["N", "S", 4]), ("b", F, ["N", "S", 4])], ["decay", "beta"], HEADS4, domains=MS)
case("ms_LinearAttentionGate_decay_only", 17, ms("LinearAttentionGate", ["a", "dt", "ds"], ["decay"]),
     [("a", TP.FLOAT16, ["S", 4])], ["decay"], HEADS4, domains=MS)
case("ms_LinearAttentionGate_dynamic_heads", 17, ms("LinearAttentionGate", ["a", "dt", "ds"], ["decay"]),
     [("a", F, ["N", "S", "K", "H"]), ("dt", F, ["H"]), ("ds", F, ["H"])], ["decay"], domains=MS)
ENGRAM = {"ks": np.ones((2, 8), np.float32), "qs": np.ones((2, 8), np.float32)}
case("ms_EngramGate", 17, ms("EngramGate", ["k", "q", "v", "ks", "qs"], ["o"], epsilon=1e-6),
     [("k", F, ["N", "S", 2, 8]), ("q", F, ["N", "S", 2, 8]), ("v", F, ["N", "S", 8])], ["o"], ENGRAM, domains=MS)
case("ms_EngramGate_unify", 17, ms("EngramGate", ["k", "q", "v", "ks", "qs"], ["o"]),
     [("k", F, ["N", "S", "K", "H"]), ("q", F, ["B", "T", "K", "H"]), ("v", F, ["N", "S", 8])], ["o"],
     {"ks": np.ones((3, 8), np.float32), "qs": np.ones((3, 8), np.float32)},
     sizes={"B": [1, 2, 3], "T": [3, 5, 2], "K": [3, 3, 3], "H": [8, 8, 8]},
     domains=MS)
case("ms_GatedAdd", 17, ms("GatedAdd", ["x", "y", "g"], ["o"]),
     [("x", F, ["N", "S", 8]), ("y", F, ["N", "S", 8]), ("g", F, ["N", "S", 1])], ["o"], domains=MS)
case("ms_GatedAdd_unify", 17, ms("GatedAdd", ["x", "y", "g"], ["o"]),
     [("x", F, ["N", "S", "C"]), ("y", F, ["B", "T", 8]), ("g", F, [2, "L", 1])], ["o"],
     sizes={"N": [2, 2, 2], "B": [2, 2, 2], "S": [3, 5, 2], "T": [3, 5, 2], "L": [3, 5, 2], "C": [8, 8, 8]},
     domains=MS)
case("ms_NGramHashMapping", 17,
     ms("NGramHashMapping", ["ids", "mul", "voc", "past"], ["hash", "present"], max_ngram_size=3, n_head_per_ngram=2,
        pad_id=0),
     [("ids", I, ["N", "S"]), ("past", I, ["N", 2])], ["hash", "present"],
     {"mul": np.array([3, 5, 7], np.int64), "voc": np.array([11, 13, 17, 19], np.int64)},
     fills={"ids": {"int_range": [0, 100]}, "past": {"int_range": [0, 100]}}, domains=MS)
case("ms_NGramHashMapping_int32", 17,
     ms("NGramHashMapping", ["ids", "mul", "voc"], ["hash", "present"], max_ngram_size=4, n_head_per_ngram=1, pad_id=1),
     [("ids", TP.INT32, ["N", "S"])], ["hash", "present"],
     {"mul": np.array([3, 5, 7, 9], np.int32), "voc": np.array([11, 13, 17], np.int32)},
     fills={"ids": {"int_range": [0, 100]}}, domains=MS)
case("ms_DynamicTimeWarping", 17, ms("DynamicTimeWarping", ["x"], ["y"]), [("x", F, ["M", "N"])], ["y"], domains=MS)
case("ms_DynamicTimeWarping_row", 17, ms("DynamicTimeWarping", ["x"], ["y"]), [("x", F, [1, 1, "M"])], ["y"],
     domains=MS)
case("ms_Tokenizer", 17, ms("Tokenizer", ["x"], ["y"], mark=1, mincharnum=1, pad_value="#", separators=[" "]),
     [("x", STR, [2, 3])], ["y"], fills={"x": {"value": ["a b c", "d", "e f"]}}, domains=MS)
case("ms_Tokenizer_symbolic", 17, ms("Tokenizer", ["x"], ["y"], mark=0, mincharnum=1, pad_value="#", tokenexp="[a-z]+"),
     [("x", STR, ["N"])], ["y"], fills={"x": {"value": ["ab cd", "e"]}}, domains=MS)
case("ms_BifurcationDetector", 17,
     ms("BifurcationDetector", ["s", "c", "p", "pr"], ["t", "i"], max_ngram_size=3, min_ngram_size=1),
     [("s", I, [6]), ("c", I, ["K"]), ("p", I, [])], ["t", "i"], {"pr": np.array([1, 2, 3, 4, 0, 1], np.int64)},
     fills={"s": {"int_range": [0, 5]}, "c": {"int_range": [0, 5]}, "p": {"value": [1]}}, domains=MS)
W233 = np.full((2, 3, 3, 3), 0.1, np.float32)
case("ms_ConvTransposeWithDynamicPads", 17,
     ms("ConvTransposeWithDynamicPads", ["x", "w", "pads", "b"], ["y"], strides=[2, 2], output_padding=[1, 0]),
     [("x", F, ["N", 2, "H", "W"])], ["y"], {"w": W233, "pads": np.array([1, 0, 0, 2], np.int64),
                                              "b": np.zeros(3, np.float32)}, domains=MS)
case("ms_ConvTransposeWithDynamicPads_valid", 17,
     ms("ConvTransposeWithDynamicPads", ["x", "w", "pads"], ["y"], auto_pad="VALID", dilations=[2, 1]),
     [("x", F, ["N", 2, "H", "W"])], ["y"], {"w": W233, "pads": np.array([1, 1, 1, 1], np.int64)}, domains=MS)
case("ms_ConvTransposeWithDynamicPads_same", 17,
     ms("ConvTransposeWithDynamicPads", ["x", "w", "pads"], ["y"], auto_pad="SAME_UPPER", strides=[2, 3]),
     [("x", F, ["N", 2, "H", "W"]), ("pads", I, [4])], ["y"], {"w": W233}, fills={"pads": {"value": [0, 1, 2, 0]}},
     domains=MS)
case("ms_ConvTransposeWithDynamicPads_input_pads", 17,
     ms("ConvTransposeWithDynamicPads", ["x", "w", "pads"], ["y"], group=2),
     [("x", F, ["N", 2, "L"]), ("pads", I, [2])], ["y"], {"w": np.ones((2, 2, 3), np.float32)},
     fills={"pads": {"value": [1, 0]}}, domains=MS)
# ONNX Runtime's WebGPU fusions of MatMulNBits have no CPU kernel: ONNX Runtime cannot run these
# two (listed as skipped); they give the type probe its nodes (unit tests check the shapes, which
# ONNX Runtime's loader infers alike: an Add of a mismatched tensor after them fails to load).
NB_BLOB = np.zeros((8, 1, 8), np.uint8)
NB_SC = np.ones((8,), np.float32)
case("ms_MatMulNBitsMlp", 17,
     ms("MatMulNBitsMlp", ["A", "skip", "ns", "gB", "gS", "", "uB", "uS"], ["Y", "sum"], K=16, N=8, bits=4, block_size=16,
        activation="silu"),
     [("A", F, ["N", "S", 16]), ("skip", F, ["N", "S", 16])], ["Y", "sum"],
     {"ns": np.ones(16, np.float32), "gB": NB_BLOB, "gS": NB_SC, "uB": NB_BLOB, "uS": NB_SC}, domains=MS)
case("ms_MatMulNBitsQkv", 17,
     ms("MatMulNBitsQkv", ["A", "", "ns", "qB", "qS", "", "kB", "kS", "", "vB", "vS"], ["Q", "K", "V"], K=16, Nq=8,
        Nkv=8, bits=4, block_size=16, epsilon=1e-5),
     [("A", F, ["N", "S", 16])], ["Q", "K", "V"],
     {"ns": np.ones(16, np.float32), "qB": NB_BLOB, "qS": NB_SC, "kB": NB_BLOB, "kS": NB_SC, "vB": NB_BLOB, "vS": NB_SC},
     domains=MS)
# Gated DeltaNet's packed recurrence and the packed causal convolution: CUDA and WebGPU kernels
# only, skipped like the two above (shapes: unit tests, from ONNX Runtime's own shape inference).
case("ms_GatedDeltaNet", 17,
     ms("GatedDeltaNet", ["q", "k", "v", "", "dec", "beta", "st"], ["o", "fs"]),
     [("q", F, ["T", 2, 8]), ("k", F, ["T", 2, 8]), ("v", F, ["T", 4, 6]), ("dec", F, ["T", 4]), ("beta", F, ["T", 4]),
      ("st", F, ["B", 4, 6, 8])], ["o", "fs"], domains=MS)
case("ms_VarlenCausalConvWithState", 17,
     ms("VarlenCausalConvWithState", ["x", "w", "cu", "", "st"], ["o", "fs"], dilation=2),
     [("x", F, ["T", 6]), ("st", F, [2, 6, 6])], ["o", "fs"],
     {"w": np.ones((6, 1, 4), np.float32), "cu": np.array([0, 2, 5], np.int32)}, domains=MS)
case("ms_ConvTransposeWithDynamicPads_shape_pads", 17,
     [N("Shape", ["x"], ["xs"]), N("Slice", ["xs", "s0", "s1"], ["two"]), N("Sub", ["two", "one"], ["p1"]),
      N("Concat", ["p1", "zero", "zero", "p1"], ["pads"], axis=0),
      ms("ConvTransposeWithDynamicPads", ["x", "w", "pads"], ["y"])],
     [("x", F, ["N", 2, 3, "W"])], ["y"],
     {"w": W233, "s0": np.array([0], np.int64), "s1": np.array([1], np.int64), "one": np.array([1], np.int64),
      "zero": np.array([0], np.int64)}, sizes={"N": [1, 2, 2]}, domains=MS)


# The generation loops, with a one-layer GPT-style decoder under ONNX Runtime's calling convention
# (input_ids, position_ids, attention_mask, past_0 -> logits, present_0): the logits pick token
# id + 1, so a prompt ending in id 4 stops at once on EOS 5 and the sizes must not depend on that.
GEN_VOCAB = 6


def gpt_decoder(vocab_dim=GEN_VOCAB):
    emb = np.zeros((GEN_VOCAB, GEN_VOCAB), np.float32)
    for i in range(GEN_VOCAB):
        emb[i, (i + 1) % GEN_VOCAB] = 1.0
    consts = {"emb": emb, "c2": I64(2), "c1": I64(1), "c4": I64(4), "z": F32(0), "s0": I64(0), "s1": I64(1),
              "s2": I64(2)}
    return helper.make_graph(
        [N("Gather", ["emb", "input_ids"], ["logits"], axis=0), N("Shape", ["input_ids"], ["sh"]),
         N("Slice", ["sh", "s0", "s1"], ["b"]), N("Slice", ["sh", "s1", "s2"], ["s"]),
         N("Concat", ["c2", "b", "c1", "s", "c4"], ["shp"], axis=0), N("Expand", ["z", "shp"], ["new"]),
         N("Concat", ["past_0", "new"], ["present_0"], axis=3)],
        "decoder",
        [vi("input_ids", TP.INT32, ["b", "s"]), vi("position_ids", TP.INT32, ["b", "s"]),
         vi("attention_mask", TP.INT32, ["b", "t"]), vi("past_0", F, [2, "b", 1, "p", 4])],
        [vi("logits", F, ["b", "s", vocab_dim]), vi("present_0", F, [2, "b", 1, "t", 4])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()])


I32 = TP.INT32
GEN_IDS = [("ids", I32, ["N", "S"])]
GEN_FILLS = {"ids": {"int_range": [0, GEN_VOCAB]}}


def i32(*v):
    return np.array(v, np.int32)


BEAM_INS = ["ids", "max_len", "min_len", "beams", "ret", "len_pen", "rep_pen"]
BEAM_INITS = {"max_len": i32(8), "min_len": i32(1), "beams": i32(3), "ret": i32(2), "len_pen": F32(1.0),
              "rep_pen": F32(1.0)}
GEN_ATTRS = {"eos_token_id": GEN_VOCAB - 1, "pad_token_id": 0, "model_type": 0}
case("ms_GreedySearch", 17, ms("GreedySearch", ["ids", "max_len"], ["seq"], decoder=gpt_decoder(), **GEN_ATTRS),
     GEN_IDS, ["seq"], {"max_len": i32(7)}, fills=GEN_FILLS, domains=MS)
case("ms_Sampling", 17,
     ms("Sampling", ["ids", "max_len", "min_len", "rep_pen"], ["seq"], decoder=gpt_decoder(), top_p=0.9, **GEN_ATTRS),
     GEN_IDS, ["seq"], {"max_len": i32(9), "min_len": i32(1), "rep_pen": F32(1.0)}, fills=GEN_FILLS, domains=MS)
case("ms_BeamSearch", 17,
     ms("BeamSearch", BEAM_INS, ["seq", "seq_scores", "scores"], decoder=gpt_decoder(), **GEN_ATTRS),
     GEN_IDS, ["seq", "seq_scores", "scores"], BEAM_INITS, fills=GEN_FILLS, domains=MS)
case("ms_BeamSearch_vocab_attr", 17,
     ms("BeamSearch", BEAM_INS, ["seq", "seq_scores", "scores"], decoder=gpt_decoder("V"), vocab_size=4,
        **GEN_ATTRS),
     GEN_IDS, ["seq", "seq_scores", "scores"], BEAM_INITS, fills=GEN_FILLS, domains=MS)
case("ms_BeamSearch_graph_inputs", 17,
     ms("BeamSearch", BEAM_INS, ["seq", "seq_scores", "scores"], decoder=gpt_decoder("V"), **GEN_ATTRS),
     GEN_IDS + [("max_len", I32, [1]), ("ret", I32, [1])], ["seq", "seq_scores", "scores"],
     {k: v for k, v in BEAM_INITS.items() if k not in ("max_len", "ret")},
     fills=dict(GEN_FILLS, max_len={"value": [7]}, ret={"value": [1]}), domains=MS)

# Operators ONNX Runtime has only CUDA kernels for: verify_newops.py checks them against ONNX
# Runtime's load-time shape inference (its load probes), which runs before the kernel lookup.
case("ms_GemmFastGelu", 17, ms("GemmFastGelu", ["X", "W", "b"], ["Y"]), XS, ["Y"],
     {"W": np.ones((8, 5), np.float32), "b": np.zeros((5,), np.float32)}, domains=MS)
case("ms_BiasSoftmax", 17, ms("BiasSoftmax", ["X", "B"], ["Y"], axis=2, is_inner_broadcast=0),
     XS + [("B", F, ["N", "S", 8])], ["Y"], domains=MS)
case("ms_BiasDropout", 17, ms("BiasDropout", ["X", "bias", "R"], ["Y", "mask"]), XS + [("R", F, ["N", "S", 8])],
     ["Y", "mask"], BIAS8, domains=MS)
case("ms_BitmaskDropout", 17, ms("BitmaskDropout", ["X"], ["Y"]), XS, ["Y"], domains=MS)
case("ms_TorchEmbedding", 17, ms("TorchEmbedding", ["W", "I"], ["Y"]), [("I", I, ["N", "S"])], ["Y"],
     {"W": np.ones((10, 6), np.float32)}, fills={"I": {"int_range": [0, 10]}}, domains=MS)
case("ms_RelativePositionBias", 17,
     [N("Shape", ["X"], ["xs"]), N("Gather", ["xs", "i1"], ["q"], axis=0),
      ms("RelativePositionBias", ["table", "q", "q"], ["Y"], max_distance=16, is_bidirectional=1)],
     XS, ["Y"], {"table": np.ones((32, 4), np.float32), "i1": np.array(1, np.int64)}, domains=MS)
case("ms_GatedRelativePositionBias", 17,
     ms("GatedRelativePositionBias", ["q", "qb", "rel", "w", "b", "eco"], ["Y"], num_heads=2),
     [("q", F, ["N", "S", 8]), ("rel", F, [1, 2, "S", "S"])], ["Y"],
     {"qb": np.zeros((8,), np.float32), "w": np.ones((4, 6), np.float32), "b": np.zeros((6,), np.float32),
      "eco": np.ones((1, 2, 1, 1), np.float32)}, domains=MS)
case("ms_RemovePadding", 17, ms("RemovePadding", ["X", "cnt"], ["Y", "off", "cum", "mx"]),
     [("X", F, ["N", "S", 8]), ("cnt", TP.INT32, ["N"])], ["Y", "off", "cum", "mx"], domains=MS)
case("ms_RestorePadding", 17, ms("RestorePadding", ["X", "off"], ["Y"]),
     [("X", F, ["T", 8]), ("off", TP.INT32, ["N", "S"])], ["Y"], domains=MS)
case("ms_NhwcConv", 17, ms("NhwcConv", ["X", "W", "B"], ["Y"], strides=[2, 1], pads=[1, 0, 1, 0]),
     [("X", F, ["N", "H", "W", 4])], ["Y"], {"W": np.ones((6, 4, 3, 2), np.float32), "B": np.zeros((6,), np.float32)},
     domains=MS)
case("ms_NhwcConv_group", 17, ms("NhwcConv", ["X", "W"], ["Y"], group=2, dilations=[2, 1], auto_pad="SAME_UPPER"),
     [("X", F, ["N", "H", "W", 4])], ["Y"], {"W": np.ones((6, 2, 3, 3), np.float32)}, domains=MS)
case("ms_BiasAdd", 17, ms("BiasAdd", ["X", "bias", "skip"], ["Y"]), XS + [("skip", F, ["N", "S", 8])], ["Y"], BIAS8,
     domains=MS)
case("ms_BiasSplitGelu", 17, ms("BiasSplitGelu", ["X", "bias"], ["Y"]), XS, ["Y"], BIAS8, domains=MS)
case("ms_GroupNorm", 17, ms("GroupNorm", ["X", "g", "b"], ["Y"], groups=2, activation=0, epsilon=1e-5),
     [("X", F, ["N", "H", "W", 4])], ["Y"], {"g": np.ones((4,), np.float32), "b": np.zeros((4,), np.float32)},
     domains=MS)
case("ms_SkipGroupNorm", 17, ms("SkipGroupNorm", ["X", "g", "b", "skip", "bias"], ["Y", "S_"], groups=2, activation=1,
                               epsilon=1e-5),
     [("X", F, ["N", "H", "W", 4]), ("skip", F, ["N", "H", "W", 4])], ["Y", "S_"],
     {"g": np.ones((4,), np.float32), "b": np.zeros((4,), np.float32), "bias": np.zeros((4,), np.float32)},
     domains=MS)
case("ms_QLinearReduceMean", 17,
     ms("QLinearReduceMean", ["X", "xs", "xz", "ys", "yz"], ["Y"], axes=[1], keepdims=0),
     [("X", U8, ["N", "S", 8])], ["Y"],
     {"xs": np.array(0.1, np.float32), "xz": np.array(3, np.uint8), "ys": np.array(0.2, np.float32),
      "yz": np.array(5, np.uint8)}, domains=MS)
case("ms_DecoderMaskedSelfAttention", 17,
     ms("DecoderMaskedSelfAttention", ["X", "Wqkv", "Bqkv", "", "past", "", "plen"], ["Y", "present"], num_heads=2,
        past_present_share_buffer=1),
     [("X", F, ["N", 1, 8]), ("past", F, [2, "N", 2, "P", 4]), ("plen", TP.INT32, [])], ["Y", "present"],
     {"Wqkv": np.full((8, 24), 0.1, np.float32), "Bqkv": np.zeros((24,), np.float32)}, sizes={"P": [3, 5, 6]},
     domains=MS)
case("ms_LongformerAttention", 17,
     ms("LongformerAttention", ["X", "W", "B", "mask", "gW", "gB", "g"], ["Y"], num_heads=2, window=2),
     XS + [("mask", F, ["N", "S"]), ("g", TP.INT32, ["N", "S"])], ["Y"],
     {"W": np.ones((8, 24), np.float32), "B": np.zeros((24,), np.float32), "gW": np.ones((8, 24), np.float32),
      "gB": np.zeros((24,), np.float32)}, domains=MS)
case("ms_PackedAttention", 17,
     ms("PackedAttention", ["X", "W", "B", "off", "cum"], ["Y"], num_heads=2, qkv_hidden_sizes=[8, 8, 4]),
     [("X", F, ["T", 8]), ("off", TP.INT32, ["N", "S"]), ("cum", TP.INT32, ["C"])], ["Y"],
     {"W": np.ones((8, 20), np.float32), "B": np.zeros((20,), np.float32)}, domains=MS)
case("ms_PackedMultiHeadAttention_qkv", 17,
     ms("PackedMultiHeadAttention", ["qkv", "", "", "", "off", "cum"], ["Y"], num_heads=2),
     [("qkv", F, ["T", 2, 3, 4]), ("off", TP.INT32, ["N", "S"]), ("cum", TP.INT32, ["C"])], ["Y"], domains=MS)
case("ms_PackedMultiHeadAttention", 17,
     ms("PackedMultiHeadAttention", ["q", "k", "v", "", "off", "cum"], ["Y"], num_heads=2),
     [("q", F, ["T", 8]), ("k", F, ["T", 8]), ("v", F, ["T", 6]), ("off", TP.INT32, ["N", "S"]),
      ("cum", TP.INT32, ["C"])], ["Y"], domains=MS)

# Attention: hidden 8 in 2 heads; packed weights [8, 24] or qkv_hidden_sizes (8, 8, 4).
case("ms_Attention", 17, ms("Attention", ["X", "Wqkv", "Bqkv"], ["Y"], num_heads=2), XS, ["Y"],
     {"Wqkv": np.full((8, 24), 0.1, np.float32), "Bqkv": np.zeros((24,), np.float32)}, domains=MS)
case("ms_Attention_qkv_sizes", 17,
     ms("Attention", ["X", "Wqkv", "Bqkv"], ["Y"], num_heads=2, qkv_hidden_sizes=[8, 8, 4]), XS, ["Y"],
     {"Wqkv": np.full((8, 20), 0.1, np.float32), "Bqkv": np.zeros((20,), np.float32)}, domains=MS)
case("ms_Attention_mask", 17, ms("Attention", ["X", "Wqkv", "Bqkv", "mask"], ["Y"], num_heads=2, unidirectional=1),
     XS + [("mask", TP.INT32, ["N", "S"])], ["Y"],
     {"Wqkv": np.full((8, 24), 0.1, np.float32), "Bqkv": np.zeros((24,), np.float32)},
     fills={"mask": {"value": [1]}}, domains=MS)
case("ms_MultiHeadAttention", 17, ms("MultiHeadAttention", ["Q", "K", "V"], ["Y"], num_heads=2),
     [("Q", F, ["N", "S", 8]), ("K", F, ["N", "L", 8]), ("V", F, ["N", "L", 8])], ["Y"], domains=MS)
case("ms_MultiHeadAttention_v6", 17, ms("MultiHeadAttention", ["Q", "K", "V"], ["Y"], num_heads=2),
     [("Q", F, ["N", "S", 8]), ("K", F, ["N", "L", 8]), ("V", F, ["N", "L", 6])], ["Y"], domains=MS)
case("ms_MultiHeadAttention_bnsh_kv", 17, ms("MultiHeadAttention", ["Q", "K", "V"], ["Y"], num_heads=2),
     [("Q", F, ["N", "S", 8]), ("K", F, ["N", 2, "L", 4]), ("V", F, ["N", 2, "L", 4])], ["Y"], domains=MS)
# GroupQueryAttention (2 query heads, 1 kv head of 16): seqlens_k and total_sequence_length built
# from shapes as ONNX Runtime's model builder does, so the caches' sequence length is known.
I32 = TP.INT32
GQA_PROMPT = [  # no past: total = the mask's length = S (a first prompt)
    N("Shape", ["mask"], ["mshape"]), N("Gather", ["mshape", "one"], ["tot64"], axis=0),
    N("Cast", ["tot64"], ["total"], to=I32),
    N("ReduceSum", ["mask", "axes1"], ["msum"], keepdims=0), N("Sub", ["msum", "one"], ["sk64"]),
    N("Cast", ["sk64"], ["seqlens_k"], to=I32)]
case("ms_GroupQueryAttention_prompt", 17,
     GQA_PROMPT + [ms("GroupQueryAttention", ["Q", "K", "V", "", "", "seqlens_k", "total"], ["Y", "pk", "pv"],
                      num_heads=2, kv_num_heads=1)],
     [("Q", F, ["N", "S", 32]), ("K", F, ["N", "S", 16]), ("V", F, ["N", "S", 16]), ("mask", I, ["N", "S"])],
     ["Y", "pk", "pv"], {"one": I64(1), "axes1": I64(1)}, fills={"mask": {"value": [1]}}, domains=MS)
case("ms_GroupQueryAttention_packed", 17,
     GQA_PROMPT + [ms("GroupQueryAttention", ["QKV", "", "", "", "", "seqlens_k", "total"], ["Y", "pk", "pv"],
                      num_heads=2, kv_num_heads=1)],
     [("QKV", F, ["N", "S", 64]), ("mask", I, ["N", "S"])],
     ["Y", "pk", "pv"], {"one": I64(1), "axes1": I64(1)}, fills={"mask": {"value": [1]}}, domains=MS)
# A past of P: total = P + S (batch 1, as ONNX Runtime requires for a prompt after a past).
case("ms_GroupQueryAttention_past", 17,
     [N("Shape", ["PK"], ["pks"]), N("Gather", ["pks", "two"], ["plen"], axis=0),
      N("Shape", ["Q"], ["qs"]), N("Gather", ["qs", "one"], ["slen"], axis=0),
      N("Add", ["plen", "slen"], ["tot64"]), N("Cast", ["tot64"], ["total"], to=I32),
      N("Sub", ["tot64", "one"], ["sk0"]), N("Reshape", ["sk0", "shape1"], ["sk1"]),
      N("Cast", ["sk1"], ["seqlens_k"], to=I32),
      ms("GroupQueryAttention", ["Q", "K", "V", "PK", "PV", "seqlens_k", "total"], ["Y", "pk", "pv"],
         num_heads=2, kv_num_heads=1)],
     [("Q", F, [1, "S", 32]), ("K", F, [1, "S", 16]), ("V", F, [1, "S", 16]),
      ("PK", F, [1, 1, "P", 16]), ("PV", F, [1, 1, "P", 16])],
     ["Y", "pk", "pv"], {"one": I64(1), "two": I64(2), "shape1": I64(1)},
     sizes={"P": [3, 6, 0]}, domains=MS)
# Token generation into a fixed-size cache of M >= total (past and present share the buffer): the
# caches keep M when the mask's length T is at most M.
case("ms_GroupQueryAttention_shared_buffer", 17,
     GQA_PROMPT[:3] + [
         N("Sub", ["tot64", "one"], ["sk0"]), N("Expand", ["sk0", "bshape"], ["sk1"]),
         N("Cast", ["sk1"], ["seqlens_k"], to=I32),
         N("Shape", ["Q"], ["qs"]), N("Gather", ["qs", "zero"], ["b0"], axis=0),
         N("Unsqueeze", ["b0", "zero1"], ["bshape"]),
         ms("GroupQueryAttention", ["Q", "K", "V", "PK", "PV", "seqlens_k", "total"], ["Y", "pk", "pv"],
            num_heads=2, kv_num_heads=1)],
     [("Q", F, ["N", 1, 32]), ("K", F, ["N", 1, 16]), ("V", F, ["N", 1, 16]),
      ("PK", F, ["N", 1, "M", 16]), ("PV", F, ["N", 1, "M", 16]), ("mask", I, ["N", "T"])],
     ["Y", "pk", "pv"], {"one": I64(1), "zero": np.array(0, np.int64), "zero1": I64(0)},
     fills={"mask": {"value": [1]}}, sizes={"M": [8, 8, 8], "T": [3, 8, 5]}, domains=MS)

# present: [2, B, heads, P + S, head] (P = 0 without a past).
case("ms_Attention_present", 17, ms("Attention", ["X", "Wqkv", "Bqkv"], ["Y", "present"], num_heads=2), XS,
     ["Y", "present"], {"Wqkv": np.full((8, 24), 0.1, np.float32), "Bqkv": np.zeros((24,), np.float32)}, domains=MS)
case("ms_Attention_past", 17,
     ms("Attention", ["X", "Wqkv", "Bqkv", "", "past"], ["Y", "present"], num_heads=2, unidirectional=1),
     XS + [("past", F, [2, "N", 2, "P", 4])], ["Y", "present"],
     {"Wqkv": np.full((8, 24), 0.1, np.float32), "Bqkv": np.zeros((24,), np.float32)},
     sizes={"P": [3, 0, 6]}, domains=MS)
case("ms_MultiHeadAttention_present", 17,
     ms("MultiHeadAttention", ["Q", "K", "V"], ["Y", "pk", "pv"], num_heads=2),
     [("Q", F, ["N", "S", 8]), ("K", F, ["N", "L", 8]), ("V", F, ["N", "L", 6])], ["Y", "pk", "pv"], domains=MS)
case("ms_MultiHeadAttention_past", 17,
     ms("MultiHeadAttention", ["Q", "K", "V", "", "", "", "PK", "PV"], ["Y", "pk", "pv"], num_heads=2),
     [("Q", F, ["N", "S", 8]), ("K", F, ["N", "S", 8]), ("V", F, ["N", "S", 8]),
      ("PK", F, ["N", 2, "P", 4]), ("PV", F, ["N", 2, "P", 4])], ["Y", "pk", "pv"],
     sizes={"P": [3, 0, 6]}, domains=MS)

# QOperator pools, concat, gemm and softmax; GatherBlockQuantized (4-bit rows packed in uint8).
U8 = TP.UINT8
QS = {"s": np.array(0.05, np.float32), "z": np.array(128, np.uint8)}
case("ms_QLinearAveragePool", 17,
     ms("QLinearAveragePool", ["X", "s", "z", "s", "z"], ["Y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
     [("X", U8, ["N", 4, "H", "W"])], ["Y"], QS, fills={"X": {"int_range": [0, 255]}}, domains=MS)
case("ms_QLinearAveragePool_nhwc_ceil", 17,
     ms("QLinearAveragePool", ["X", "s", "z", "s", "z"], ["Y"], kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1,
        channels_last=1), [("X", U8, ["N", "H", "W", 4])], ["Y"], QS, fills={"X": {"int_range": [0, 255]}},
     domains=MS)
case("ms_NhwcMaxPool", 17, ms("NhwcMaxPool", ["X"], ["Y"], kernel_shape=[2, 2], strides=[2, 1], pads=[0, 1, 0, 1]),
     [("X", U8, ["N", "H", "W", 3])], ["Y"], fills={"X": {"int_range": [0, 255]}}, domains=MS)
case("ms_QLinearConcat", 17,
     ms("QLinearConcat", ["s", "z", "A", "s", "z", "B", "s", "z"], ["Y"], axis=1),
     [("A", U8, ["N", 2, "H"]), ("B", U8, ["N", "C", "H"])], ["Y"], QS,
     fills={"A": {"int_range": [0, 255]}, "B": {"int_range": [0, 255]}}, domains=MS)
QG = {"Bq": np.full((8, 5), 3, np.uint8), "sb": np.array(0.1, np.float32), "zb": np.array(2, np.uint8)}
case("ms_QGemm", 17, ms("QGemm", ["A", "s", "z", "Bq", "sb", "zb", "", "s", "z"], ["Y"]),
     [("A", U8, ["M", 8])], ["Y"], {**QS, **QG}, fills={"A": {"int_range": [0, 255]}}, domains=MS)
case("ms_QGemm_float_transA", 17, ms("QGemm", ["A", "s", "z", "Bq", "sb", "zb"], ["Y"], transA=1, alpha=0.5),
     [("A", U8, [8, "M"])], ["Y"], {**QS, **QG}, fills={"A": {"int_range": [0, 255]}}, domains=MS)
case("ms_QLinearSoftmax", 17, ms("QLinearSoftmax", ["X", "s", "z", "s", "z"], ["Y"], axis=-1, opset=13),
     [("X", U8, ["N", "S", 8])], ["Y"], QS, fills={"X": {"int_range": [0, 255]}}, domains=MS)
case("ms_GatherBlockQuantized_4bit", 17,
     ms("GatherBlockQuantized", ["D", "idx", "sc"], ["Y"], block_size=16),
     [("idx", I, ["N", "S"])], ["Y"],
     {"D": np.full((20, 8), 0x21, np.uint8), "sc": np.full((20, 1), 0.5, np.float32)},
     fills={"idx": {"int_range": [0, 20]}}, domains=MS)
case("ms_GatherBlockQuantized_8bit_f16", 17,
     ms("GatherBlockQuantized", ["D", "idx", "sc"], ["Y"], block_size=16, bits=8),
     [("idx", I, ["S"])], ["Y"],
     {"D": np.full((20, 32), 7, np.uint8), "sc": np.full((20, 2), 0.5, np.float16)},
     fills={"idx": {"int_range": [0, 20]}}, domains=MS)

QA = {"Wq": np.full((8, 24), 3, np.uint8), "Bqkv": np.zeros((24,), np.float32), "s": np.array(0.05, np.float32),
      "z": np.array(128, np.uint8)}
case("ms_QAttention", 17, ms("QAttention", ["X", "Wq", "Bqkv", "s", "s", "", "z", "z"], ["Y"], num_heads=2),
     [("X", U8, ["N", "S", 8])], ["Y"], QA, fills={"X": {"int_range": [0, 255]}}, domains=MS)
case("ms_QAttention_past", 17,
     ms("QAttention", ["X", "Wq", "Bqkv", "s", "s", "", "z", "z", "past"], ["Y", "present"], num_heads=2,
        unidirectional=1),
     [("X", U8, ["N", "S", 8]), ("past", F, [2, "N", 2, "P", 4])], ["Y", "present"], QA,
     fills={"X": {"int_range": [0, 255]}}, sizes={"P": [3, 0, 6]}, domains=MS)

# DynamicQuantizeLSTM: W [dirs, input 6, 4*H 12] and R [dirs, H 3, 12] stored transposed, int8.
DQL = {"Wq": np.ones((2, 6, 12), np.int8), "Rq": np.ones((2, 3, 12), np.int8), "ws": np.full((2,), 0.01, np.float32),
       "wz": np.zeros((2,), np.int8), "rs": np.full((2,), 0.01, np.float32), "rz": np.zeros((2,), np.int8)}
case("ms_DynamicQuantizeLSTM", 17,
     ms("DynamicQuantizeLSTM", ["X", "Wq", "Rq", "", "", "", "", "", "ws", "wz", "rs", "rz"], ["Y", "Yh", "Yc"],
        direction="bidirectional", hidden_size=3),
     [("X", F, ["T", "N", 6])], ["Y", "Yh", "Yc"], DQL, domains=MS)

case("ms_EmbedLayerNormalization", 17,
     ms("EmbedLayerNormalization", ["ids", "seg", "we", "pe", "se", "gamma", "beta"], ["Y", "mask_index"]),
     [("ids", TP.INT32, ["N", "S"]), ("seg", TP.INT32, ["N", "S"])], ["Y", "mask_index"],
     {"we": np.full((20, 8), 0.1, np.float32), "pe": np.full((16, 8), 0.2, np.float32),
      "se": np.full((2, 8), 0.3, np.float32), "gamma": LN["gamma"], "beta": LN["beta"]},
     fills={"ids": {"int_range": [0, 20]}, "seg": {"int_range": [0, 2]}}, domains=MS)
case("ms_EmbedLayerNormalization_sum", 17,
     ms("EmbedLayerNormalization", ["ids", "seg", "we", "pe", "se", "gamma", "beta", "mask"],
        ["Y", "mask_index", "esum"]),
     [("ids", TP.INT32, ["N", "S"]), ("seg", TP.INT32, ["N", "S"]), ("mask", TP.INT32, ["N", "S"])],
     ["Y", "mask_index", "esum"],
     {"we": np.full((20, 8), 0.1, np.float32), "pe": np.full((16, 8), 0.2, np.float32),
      "se": np.full((2, 8), 0.3, np.float32), "gamma": LN["gamma"], "beta": LN["beta"]},
     fills={"ids": {"int_range": [0, 20]}, "seg": {"int_range": [0, 2]}, "mask": {"value": [1]}}, domains=MS)

# The quantized form: uint8 tables with float scales and zero points; hidden 8.
QEMB_INS = ["ids", "seg", "we", "pe", "se", "gamma", "beta", "mask", "wes", "pes", "ses", "gs", "bs", "wez", "pez",
            "sez", "gz", "bz"]
QEMB = {"we": np.full((20, 8), 3, np.uint8), "pe": np.full((16, 8), 5, np.uint8), "se": np.full((2, 8), 7, np.uint8),
        "gamma": np.full((8,), 9, np.uint8), "beta": np.full((8,), 1, np.uint8),
        **{k: np.array(0.05, np.float32) for k in ("wes", "pes", "ses", "gs", "bs")},
        **{k: np.array(2, np.uint8) for k in ("wez", "pez", "sez", "gz", "bz")}}
case("ms_QEmbedLayerNormalization", 17, ms("QEmbedLayerNormalization", QEMB_INS, ["Y", "mask_index"], epsilon=1e-5),
     [("ids", TP.INT32, ["N", "S"]), ("seg", TP.INT32, ["N", "S"]), ("mask", TP.INT32, ["N", "S"])],
     ["Y", "mask_index"], QEMB,
     fills={"ids": {"int_range": [0, 20]}, "seg": {"int_range": [0, 2]}, "mask": {"value": [1]}}, domains=MS)
case("ms_QEmbedLayerNormalization_no_segment", 17,
     ms("QEmbedLayerNormalization", [n if n not in ("seg", "se", "mask", "ses", "sez") else "" for n in QEMB_INS],
        ["Y", "mask_index"], epsilon=1e-5),
     [("ids", TP.INT32, ["N", "S"])], ["Y", "mask_index"],
     {k: v for k, v in QEMB.items() if k not in ("se", "ses", "sez")},
     fills={"ids": {"int_range": [0, 20]}}, domains=MS)
case("ms_SampleOp", 17, ms("SampleOp", ["X"], ["Y"]), XS, ["Y"], domains=MS)

# ONNX Runtime's versions of standard operators and small fused operators (CPU kernels).
I16, I32 = TP.INT16, TP.INT32
case("ms_ExpandDims", 17, ms("ExpandDims", ["X", "ax"], ["Y"]), [("X", F, ["N", "S"])], ["Y"],
     {"ax": np.array(1, np.int32)}, domains=MS)
case("ms_ExpandDims_last", 17, ms("ExpandDims", ["X", "ax"], ["Y"]), [("X", F, ["N", "S"])], ["Y"],
     {"ax": np.array([-1], np.int32)}, domains=MS)
case("ms_Inverse", 17, ms("Inverse", ["X"], ["Y"]), [("X", F, ["N", "K", "K"])], ["Y"], domains=MS)
case("ms_CDist", 17, ms("CDist", ["A", "B"], ["Y"], metric="euclidean"), [("A", F, ["M", "D"]), ("B", F, ["N", "D"])],
     ["Y"], domains=MS)
case("ms_FusedGemm_transB", 17, ms("FusedGemm", ["A", "Bw", "Cb"], ["Y"], transB=1, activation="Relu"),
     [("A", F, ["M", 4])], ["Y"], {"Bw": np.ones((5, 4), np.float32), "Cb": np.zeros((5,), np.float32)}, domains=MS)
case("ms_FusedGemm_transA_noC", 17, ms("FusedGemm", ["A", "B"], ["Y"], transA=1, activation="LeakyRelu",
                                       activation_alpha=0.1),
     [("A", F, ["K", "M"]), ("B", F, ["K", "N"])], ["Y"], domains=MS)
case("ms_TransposeMatMul", 17, ms("TransposeMatMul", ["A", "B"], ["Y"], transA=1),
     [("A", F, ["N", "K", "M"]), ("B", F, ["K", "S"])], ["Y"], domains=MS)
case("ms_MatMulInteger16", 17, ms("MatMulInteger16", ["A", "B"], ["Y"]), [("A", I16, ["N", "S", 4])], ["Y"],
     {"B": np.ones((4, 3), np.int16)}, domains=MS)
case("ms_MatMulBnb4", 17, ms("MatMulBnb4", ["A", "Bq", "absmax"], ["Y"], K=16, N=8, block_size=16, quant_type=1),
     [("A", F, ["N", "S", 16])], ["Y"], {"Bq": np.full((64,), 0x21, np.uint8), "absmax": np.ones((8,), np.float32)},
     domains=MS)
case("ms_MatMulBnb4_transB0", 17,
     ms("MatMulBnb4", ["A", "Bq", "absmax"], ["Y"], K=16, N=8, block_size=16, quant_type=0, transB=0),
     [("A", F, ["N", 8])], ["Y"], {"Bq": np.full((64,), 0x21, np.uint8), "absmax": np.ones((8,), np.float32)},
     domains=MS)
QC = {"s": np.array(0.05, np.float32), "z": np.array(128, np.uint8), "w": np.full((4, 3, 3, 3), 130, np.uint8),
      "wz": np.array(128, np.uint8)}
case("ms_QLinearConv_nhwc", 17,
     ms("QLinearConv", ["X", "s", "z", "w", "s", "wz", "s", "z"], ["Y"], channels_last=1, strides=[2, 2],
        pads=[1, 1, 1, 1]),
     [("X", U8, ["N", "H", "W", 3])], ["Y"], QC, fills={"X": {"int_range": [0, 255]}}, domains=MS)
case("ms_QLinearConv_nchw", 17,
     ms("QLinearConv", ["X", "s", "z", "w", "s", "wz", "s", "z"], ["Y"], dilations=[2, 1]),
     [("X", U8, ["N", 3, "H", "W"])], ["Y"], QC, fills={"X": {"int_range": [0, 255]}}, domains=MS)
case("ms_QLinearWhere", 17, ms("QLinearWhere", ["c", "X", "s", "z", "Yq", "s", "z", "s", "z"], ["Y"]),
     [("c", TP.BOOL, ["N", 1, "S"]), ("X", U8, [1, 4, 1]), ("Yq", U8, ["S"])], ["Y"],
     {"s": np.array(0.05, np.float32), "z": np.array(128, np.uint8)}, domains=MS)
case("ms_MoE", 17, ms("MoE", ["X", "router", "fc1", "fc1b", "fc2"], ["Y"], k=2, activation_type="gelu"),
     [("X", F, ["N", "S", 8]), ("router", F, ["T", 2])], ["Y"],
     {"fc1": np.full((2, 16, 8), 0.01, np.float32), "fc1b": np.zeros((2, 16), np.float32),
      "fc2": np.full((2, 8, 16), 0.01, np.float32)},
     sizes={"N": [1, 2, 3], "S": [3, 5, 2], "T": [3, 10, 6]}, domains=MS)
case("ms_QMoE_4bit", 17,
     ms("QMoE", ["X", "router", "fc1", "fc1s", "", "fc2", "fc2s"], ["Y"], k=1, expert_weight_bits=4),
     [("X", F, ["T", 32]), ("router", F, ["T", 2])], ["Y"],
     {"fc1": np.full((2, 32, 16), 0x88, np.uint8), "fc1s": np.full((2, 32), 0.01, np.float32),
      "fc2": np.full((2, 32, 16), 0x88, np.uint8), "fc2s": np.full((2, 32), 0.01, np.float32)}, domains=MS)
case("ms_Unique", 17, ms("Unique", ["X"], ["Y", "idx", "counts"]), [("X", F, ["N"])], ["Y", "idx", "counts"],
     fills={"X": {"value": [1.5, 0.5, 1.5]}}, domains=MS)
case("ms_Trilu", 17, ms("Trilu", ["X"], ["Y"], upper=0), [("X", F, ["N", "S", "K"])], ["Y"], domains=MS)
case("ms_GridSample", 17, ms("GridSample", ["X", "G"], ["Y"], mode="nearest"),
     [("X", F, ["N", "C", "H", "W"]), ("G", F, ["N", "S", "K", 2])], ["Y"], domains=MS)
case("ms_GatherND", 17, ms("GatherND", ["X", "idx"], ["Y"]), [("X", F, ["N", 4, 5]), ("idx", I, ["S", "K", 1])],
     ["Y"], fills={"idx": {"int_range": [0, 1]}}, domains=MS)
case("ms_Pad_2d_pads", 17, ms("Pad", ["X", "pads", "v"], ["Y"]), [("X", F, ["N", "S"])], ["Y"],
     {"pads": np.array([[1, 0, 2, 1]], np.int64), "v": np.array([7], np.float32)}, domains=MS)
case("ms_Pad_reflect_negative", 17, ms("Pad", ["X", "pads"], ["Y"], mode="edge"), [("X", F, ["H", "W"])], ["Y"],
     {"pads": np.array([-1, 1, 0, -2], np.int64)}, domains=MS)
case("ms_Range_no_delta", 17,
     [N("Shape", ["X"], ["sh"]), N("Gather", ["sh", "one"], ["s"], axis=0), ms("Range", ["zero", "s"], ["Y"])],
     [("X", F, ["N", "S"])], ["Y"], {"one": np.array(1, np.int64), "zero": np.array(0, np.int64)}, domains=MS)
case("ms_Range_float_delta", 17, ms("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
     {"a": np.array([10.0], np.float32), "b": np.array([0.5], np.float32), "d": np.array([-3.0], np.float32)},
     domains=MS)
case("ms_CropAndResize", 17, ms("CropAndResize", ["X", "rois", "bi", "crop"], ["Y"]),
     [("X", F, ["N", 3, "H", "W"]), ("rois", F, ["K", 4]), ("bi", I32, ["K"])], ["Y"],
     {"crop": np.array([5, 6], np.int32)},
     fills={"rois": {"value": [0.1, 0.2, 0.8, 0.9]}, "bi": {"value": [0]}}, domains=MS)
case("ms_MaxpoolWithMask", 17, ms("MaxpoolWithMask", ["X", "M"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                  strides=[2, 2]),
     [("X", F, ["N", 2, "H", "W"]), ("M", I32, [1, 1, "H", "W"])], ["Y"], fills={"M": {"value": [1]}}, domains=MS)
case("ms_UnfoldTensor", 17, ms("UnfoldTensor", ["X"], ["Y"], dim=1, size=4, step=2), [("X", F, ["N", "T", 3])],
     ["Y"], domains=MS)
case("ms_UnfoldTensor_default", 17, ms("UnfoldTensor", ["X"], ["Y"], size=3), [("X", F, ["N", "L"])], ["Y"],
     domains=MS)
case("ms_WordConvEmbedding", 17, ms("WordConvEmbedding", ["seq", "Wc", "Bc", "Ce"], ["Y"]),
     [("seq", I32, ["N", 5])], ["Y"],
     {"Wc": np.full((6, 1, 2, 4), 0.1, np.float32), "Bc": np.zeros((6,), np.float32),
      "Ce": np.full((10, 4), 0.2, np.float32)}, fills={"seq": {"int_range": [1, 10]}}, domains=MS)
case("ms_MurmurHash3", 17, ms("MurmurHash3", ["X"], ["Y"]), [("X", I32, ["N", "S"])], ["Y"], domains=MS)
case("ms_MurmurHash3_signed", 17, ms("MurmurHash3", ["X"], ["Y"], positive=0, seed=42), [("X", I, ["N"])], ["Y"],
     domains=MS)
case("ms_NGramRepeatBlock", 17, ms("NGramRepeatBlock", ["ids", "sc"], ["Y"], ngram_size=2),
     [("ids", I, ["N", "S"]), ("sc", F, ["N", 10])], ["Y"], fills={"ids": {"int_range": [0, 10]}}, domains=MS)

# DecoderMaskedMultiHeadAttention: one token per sequence; self attention into a shared buffer of M
# positions after P = 3, or cross attention over L encoder keys in [B, heads, L, head].
case("ms_DecoderMaskedMultiHeadAttention_self", 17,
     ms("DecoderMaskedMultiHeadAttention", ["Q", "K", "V", "", "", "PK", "PV", "plen"], ["Y", "pk", "pv", "qk"],
        num_heads=2, past_present_share_buffer=1, output_qk=1),
     [("Q", F, ["N", 1, 8]), ("K", F, ["N", 1, 8]), ("V", F, ["N", 1, 8]), ("PK", F, ["N", 2, "M", 4]),
      ("PV", F, ["N", 2, "M", 4])], ["Y", "pk", "pv", "qk"], {"plen": np.array([3], np.int32)}, domains=MS)
case("ms_DecoderMaskedMultiHeadAttention_cross", 17,
     ms("DecoderMaskedMultiHeadAttention", ["Q", "K", "V"], ["Y", "", "", "qk"], num_heads=2, output_qk=1),
     [("Q", F, ["N", 1, 8]), ("K", F, ["N", 2, "L", 4]), ("V", F, ["N", 2, "L", 4])], ["Y", "qk"], domains=MS)
for _c in CASES[-2:]:  # qk has a type parameter of its own, which no input binds
    _c["model"].graph.output[-1].type.tensor_type.elem_type = F


# ---- Seeded random attribute combinations (pools, convolutions, Slice, Resize, Pad, DFT, STFT) ------------
# Each is checked like the cases above; the combinations ONNX Runtime rejects (invalid ones, e.g. a
# kernel larger than a padded input at some binding) are counted as skipped, not listed.

RNG = np.random.default_rng(20261124)


def rint(lo, hi):
    return int(RNG.integers(lo, hi + 1))


def rsizes(names, lo, hi):
    return {n: [rint(lo, hi) for _ in range(3)] for n in names}


def random_cases(count=450):
    sp_names = ["H", "W", "D"]
    for i in range(count):
        fam = ["pool", "conv", "convT", "slice", "resize", "pad", "dft", "stft", "crop"][i % 9]
        name = f"rnd{i:03d}_{fam}"
        if fam in ("pool", "conv", "convT"):
            r = rint(1, 3)
            sp = sp_names[:r]
            k = [rint(1, 4) for _ in range(r)]
            st = [rint(1, 3) for _ in range(r)]
            dl = [rint(1, 2) for _ in range(r)]
            # Inputs at least as large as the dilated kernel: a smaller one is invalid (ORT
            # rejects it with explicit pads, and with VALID its integer division truncates to 1).
            lo = max((k[j] - 1) * dl[j] + 1 for j in range(r))
            attrs = {"kernel_shape": k, "strides": st}
            auto = ["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"][rint(0, 4)]
            if auto != "NOTSET":
                attrs["auto_pad"] = auto
            else:
                attrs["pads"] = [rint(0, k[j] - 1) for j in range(r)] + [rint(0, k[j] - 1) for j in range(r)]
            if fam == "pool":
                op = ["MaxPool", "AveragePool", "LpPool"][rint(0, 2)]
                if op != "MaxPool" or rint(0, 1):
                    attrs["dilations"] = dl
                if op == "MaxPool" and "dilations" not in attrs:
                    attrs["dilations"] = dl
                attrs["ceil_mode"] = rint(0, 1)
                if op == "AveragePool":
                    attrs["count_include_pad"] = rint(0, 1)
                case(name, 22 if op != "LpPool" else 18, N(op, ["X"], ["Y"], **attrs), [("X", F, ["N", 2] + sp)], ["Y"],
                     sizes=rsizes(sp, lo, 12), note="random")
            elif fam == "conv":
                attrs["dilations"] = dl
                g = rint(1, 2)
                attrs["group"] = g
                w = np.ones([2 * g, 2] + k, np.float32)
                case(name, 22, N("Conv", ["X", "w"], ["Y"], **attrs), [("X", F, ["N", 2 * g] + sp)], ["Y"], {"w": w},
                     sizes=rsizes(sp, lo, 12), note="random")
            else:
                attrs["dilations"] = dl
                if "auto_pad" not in attrs or rint(0, 1):
                    attrs["output_padding"] = [rint(0, max(0, min(st[j], dl[j]) - 1)) for j in range(r)]
                if rint(0, 4) == 0:
                    attrs.pop("pads", None)
                    attrs.pop("auto_pad", None)
                    attrs["output_shape"] = [rint(4, 20) for _ in range(r)]
                w = np.ones([2, 3] + k, np.float32)
                case(name, 22, N("ConvTranspose", ["X", "w"], ["Y"], **attrs), [("X", F, ["N", 2] + sp)], ["Y"], {"w": w},
                     sizes=rsizes(sp, 1, 8), note="random")
        elif fam == "slice":
            r = rint(1, 3)
            dims = ["N"] + sp_names[:r]
            axes = sorted(RNG.choice(r + 1, size=rint(1, r + 1), replace=False).tolist())
            big = [1 << 62, -(1 << 62), 1 << 31]
            starts, ends, steps = [], [], []
            for _ in axes:
                step = [1, 1, 2, 3, -1, -2][rint(0, 5)]
                steps.append(step)
                starts.append(rint(-7, 7) if rint(0, 3) else big[rint(0, 2)])
                ends.append(rint(-7, 7) if rint(0, 3) else big[rint(0, 2)])
            case(name, 13, N("Slice", ["X", "st", "en", "ax", "sp"], ["Y"]), [("X", F, dims)], ["Y"],
                 {"st": I64(*starts), "en": I64(*ends), "ax": I64(*axes), "sp": I64(*steps)},
                 sizes=rsizes(dims, 1, 9), note="random")
        elif fam == "resize":
            const = rint(0, 1)
            dims = ["N", 2] + ([rint(1, 12), rint(1, 12)] if const else ["H", "W"])
            sc = [float(x) for x in RNG.choice([0.5, 0.25, 0.75, 1.5, 2.0, 3.0, 0.3, 1.7, 2.5, 0.6], size=2)]
            mode = ["nearest", "linear", "cubic"][rint(0, 2)]
            ctm = ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "half_pixel_symmetric"][rint(0, 4)]
            case(name, 19, N("Resize", ["X", "", "sc"], ["Y"], mode=mode, coordinate_transformation_mode=ctm,
                             axes=[2, 3]),
                 [("X", F, dims)], ["Y"], {"sc": F32(*sc)}, sizes=rsizes(["H", "W"], 1, 12), note="random")
        elif fam == "pad":
            r = rint(1, 3)
            dims = ["N"] + sp_names[:r]
            axes = sorted(RNG.choice(r + 1, size=rint(1, r + 1), replace=False).tolist())
            pads = [rint(-2, 3) for _ in axes] + [rint(-2, 3) for _ in axes]
            mode = ["constant", "edge", "reflect", "wrap"][rint(0, 3)]
            neg = [a - (r + 1) if rint(0, 1) else a for a in axes]
            case(name, 19, N("Pad", ["X", "p", "", "ax"], ["Y"], mode=mode), [("X", F, dims)], ["Y"],
                 {"p": I64(*pads), "ax": I64(*neg)}, sizes=rsizes(dims, 3, 9), note="random")
        elif fam == "dft":
            onesided = rint(0, 1)
            inverse = 0 if onesided else rint(0, 1)
            c = 1 if onesided else rint(1, 2)
            ins = ["X"]
            inits = {}
            if rint(0, 1):
                ins.append("len")
                inits["len"] = np.array(rint(1, 12), np.int64)
            if rint(0, 1):
                if len(ins) == 1:
                    ins.append("")
                ins.append("axis")
                inits["axis"] = np.array([1, 2, -2, -3][rint(0, 3)], np.int64)
            case(name, 20, N("DFT", ins, ["Y"], onesided=onesided, inverse=inverse), [("X", F, ["N", "L", "W", c])],
                 ["Y"], inits, sizes=rsizes(["L", "W"], 1, 12), note="random")
        elif fam == "stft":
            fl = rint(1, 8)
            step = rint(1, 4)
            use_win = rint(0, 1)
            ins = ["X", "step"] + (["win"] if use_win else ["", "fl"])
            inits = {"step": np.array(step, np.int64)}
            if use_win:
                inits["win"] = np.ones([fl], np.float32)
            else:
                inits["fl"] = np.array(fl, np.int64)
            case(name, 17, N("STFT", ins, ["Y"], onesided=rint(0, 1)), [("X", F, ["N", "L", 1])], ["Y"], inits,
                 sizes=rsizes(["L"], fl, 20), note="random")
        else:
            r = rint(1, 3)
            dims = ["N"] + sp_names[:r]
            axes = sorted(RNG.choice(r + 1, size=rint(1, r + 1), replace=False).tolist())
            case(name, 18, N("CenterCropPad", ["X", "s"], ["Y"], axes=axes), [("X", F, dims)], ["Y"],
                 {"s": I64(*[rint(1, 9) for _ in axes])}, sizes=rsizes(dims, 1, 9), note="random")


def random_shape_cases(count=150):
    """Split num_outputs, reductions, Reshape with 0/-1, Flatten, Col2Im, Unsqueeze/Squeeze."""
    for i in range(count):
        fam = ["split", "reduce", "reshape", "flatten", "col2im", "squeeze"][i % 6]
        name = f"rnd{i:03d}s_{fam}"
        if fam == "split":
            r = rint(1, 3)
            dims = ["N", "H", "W"][:r]
            ax = rint(-r, r - 1)
            k = rint(1, 4)
            case(name, 18, N("Split", ["X"], [f"o{j}" for j in range(k)], axis=ax, num_outputs=k),
                 [("X", F, dims)], [f"o{j}" for j in range(k)], sizes=rsizes(dims, 2 * k, 13), note="random")
        elif fam == "reduce":
            op = ["ReduceSum", "ReduceMax", "ReduceMean", "ReduceL2", "ReduceLogSumExp"][rint(0, 4)]
            r = rint(1, 4)
            dims = ["N", "H", "W", "D"][:r]
            axes = sorted(RNG.choice(r, size=rint(0, r), replace=False).tolist())
            axes = [a - r if rint(0, 1) else a for a in axes]
            attrs = {"keepdims": rint(0, 1), "noop_with_empty_axes": rint(0, 1)}
            case(name, 18, N(op, ["X", "a"], ["Y"], **attrs), [("X", F, dims)], ["Y"], {"a": I64(*axes)},
                 sizes=rsizes(dims, 1, 6), note="random")
        elif fam == "reshape":
            r = rint(2, 4)
            dims = ["N", "H", "W", "D"][:r]
            keep = rint(1, r - 1)
            tgt = [0] * keep + [-1]
            if rint(0, 1):
                tgt.append(1)
            case(name, 21, N("Reshape", ["X", "s"], ["Y"]), [("X", F, dims)], ["Y"], {"s": I64(*tgt)},
                 sizes=rsizes(dims, 1, 6), note="random")
        elif fam == "flatten":
            r = rint(1, 4)
            dims = ["N", "H", "W", "D"][:r]
            case(name, 21, N("Flatten", ["X"], ["Y"], axis=rint(-r, r)), [("X", F, dims)], ["Y"],
                 sizes=rsizes(dims, 1, 6), note="random")
        elif fam == "col2im":
            ih, iw = rint(2, 8), rint(2, 8)
            bh, bw = rint(1, min(3, ih)), rint(1, min(3, iw))
            st = [rint(1, 2), rint(1, 2)]
            dl = [rint(1, 2), rint(1, 2)]
            pd = [rint(0, 1), rint(0, 1), rint(0, 1), rint(0, 1)]
            nh = (ih + pd[0] + pd[2] - (dl[0] * (bh - 1) + 1)) // st[0] + 1
            nw = (iw + pd[1] + pd[3] - (dl[1] * (bw - 1) + 1)) // st[1] + 1
            case(name, 18, N("Col2Im", ["X", "i", "b"], ["Y"], strides=st, dilations=dl, pads=pd),
                 [("X", F, ["N", 2 * bh * bw, max(nh, 1) * max(nw, 1)])], ["Y"], {"i": I64(ih, iw), "b": I64(bh, bw)},
                 note="random")
        else:
            r = rint(1, 3)
            dims = ["N", "H", "W"][:r]
            nax = rint(1, 3)
            axes = sorted(RNG.choice(r + nax, size=nax, replace=False).tolist())
            axes = [a - (r + nax) if rint(0, 1) else a for a in axes]
            case(name, 21, [N("Unsqueeze", ["X", "a"], ["U"]), N("Squeeze", ["U", "a"], ["Y"])], [("X", F, dims)],
                 ["U", "Y"], {"a": I64(*axes)}, sizes=rsizes(dims, 1, 6), note="random")


def random_float_cases(count=120):
    """Sizes that pass through float arithmetic: Resize keep_aspect_ratio_policy and
    tf_crop_and_resize on numeric sizes, Range with float bounds."""
    for i in range(count):
        fam = ["aspect", "crop", "range"][i % 3]
        name = f"rnd{i:03d}f_{fam}"
        if fam == "aspect":
            dims = [1, 1, rint(1, 40), rint(1, 40)]
            policy = ["not_larger", "not_smaller"][rint(0, 1)]
            axes = [[2, 3], [3, 2], [-1, -2]][rint(0, 2)]
            case(name, 18, N("Resize", ["X", "", "", "sz"], ["Y"], axes=axes, keep_aspect_ratio_policy=policy),
                 [("X", F, dims)], ["Y"], {"sz": I64(rint(1, 40), rint(1, 40))}, note="random")
        elif fam == "crop":
            dims = [1, 1, rint(1, 30), rint(1, 30)]
            lo = [round(float(RNG.uniform(0, 0.5)), 2) for _ in range(2)]
            hi = [round(float(RNG.uniform(0.5, 1)), 2) for _ in range(2)]
            sc = [float(x) for x in RNG.choice([0.5, 0.75, 1.5, 2.0, 3.0, 0.3, 1.7], size=2)]
            case(name, 19, N("Resize", ["X", "roi", "sc"], ["Y"], axes=[2, 3], mode="linear",
                             coordinate_transformation_mode="tf_crop_and_resize"),
                 [("X", F, dims)], ["Y"], {"roi": F32(*lo, *hi), "sc": F32(*sc)}, note="random")
        else:
            a = round(float(RNG.uniform(-5, 5)), 1)
            d = round(float(RNG.choice([-1, 1]) * RNG.uniform(0.1, 2)), 1) or 0.1
            b = round(a + d * float(RNG.uniform(0, 12)), 1)
            dt = [np.float32, np.float64][rint(0, 1)]
            case(name, 11, N("Range", ["a", "b", "d"], ["Y"]), [], ["Y"],
                 {"a": np.array(a, dt), "b": np.array(b, dt), "d": np.array(d, dt)}, note="random")


def random_attention_cases(count=40):
    """Attention-23/24: 3-D or 4-D inputs, grouped heads, past key/value, mask, QK output."""
    for i in range(count):
        kvh = rint(1, 2)
        qh = kvh * rint(1, 3)
        hd, vd = 2 * rint(1, 3), 2 * rint(1, 3)
        four = rint(0, 1)
        past = rint(0, 1)
        mask = rint(0, 2)
        qk = rint(0, 1)
        opset = [23, 24][rint(0, 1)]
        if four:
            ins = [("Q", F, ["B", qh, "S", hd]), ("K_", F, ["B", kvh, "T", hd]), ("V", F, ["B", kvh, "T", vd])]
            attrs = {}
        else:
            ins = [("Q", F, ["B", "S", qh * hd]), ("K_", F, ["B", "T", kvh * hd]), ("V", F, ["B", "T", kvh * vd])]
            attrs = {"q_num_heads": qh, "kv_num_heads": kvh}
        names = ["Q", "K_", "V"]
        names.append("mask" if mask else "")
        if mask == 1:
            ins.append(("mask", BOOL, ["S", "L"] if past else ["S", "T"]))
        elif mask == 2:
            ins.append(("mask", F, ["B", 1, "S", "L"] if past else ["B", 1, "S", "T"]))
        outs = ["Y"]
        if past:
            names += ["pk", "pv"]
            ins += [("pk", F, ["B", kvh, "P", hd]), ("pv", F, ["B", kvh, "P", vd])]
            outs += ["PK", "PV"]
        while names and names[-1] == "":
            names.pop()
        node_outs = list(outs)
        if qk:
            if not past:
                node_outs += ["", ""]
            node_outs.append("QK")
            attrs["qk_matmul_output_mode"] = rint(0, 3)
        if rint(0, 1):
            attrs["is_causal"] = 1
        sizes = {"B": [1, 2, 3], "S": [1, 3, 4], "T": [2, 3, 5], "P": [0, 2, 1]}
        if past:
            sizes["T"] = [1, 3, 4]
        # "L" (mask length with a past) is P + T: expressed by the bindings.
        sizes["L"] = [p + t for p, t in zip(sizes["P"], sizes["T"])]
        case(f"rnd{i:03d}a_attention", opset, N("Attention", names, node_outs, **attrs), ins,
             outs + (["QK"] if qk else []), sizes=sizes, note="random")


def random_version_cases(count=90):
    """The same operators at the opsets where an attribute became an input (Reduce*, Split,
    Squeeze/Unsqueeze, Pad, Slice, Resize/Upsample) and back-to-back versions."""
    for i in range(count):
        fam = ["reduce", "split", "squeeze", "pad", "clip_topk"][i % 5]
        name = f"rnd{i:03d}v_{fam}"
        if fam == "reduce":
            op = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceProd", "ReduceL1"][rint(0, 4)]
            opset = [11, 12, 13, 17, 18, 20][rint(0, 5)]
            r = rint(1, 4)
            dims = ["N", "H", "W", "D"][:r]
            axes = sorted(RNG.choice(r, size=rint(1, r), replace=False).tolist())
            axes = [a - r if rint(0, 1) else a for a in axes]
            attrs = {"keepdims": rint(0, 1)}
            as_input = opset >= (13 if op == "ReduceSum" else 18)
            if as_input:
                node = N(op, ["X", "a"], ["Y"], **attrs)
                inits = {"a": I64(*axes)}
            else:
                node = N(op, ["X"], ["Y"], axes=axes, **attrs)
                inits = {}
            case(name, opset, node, [("X", F, dims)], ["Y"], inits, sizes=rsizes(dims, 1, 6), note="random")
        elif fam == "split":
            opset = [11, 13, 18][rint(0, 2)]
            k = rint(1, 3)
            parts = [rint(1, 3) for _ in range(k)]
            dims = ["N", sum(parts), "W"]
            if opset < 13:
                node = N("Split", ["X"], [f"o{j}" for j in range(k)], axis=1, split=parts)
                inits = {}
            else:
                node = N("Split", ["X", "sp"], [f"o{j}" for j in range(k)], axis=-2)
                inits = {"sp": I64(*parts)}
            case(name, opset, node, [("X", F, dims)], [f"o{j}" for j in range(k)], inits, note="random")
        elif fam == "squeeze":
            opset = [11, 13, 21][rint(0, 2)]
            r = rint(1, 3)
            dims = ["N", "H", "W"][:r]
            nax = rint(1, 2)
            axes = sorted(RNG.choice(r + nax, size=nax, replace=False).tolist())
            if opset < 13:
                nodes = [N("Unsqueeze", ["X"], ["U"], axes=axes), N("Squeeze", ["U"], ["Y"], axes=axes)]
                inits = {}
            else:
                nodes = [N("Unsqueeze", ["X", "a"], ["U"]), N("Squeeze", ["U", "a"], ["Y"])]
                inits = {"a": I64(*axes)}
            case(name, opset, nodes, [("X", F, dims)], ["U", "Y"], inits, sizes=rsizes(dims, 1, 5), note="random")
        elif fam == "pad":
            opset = [2, 11, 13, 18, 19][rint(0, 4)]
            r = rint(1, 3)
            dims = ["N", "H", "W"][:r]
            pads = [rint(0, 2) for _ in range(2 * r)]
            mode = ["constant", "edge", "reflect"][rint(0, 2)]
            if opset < 11:
                node = N("Pad", ["X"], ["Y"], pads=pads, mode=mode)
                inits = {}
            else:
                node = N("Pad", ["X", "p"], ["Y"], mode=mode)
                inits = {"p": I64(*pads)}
            case(name, opset, node, [("X", F, dims)], ["Y"], inits, sizes=rsizes(dims, 3, 7), note="random")
        else:
            opset = [1, 10, 11][rint(0, 2)]
            k = rint(1, 3)
            if opset < 10:
                node = N("TopK", ["X"], ["V", "I"], k=k, axis=-1)
                inits = {}
            else:
                node = N("TopK", ["X", "k"], ["V", "I"], axis=-1)
                inits = {"k": I64(k)}
            case(name, opset, node, [("X", F, ["N", "W"])], ["V", "I"], inits, sizes=rsizes(["N", "W"], 3, 7),
                 note="random")


def random_index_cases(count=120):
    """Einsum equations, MatMul/Gather/GatherND/OneHot/MaxUnpool with random ranks and axes."""
    letter_dim = {"i": "N", "j": 3, "k": "W", "l": 4}
    for i in range(count):
        fam = ["einsum", "matmul", "gather", "gathernd", "onehot", "maxunpool"][i % 6]
        name = f"rnd{i:03d}i_{fam}"
        if fam == "einsum":
            n_in = rint(1, 2)
            terms = ["".join(RNG.choice(list("ijkl"), size=rint(1, 3), replace=False).tolist()) for _ in range(n_in)]
            used = sorted(set("".join(terms)))
            if rint(0, 2) == 0:
                eq = ",".join(terms)  # implicit output
            else:
                out = RNG.permutation([c for c in used if rint(0, 1)]).tolist()
                eq = ",".join(terms) + "->" + "".join(out)
            ins = [(f"A{j}", F, [letter_dim[c] for c in t]) for j, t in enumerate(terms)]
            case(name, 12, N("Einsum", [x[0] for x in ins], ["Y"], equation=eq), ins, ["Y"], note="random")
        elif fam == "matmul":
            ra, rb = rint(1, 4), rint(1, 4)
            batch = [["N", 1, 2][rint(0, 2)] for _ in range(4)]
            a = [b if rint(0, 2) else 1 for b in batch[4 - max(ra - 2, 0):]] + ([3, 5] if ra >= 2 else [5])
            b = [bb if rint(0, 2) else 1 for bb in batch[4 - max(rb - 2, 0):]] + ([5, "W"] if rb >= 2 else [5])
            a = a[-ra:] if ra >= 2 else [5]
            b = b[-rb:] if rb >= 2 else [5]
            case(name, 13, N("MatMul", ["A", "B"], ["Y"]), [("A", F, a), ("B", F, b)], ["Y"], note="random")
        elif fam == "gather":
            r = rint(1, 3)
            dims = ["N", 5, "W"][:r]
            ax = rint(-r, r - 1)
            ir = rint(0, 2)
            idims = [["K", 2][j % 2] for j in range(ir)]
            case(name, 13, N("Gather", ["X", "ix"], ["Y"], axis=ax), [("X", F, dims), ("ix", I, idims)], ["Y"],
                 fills={"ix": {"int_range": [0, 1]}}, sizes={"N": [2, 3, 4], "W": [2, 5, 3], "K": [1, 2, 3]},
                 note="random")
        elif fam == "gathernd":
            bd = rint(0, 1)
            r = rint(bd + 1, 3)
            dims = ["N", 4, 5][:r] if r > 1 else ["N"]
            last = rint(1, r - bd)
            idims = ["N"][:bd] + [["K", 2][rint(0, 1)] for _ in range(rint(0, 1))] + [last]
            case(name, 13, N("GatherND", ["X", "ix"], ["Y"], batch_dims=bd), [("X", F, dims), ("ix", I, idims)], ["Y"],
                 fills={"ix": {"int_range": [0, 1]}}, sizes={"N": [2, 3, 4], "K": [1, 2, 3]}, note="random")
        elif fam == "onehot":
            r = rint(1, 3)
            dims = ["N", "W", 2][:r]
            ax = rint(-r - 1, r)
            case(name, 11, N("OneHot", ["ix", "d", "v"], ["Y"], axis=ax), [("ix", I, dims)], ["Y"],
                 {"d": np.array(rint(1, 6), np.int64), "v": F32(0, 1)}, fills={"ix": {"int_range": [0, 1]}},
                 note="random")
        else:
            r = rint(1, 2)
            sp = ["H", "W"][:r]
            k = [rint(1, 3) for _ in range(r)]
            st = [rint(1, 3) for _ in range(r)]
            pads = [rint(0, k[j] - 1) for j in range(r)] * 2
            case(name, 22, N("MaxUnpool", ["X", "I_"], ["Y"], kernel_shape=k, strides=st, pads=pads),
                 [("X", F, ["N", 2] + sp), ("I_", I, ["N", 2] + sp)], ["Y"], fills={"I_": {"value": [0]}},
                 sizes=rsizes(sp, 2, 6), note="random")


def random_type_cases(count=120):
    """Output element types of operators over random input types (combinations ORT has no kernel
    for are skipped)."""
    types = [TP.FLOAT, TP.DOUBLE, TP.FLOAT16, TP.INT8, TP.UINT8, TP.INT16, TP.INT32, TP.INT64, TP.UINT32, TP.UINT64,
             TP.BOOL]
    unary = ["Abs", "Neg", "Sign", "Ceil", "Relu", "Sqrt", "Not", "IsNaN", "Identity", "Softmax", "CumSum",
             "ArgMax", "ReduceSum", "Shape", "Size", "NonZero", "Flatten", "Transpose", "Round", "Erf", "HardSwish",
             "BitwiseNot", "Clip", "Trilu", "Mish", "Gelu"]
    binary = ["Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "GreaterOrEqual", "And", "Xor", "Max",
              "Min", "BitShift", "BitwiseAnd", "PRelu", "Where", "Concat", "Sum", "Mean"]
    for i in range(count):
        t = types[rint(0, len(types) - 1)]
        if i % 2:
            op = unary[rint(0, len(unary) - 1)]
            ins = ["X"] + (["ax"] if op == "CumSum" else [])
            inits = {"ax": np.array(0, np.int64)} if op == "CumSum" else {}
            attrs = {"direction": "LEFT"} if op == "BitShift" else {}
            case(f"rnd{i:03d}t_{op}", 22 if op not in ("Gelu",) else 20, N(op, ins, ["Y"], **attrs),
                 [("X", t, ["N", 3])], ["Y"], inits, note="random")
        else:
            op = binary[rint(0, len(binary) - 1)]
            t2 = t if rint(0, 3) else types[rint(0, len(types) - 1)]
            attrs = {"direction": "LEFT"} if op == "BitShift" else {}
            attrs.update({"axis": 0} if op == "Concat" else {})
            if op == "Where":
                ins = [("c", BOOL, ["N", 1]), ("A", t, ["N", 3]), ("B", t2, [3])]
            else:
                ins = [("A", t, ["N", 3]), ("B", t2, [3] if op != "Concat" else [1, 3])]
            case(f"rnd{i:03d}t_{op}", 22, N(op, [x[0] for x in ins], ["Y"], **attrs), ins, ["Y"],
                 fills={"B": {"int_range": [1, 3]}}, note="random")



def random_aspect_cases(count=60):
    """Resize keep_aspect_ratio_policy over symbolic sizes: each axis a symbol or a number, sizes
    constant or repeating the input's own sizes (Shape + Concat), with and without axes. Its own
    generator, so the other random families stay as they were."""
    rng = np.random.default_rng(202611281)

    def ri(lo, hi):
        return int(rng.integers(lo, hi + 1))

    for i in range(count):
        names = ["N", "C", "H", "W"]
        dims = [names[k] if ri(0, 2) == 0 else ri(1, 12) for k in range(4)]
        policy = ["not_larger", "not_smaller"][ri(0, 1)]
        axes = [None, [2, 3], [0, 2, 3], [1, 3]][ri(0, 3)]
        ax = axes if axes else [0, 1, 2, 3]
        nodes, inits = [], {}
        parts = []
        for k, a in enumerate(ax):
            if isinstance(dims[a], str) and ri(0, 1):
                nodes += [N("Shape", ["X"], [f"s{k}"], start=a, end=a + 1)]
                parts.append(f"s{k}")
            else:
                inits[f"c{k}"] = I64(ri(1, 14))
                parts.append(f"c{k}")
        nodes += [N("Concat", parts, ["sz"], axis=0),
                  N("Resize", ["X", "", "", "sz"], ["Y"], keep_aspect_ratio_policy=policy,
                    **({"axes": axes} if axes else {}))]
        case(f"rnd{i:03d}k_aspect_{policy}", 18, nodes, [("X", F, dims)], ["Y"], inits, note="random")


random_cases()
random_shape_cases()
random_float_cases()
random_attention_cases()
random_version_cases()
random_index_cases()
random_type_cases()
random_aspect_cases()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_programs  # noqa: E402

# OXIR_PROGRAMS / OXIR_PROGRAM_SEED change the number and seed, for longer searches by hand;
# OXIR_PROGRAM_SHUFFLE=k writes every k-th program with its nodes out of order (default 4; 0: none).
gen_programs.program_cases(CASES, int(os.environ.get("OXIR_PROGRAMS", "400")),
                           int(os.environ.get("OXIR_PROGRAM_SEED", "20261125")),
                           int(os.environ.get("OXIR_PROGRAM_SHUFFLE", "4")))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/oxir/newops-models")
    os.makedirs(out, exist_ok=True)
    listing = []
    names = set()
    for c in CASES:
        assert c["name"] not in names, c["name"]
        names.add(c["name"])
        path = os.path.join(out, c["name"] + ".onnx")
        data = c["model"].SerializeToString()
        old = None
        if os.path.isfile(path):
            with open(path, "rb") as f:
                old = f.read()
        if old != data:
            with open(path, "wb") as f:
                f.write(data)
        listing.append({"name": c["name"], "model": c["name"] + ".onnx", "bindings": c["bindings"],
                        "fills": c["fills"], "random": c["note"] == "random"})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(listing, f, indent=0)
    print(f"wrote {len(listing)} models to {out}")


if __name__ == "__main__":
    main()
