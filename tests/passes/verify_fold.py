#!/usr/bin/python3
"""`oxir optimize`'s folding of constant tensor computations (rewrite/fold.hpp fold_constants),
checked by ONNX Runtime.

A node of the main graph is folded (replaced by a Constant of the same output name, in the same
place) when all of its present inputs are constants: initializers that are not graph inputs,
outputs of Constant nodes (value, value_float(s), value_int(s)) and outputs of folded nodes.
Operators: Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Slice, Gather,
Expand, Tile, ConstantOfShape, Split (data movement: bool, 8-64 bit integers, float16, bfloat16,
float, double, complex, float8 as bytes; Split from 2 with sizes as attribute below 13, as input
from 13, equal parts without them up to 17, num_outputs from 18 with ceil(dim / n) parts and a
smaller last one, each output its own Constant), Cast between those numeric types but complex and float8 where
the result is exactly defined, Add, Sub, Mul, Div (at opset 6 on equal shapes without the
broadcast attribute) and Neg on float, double and the integer types the operator's version
takes; Where (from 9: bool condition, X and Y of one type, bool, the integers, float16,
bfloat16, float, double or complex; multidirectional broadcasting of all three); Equal, Less,
Greater (from 7), LessOrEqual, GreaterOrEqual (from 12) of two inputs of one type, broadcast,
to bool (IEEE comparisons: NaN unequal and unordered, -0 == +0; float16 and bfloat16 by their
exact values); Not (from 1), And, Or, Xor (from 7) on bool, broadcast; Abs (from 6: floats with
the sign bit cleared, NaN too, its payload kept; signed integers |x|; unsigned ones unchanged);
Floor and Ceil (from 6 on float16, float, double, bfloat16 from 13; exact, -0 kept; NaN inputs
stay: runtimes differ on a signalling NaN's quiet bit); ReduceMax and ReduceMin (axes as attribute
below 18, as input from 18, keepdims, noop_with_empty_axes; the types each version takes; NaN
and -0 inputs stay, which wins differs; empty reductions are not evaluated). If (FoldOptions::branches): an If whose
condition is a constant bool is replaced by the branch it takes (x passed through, Identity,
Abs or Neg of x, or a Constant of the branch's own): its output folds when that branch computes
from constants, otherwise the branch's node takes its place (left open here; ONNX Runtime
compares the values).
For those the element types are exactly what the operator's version takes in onnx's schemas
(op_types: Equal-7 bool, int32, int64, Equal-11 the other integers and floats, Less/Greater-7
floats, -9 integers, bfloat16 from 13 (LessOrEqual/GreaterOrEqual and Where from 16), Abs-6
integers and floats...): a node of another type stays (invalid data), and so does one below
those opsets (older version). Never folded: strings
and the packed 4-/2-bit types, invalid data (an index out of range, a Reshape to another size,
shapes that do not broadcast, a type the version does not take...), integer division by zero or
INT_MIN / -1, Abs of a signed integer tensor holding INT_MIN, inexact Casts (a float to an
integer when not finite or out of range after truncation; an integer or a double to
float16/bfloat16 that is not exactly a float; NaN to float16/bfloat16), a backward Slice whose
end is INT_MAX (the spec and ONNX Runtime disagree), results larger than max(1 MiB, the node's
inputs), and (in the backend tests) what reads an integer Constant below opset 9 (Constant-1
holds float types only). fold_constants also folds the int32/int64 vectors whose contents shape
inference determines whatever computes them: an empty one computed from a non-constant is left
open ("shape folding"), not required to stay.

1. Generated models (seeded, --count of them): a graph input X (float [1]), constant sources
   (initializers; Constant nodes with value, value_float(s), value_int(s); random element types,
   small shapes, rank 0 and zero-size dims too; now and then an initializer that is also a graph
   input, which is not a constant and is fed another value), chains of 1-6 of the operators above
   with random valid attributes and inputs in the forms of a random opset 9-21, and outputs: the
   chains' results (bfloat16 through a Cast to float where ONNX Runtime runs the model: its JS
   API has no bfloat16),
   1 / result computed from X for float results (a zero's sign shows as an infinity's too;
   cmp_ort.js compares with Object.is, which tells -0 from +0), Cast(result) + X, nodes reading X. The chains' bool values for Where's
   condition and the logical operators come from bool constants, comparisons of constants (with
   edge values: NaNs of both signs, with payloads and signalling ones, -0 and +0, infinities,
   integer limits, elements equal to the other side's), comparisons of the chain's value
   (Where(x < c, x, y)), bool values of earlier chains, and comparisons of X (not constants);
   Abs reads such edge values now and then (INT_MIN among them). Some models hold a deliberately
   invalid node (Gather index out of range, Reshape to another size, integer Div by zero or
   INT_MIN / -1, Squeeze of a dim that is not 1, Expand to a shape that does not broadcast, Slice
   step 0, Where/comparison/logic of shapes that do not broadcast, a comparison, logic, Abs or
   Where of a type the version does not take), some results too large to fold (ConstantOfShape,
   Expand, Tile, Where/Equal/Less/And broadcast from [n, 1] and [1, m]) and some exactly at the
   limit; some chains run on strings (Where of them too, never folded), complex numbers (Where
   folds them), float8 or int4; models of kind no_kernel use the types ONNX Runtime has no
   kernels for (Where of bool, int8, int16, uint16-64, bfloat16; comparisons and Abs of
   bfloat16) and NaNs with payloads in float16, and end in Abs and Where of edge values. Then
   `oxir optimize IN OUT`, and:
     - ONNX Runtime (npm onnxruntime-node, graph optimizations off; cmp_ort.js) runs IN and OUT
       on the same inputs: every output bit-identical (SAME), or both rejected (BOTH_FAIL; one
       rejected and the other not is a failure). Not run: integer division by zero or INT_MIN / -1
       (a SIGFPE), complex, float8, int4, no_kernel (no kernels or no JS type): there the folded
       Constants must equal this script's own evaluation (numpy), bit for bit, NaNs' bits too
       for outputs computed through Abs or Where by data movement only;
     - every node this script's own evaluation says must fold has become a Constant (or was
       removed), every node it says must not fold (the reasons above, or an input that is not a
       constant) is still there (or was removed as unused: no graph output, and nothing that
       read it is computed in OUT any more; the generator leaves no dead node behind), and OUT
       has no node of those operators whose inputs are all constants (initializers that are not
       graph inputs, Constant outputs) unless a rule above excuses it;
     - OUT passes onnx's full check (check_model with full_check=True) whenever IN does;
     - the same model with its nodes moved into a subgraph (both branches of an If on X > 0, or
       the body of a Loop of 2 iterations whose carried value grows by X and whose length is a
       scan output; initializers and inputs stay outside as outer values) folds the same:
       after `oxir optimize` each subgraph holds the operators and Constants (by value) the
       main graph held, the growing value's length stays, and ONNX Runtime runs it identically
       before and after. When oxir's inference rejects the wrapped model (an invalid node; a
       type the If or Loop of that opset does not take), nothing may fold inside it.
   Where ONNX Runtime 1.30 does not do what the model says, the models avoid it: no bfloat16
   Expand or Tile (no kernels); no INT_MAX as the end of a backward Slice of a shape-like int64
   vector (taken as "to the start", where the definition clamps it to dim - 1; oxir's shape
   folding follows the definition); a Cast reading a Cast gets an Identity
   reader beside it (RemoveDuplicateCastTransformer, on even with graph optimizations off, would
   merge the two and skip a rounding: uint32 65534 -> bfloat16 -> uint8 gives 254, not 0);
   no Where of int8, int16, uint16-64, bool, bfloat16 and no comparison or Abs of bfloat16 (no
   kernels); a Tile, Where, comparison or Abs reading the float16 output of a Cast reads it
   through a Reshape to the same shape (it has no float16 kernel: InsertCastTransformer casts
   its input to float, and that Cast merged with the one before skips the rounding to float16:
   Equal(Cast(1.0001 -> float16), 1) gives false; an Identity would do for ONNX Runtime, but
   `oxir optimize` bypasses it); no Where whose result holds a -0 of a float type (it selects
   "cond ? X : 0" and "cond ? 0 : Y" and takes the first of the two that is not 0:
   Where(true, -0, y) gives +0); no float16 NaN with a payload (Where and Abs of float16 go
   through float: 0x7C01 comes out 0x7E01 or 0x7E00); Squeeze-1 axes sorted (onnx's shape
   inference, which ONNX Runtime runs, takes [1, 0] of [1, 1, 2] to [1, 2]).
2. The libonnx-testdata backend tests (node, pytorch-converted, pytorch-operator, simple) made of
   those operators only (and Constant), with test_data_set_0's inputs as initializers (removed
   from the graph inputs; the IR version raised to 4 where it was lower, so that initializers
   need not be graph inputs): `oxir optimize` must leave no node but the ones the rules above
   excuse (each listed with its reason); the folded outputs must equal the test's reference
   outputs bit for bit (float outputs that are only close are listed apart); ONNX Runtime must
   give the same outputs for the model before and after (and the reference within the backend
   tests' tolerance, cmp_ort.js "always_expect").

usage: verify_fold.py --oxir BUILD/bin/oxir [--count N] [--seed S] [--corpus DIR] [--keep DIR]
Exit status: 0 = all agree, 1 = some check failed (listed as FAIL: ...; oxir failing on a model
is one), 2 = setup/tool failure (cmp_ort.js crashed). Prints "SKIPPED: ..." and exits 0 without python3-onnx/numpy, node or
onnxruntime-node (verify_real.ensure_ort installs it into ~/.cache/oxir/ort when missing).
Failing models are copied to --keep (default /tmp/fold/fail).
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "infer", "real"))
from passes_common import CORPUS_KINDS, test_dirs, valid  # noqa: E402

try:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    from verify_upgrade import default_opset, expected_of  # noqa: E402
    import verify_real as vr  # noqa: E402  (ensure_ort, skip)
except ImportError as e:
    print("SKIPPED: %s lacks python3-onnx or numpy (%s)" % (sys.executable, e))
    sys.exit(0)
np.seterr(all="ignore")  # integer wrap-around, float overflow to infinity: what the operators do

SUMMARY = re.compile(r"main graph: (\d+) -> (\d+) nodes; (\d+) Identity nodes bypassed, (\d+) nodes folded "
                     r"into (\d+) Constants, (\d+) repeated nodes merged, (\d+) unused nodes and (\d+) unused "
                     r"initializers removed")

# ------------------------------------------------------------------------------------------------
# Element types and values

F32, U8, I8, U16, I16, I32, I64, STR, BOOL, F16, F64, U32, U64, C64, C128, BF16 = range(1, 17)
F8E4M3FN, INT4 = 17, 22
FLOAT8 = {17, 18, 19, 20, 24}  # one byte per element: data movement folds them, Cast and arithmetic do not
NP = {F32: np.float32, U8: np.uint8, I8: np.int8, U16: np.uint16, I16: np.int16, I32: np.int32, I64: np.int64,
      BOOL: np.bool_, F16: np.float16, F64: np.float64, U32: np.uint32, U64: np.uint64, C64: np.complex64,
      C128: np.complex128, BF16: np.float32, STR: object}  # bfloat16: float32 arrays of bfloat16 values
NP.update({t: np.uint8 for t in FLOAT8})  # float8: their bytes
TYPE_NAME = {F32: "float", U8: "uint8", I8: "int8", U16: "uint16", I16: "int16", I32: "int32", I64: "int64",
             STR: "string", BOOL: "bool", F16: "float16", F64: "double", U32: "uint32", U64: "uint64",
             C64: "complex64", C128: "complex128", BF16: "bfloat16", F8E4M3FN: "float8e4m3fn", INT4: "int4"}
ORT_DTYPE = {F32: "float32", U8: "uint8", I8: "int8", U16: "uint16", I16: "int16", I32: "int32", I64: "int64",
             BOOL: "bool", F64: "float64", U32: "uint32", U64: "uint64"}
INTS = {U8, I8, U16, I16, I32, I64, U32, U64}
FLOATS = {F16, BF16, F32, F64}
NUMERIC = INTS | FLOATS | {BOOL}
COMPLEX = {C64, C128}
ARITH_TYPES = {F32, F64} | INTS


def arith_allowed(op, opset, elem):
    """Whether the operator's version takes the element type (the folding relies on inference to
    reject the rest): Neg signed types only; Add/Sub/Mul/Div 8- and 16-bit integers from 14."""
    if op == "Neg":
        return elem in (F32, F64, I8, I16, I32, I64)
    return opset >= 14 or elem in (F32, F64, I32, I64, U32, U64)


def never_type(elem):
    """Strings and the packed 4- and 2-bit types: never folded."""
    return elem == STR or (elem >= 17 and elem not in FLOAT8)


def itemsize(elem):
    return 2 if elem == BF16 else np.dtype(NP[elem]).itemsize


class V:
    """A tensor value: its ONNX element type and a numpy array (bfloat16 held as float32)."""
    __slots__ = ("elem", "a")

    def __init__(self, elem, a):
        self.elem = elem
        self.a = np.array(a, dtype=NP[elem])

    @property
    def shape(self):
        return list(self.a.shape)

    @property
    def nbytes(self):
        return self.a.size * itemsize(self.elem)


def to_bf16(a):
    """float32 values rounded to bfloat16 (to nearest, ties to even; NaN stays NaN), as float32."""
    a = np.array(a, dtype=np.float32)
    b = a.reshape(-1).view(np.uint32).astype(np.uint64)
    r = (((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF).astype(np.uint32) << 16
    out = r.astype(np.uint32).view(np.float32).reshape(a.shape)
    out[np.isnan(a)] = np.float32("nan")
    return out


def to_proto(v, name):
    if v.elem == BF16:
        t = onnx.TensorProto(name=name, data_type=BF16)
        t.dims.extend(v.a.shape)
        t.raw_data = (np.ascontiguousarray(v.a, np.float32).reshape(-1).view(np.uint32) >> 16).astype("<u2").tobytes()
        return t
    if v.elem == STR:
        return helper.make_tensor(name, STR, v.a.shape, [s.encode() for s in v.a.reshape(-1)])
    return numpy_helper.from_array(v.a, name)


class NotEvaluated(Exception):
    """This script's evaluation does not cover the node (an operator, type or form it lacks)."""


class Invalid(Exception):
    """Data or attributes the operator rejects (an index out of range, a size that does not match)."""


def from_proto(t):
    dims = list(t.dims)
    if t.data_type == BF16:
        bits = np.frombuffer(t.raw_data, "<u2") if t.raw_data else np.array(t.int32_data, np.uint32) & 0xFFFF
        return V(BF16, (bits.astype(np.uint32) << 16).view(np.float32).reshape(dims))
    if t.data_type == STR:
        return V(STR, np.array([s.decode("utf-8", "replace") for s in t.string_data], dtype=object).reshape(dims))
    if t.data_type in FLOAT8:
        raw = t.raw_data if t.raw_data else bytes(x & 0xFF for x in t.int32_data)
        return V(t.data_type, np.frombuffer(raw, np.uint8).reshape(dims))
    if t.data_type not in NP:
        raise NotEvaluated("element type %d" % t.data_type)
    return V(t.data_type, numpy_helper.to_array(t))


def constant_value(node):
    """The value of a Constant node, or raises NotEvaluated (sparse_value)."""
    for a in node.attribute:
        if a.name == "value":
            return from_proto(a.t)
        if a.name == "value_float":
            return V(F32, a.f)
        if a.name == "value_floats":
            return V(F32, list(a.floats))
        if a.name == "value_int":
            return V(I64, a.i)
        if a.name == "value_ints":
            return V(I64, list(a.ints))
        if a.name == "value_string":
            return V(STR, a.s.decode("utf-8", "replace"))
        if a.name == "value_strings":
            return V(STR, [s.decode("utf-8", "replace") for s in a.strings])
    raise NotEvaluated("Constant without value, value_float(s), value_int(s)")


# ------------------------------------------------------------------------------------------------
# This script's own evaluation of the operators, and the folding rules

DATA_MOVEMENT = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Slice", "Gather",
                 "Expand", "Tile", "ConstantOfShape", "Split"}
ARITH = {"Add", "Sub", "Mul", "Div", "Neg"}
COMPARE = ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual")
LOGIC = ("Not", "And", "Or", "Xor")
# Selection, comparisons, logic and Abs: the element types each version takes are checked here
# (op_types), not left open.
REDUCE = ("ReduceMax", "ReduceMin")
SELECT = {"Where", "Abs", "Floor", "Ceil"} | set(COMPARE) | set(LOGIC) | set(REDUCE)
FOLD_OPS = DATA_MOVEMENT | ARITH | SELECT | {"Cast"}
MIN_OPSET = {"Reshape": 5, "Tile": 6, "Cast": 6, "ConstantOfShape": 9, "Add": 6, "Sub": 6, "Mul": 6, "Div": 6,
             "Neg": 6, "Concat": 4, "Expand": 8, "Where": 9, "Equal": 7, "Less": 7, "Greater": 7,
             "LessOrEqual": 12, "GreaterOrEqual": 12, "And": 7, "Or": 7, "Xor": 7, "Abs": 6,
             "Floor": 6, "Ceil": 6, "Split": 2, "ReduceMax": 1, "ReduceMin": 1}
# The reasons a node must stay (the rest, None, are the cases the rules leave open).
STRICT = ("input not constant", "never-folded type", "invalid data", "inexact Cast", "integer division",
          "too large", "runtimes differ", "Abs of INT_MIN", "older version")


def op_types(op, opset):
    """The element types T (Where: of X and Y; comparisons: of the inputs) the operator's version
    takes, as onnx's schemas list them; oxir's inference rejects the rest, and the node stays."""
    flt = {F16, F32, F64}
    if op == "Where":  # 9; 16 adds bfloat16
        return (NUMERIC - {BF16}) | COMPLEX | {STR} | ({BF16} if opset >= 16 else set())
    if op == "Equal":  # 7: bool, int32, int64; 11: the other integers and floats; 13: bfloat16; 19: string
        t = {BOOL, I32, I64} if opset < 11 else INTS | flt | {BOOL}
        return t | ({BF16} if opset >= 13 else set()) | ({STR} if opset >= 19 else set())
    if op in ("Less", "Greater"):  # 7: floats; 9: integers; 13: bfloat16
        return (flt if opset < 9 else INTS | flt) | ({BF16} if opset >= 13 else set())
    if op in ("LessOrEqual", "GreaterOrEqual"):  # 12; 16 adds bfloat16
        return INTS | flt | ({BF16} if opset >= 16 else set())
    if op in LOGIC:
        return {BOOL}
    if op == "Abs":  # 6: integers and floats; 13: bfloat16
        return (flt if opset < 6 else INTS | flt) | ({BF16} if opset >= 13 else set())
    if op in ("Floor", "Ceil"):  # 6: floats; 13: bfloat16
        return flt | ({BF16} if opset >= 13 else set())
    if op in REDUCE:  # 1: floats, int32/64, uint32/64; 12: int8, uint8; 13: bfloat16; 20: bool
        return flt | {I32, I64, U32, U64} | ({I8, U8} if opset >= 12 else set()) | (
            {BF16} if opset >= 13 else set()) | ({BOOL} if opset >= 20 else set())
    raise AssertionError(op)


def t_inputs(op):
    """The inputs of an operator of SELECT typed T (Where's condition is bool, always)."""
    return (1, 2) if op == "Where" else (0,) if op in ("Not", "Abs", "Floor", "Ceil") + REDUCE else (0, 1)


# Element types ONNX Runtime 1.30 has no CPU kernel for although the operator's version takes them:
# the models it runs avoid them (the models of kind no_kernel take them, checked by numpy only).
ORT_LACKS = {"Where": {I8, I16, U16, U32, U64, BOOL, BF16}, "Abs": {BF16}, "Floor": {BF16}, "Ceil": {BF16}}
ORT_LACKS.update({op: {BF16, U32, U64, BOOL, F16} for op in REDUCE})
ORT_LACKS.update({op: {BF16} for op in COMPARE})
MIB = 1 << 20


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def ints_of(v, what):
    if v.elem not in (I32, I64):
        raise Invalid("%s must be int32/int64" % what)
    return [int(x) for x in v.a.reshape(-1)]


def norm_axis(a, r, what="axis"):
    b = a + r if a < 0 else a
    if not 0 <= b < r:
        raise Invalid("%s %d out of range for rank %d" % (what, a, r))
    return b


def broadcast(*shapes):
    try:
        return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise Invalid("shapes %s do not broadcast" % (shapes,))


def int_div(a, b):
    """C's truncating integer division (the divisors are known non-zero)."""
    q = a // b
    fix = (a - q * b != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def cast(v, to):
    """Cast: (value, note) where note names why the result is not exactly defined; or raises."""
    src, a = v.elem, v.a
    if never_type(src) or never_type(to) or src in COMPLEX or to in COMPLEX:
        raise NotEvaluated("Cast %s -> %s" % (TYPE_NAME.get(src, src), TYPE_NAME.get(to, to)))
    nan = src in FLOATS and bool(np.isnan(a.astype(np.float64)).any())
    if to == BOOL:
        return V(BOOL, a != 0), ((None, "not in the contract", "NaN to bool") if nan else None)
    if src == BOOL:
        return V(to, a.astype(np.uint8).astype(NP[to])), None
    if src in FLOATS:
        af = a.astype(np.float64)
        if to in INTS:
            t = np.trunc(af)
            info = np.iinfo(NP[to])
            fine = np.isfinite(af) & (t >= float(info.min)) & (t < float(info.max) + 1.0)
            note = None if fine.all() else ("inexact Cast", "%s %s to %s" % (
                TYPE_NAME[src], "non-finite" if not np.isfinite(af).all() else "out of range", TYPE_NAME[to]))
            return V(to, np.where(fine, t, 0).astype(NP[to])), note
        if nan and src in (F16, BF16):
            note = (None, "not in the contract", "NaN from %s" % TYPE_NAME[src])
        elif nan and to in (F16, BF16):
            note = ("inexact Cast", "NaN to %s" % TYPE_NAME[to])
        else:
            note = None
        if to == F64:
            return V(F64, af), note
        f = af.astype(np.float32) if src == F64 else a.astype(np.float32)
        if to == F32:
            return V(F32, f), note
        if src == F64 and not note and not (f.astype(np.float64) == af).all():
            note = ("inexact Cast", "double not exactly a float to %s" % TYPE_NAME[to])
        return (V(F16, f.astype(np.float16)) if to == F16 else V(BF16, to_bf16(f))), note
    # integers
    if to in INTS:
        return V(to, a.astype(NP[to])), None
    if to in (F32, F64):
        return V(to, a.astype(NP[to])), None
    f = a.astype(np.float32)
    exact = all(int(x) == int(y) for x, y in zip(a.reshape(-1).tolist(), f.reshape(-1).tolist()))
    note = None if exact else ("inexact Cast", "%s not exactly a float to %s" % (TYPE_NAME[src], TYPE_NAME[to]))
    return (V(F16, f.astype(np.float16)) if to == F16 else V(BF16, to_bf16(f))), note


def run_node(node, opset, ins):
    """Evaluates one node: (output value or None, note or None); raises Invalid or NotEvaluated.
    ins: the input values, None for absent inputs ('') and unknown ones (NotEvaluated if needed)."""
    op = node.op_type

    def has(i):
        return i < len(node.input) and node.input[i] != ""

    def need(i):
        if not has(i):
            raise Invalid("input %d missing" % i)
        if ins[i] is None:
            raise NotEvaluated("input %d unknown" % i)
        return ins[i]

    if op == "Constant":
        return constant_value(node), None
    if op == "Identity":
        x = need(0)
        return V(x.elem, x.a.copy()), None
    if op == "Reshape":
        x, allowzero = need(0), attr(node, "allowzero", 0)
        shape = ints_of(need(1), "shape") if opset >= 5 else list(attr(node, "shape", []))
        out, minus = [], None
        for i, d in enumerate(shape):
            if d == -1:
                if minus is not None:
                    raise Invalid("two -1")
                minus = i
                out.append(1)
            elif d == 0 and not allowzero:
                if i >= x.a.ndim:
                    raise Invalid("0 beyond the input's rank")
                out.append(x.a.shape[i])
            elif d < 0:
                raise Invalid("negative size %d" % d)
            else:
                out.append(d)
        if minus is not None:
            if allowzero and 0 in shape:
                raise Invalid("-1 and 0 with allowzero")
            rest = int(np.prod(out))
            if rest == 0 or x.a.size % rest:
                raise Invalid("-1 cannot be inferred")
            out[minus] = x.a.size // rest
        if int(np.prod(out)) != x.a.size:
            raise Invalid("size %d to %s" % (x.a.size, out))
        return V(x.elem, x.a.reshape(out)), None
    if op == "Flatten":
        x = need(0)
        r = x.a.ndim
        axis = attr(node, "axis", 1)
        axis = axis + r if axis < 0 else axis
        if not 0 <= axis <= r:
            raise Invalid("axis out of range")
        s = x.shape
        return V(x.elem, x.a.reshape(int(np.prod(s[:axis])), int(np.prod(s[axis:])))), None
    if op in ("Squeeze", "Unsqueeze"):
        x = need(0)
        if opset >= 13:
            axes = ints_of(need(1), "axes") if has(1) else None
        else:
            axes = attr(node, "axes")
            axes = list(axes) if axes is not None else None
        r = x.a.ndim
        if op == "Squeeze":
            if axes is None:
                return V(x.elem, x.a.reshape([d for d in x.shape if d != 1])), None
            axes = [norm_axis(a, r) for a in axes]
            if len(set(axes)) != len(axes) or any(x.shape[a] != 1 for a in axes):
                raise Invalid("Squeeze axes %s of %s" % (axes, x.shape))
            return V(x.elem, x.a.reshape([d for i, d in enumerate(x.shape) if i not in axes])), None
        if axes is None:
            raise Invalid("Unsqueeze without axes")
        ro = r + len(axes)
        axes = [norm_axis(a, ro) for a in axes]
        if len(set(axes)) != len(axes):
            raise Invalid("repeated axes")
        it = iter(x.shape)
        return V(x.elem, x.a.reshape([1 if i in axes else next(it) for i in range(ro)])), None
    if op == "Transpose":
        x = need(0)
        perm = attr(node, "perm")
        perm = list(perm) if perm is not None else list(range(x.a.ndim))[::-1]
        if sorted(perm) != list(range(x.a.ndim)):
            raise Invalid("perm %s" % perm)
        return V(x.elem, np.transpose(x.a, perm)), None
    if op == "Concat":
        xs = [need(i) for i in range(len(node.input))]
        r = xs[0].a.ndim
        if r == 0 or any(x.a.ndim != r for x in xs) or any(x.elem != xs[0].elem for x in xs):
            raise Invalid("Concat of ranks/types that differ or rank 0")
        axis = norm_axis(attr(node, "axis"), r)
        for x in xs:
            if [d for i, d in enumerate(x.shape) if i != axis] != [d for i, d in enumerate(xs[0].shape) if i != axis]:
                raise Invalid("Concat of shapes %s" % [x.shape for x in xs])
        return V(xs[0].elem, np.concatenate([x.a for x in xs], axis=axis)), None
    if op == "Slice":
        x = need(0)
        r = x.a.ndim
        if opset >= 10:
            starts, ends = ints_of(need(1), "starts"), ints_of(need(2), "ends")
            axes = ints_of(need(3), "axes") if has(3) else list(range(len(starts)))
            steps = ints_of(need(4), "steps") if has(4) else [1] * len(starts)
        else:
            starts, ends = list(attr(node, "starts")), list(attr(node, "ends"))
            axes = attr(node, "axes")
            axes = list(axes) if axes is not None else list(range(len(starts)))
            steps = [1] * len(starts)
        if not len(starts) == len(ends) == len(axes) == len(steps):
            raise Invalid("Slice parameters of different lengths")
        axes = [norm_axis(a, r) for a in axes]
        if len(set(axes)) != len(axes) or 0 in steps:
            raise Invalid("repeated axes or step 0")
        a, far = x.a, False
        for ax, st, en, sp in zip(axes, starts, ends, steps):
            d = a.shape[ax]
            st = st + d if st < 0 else st
            en = en + d if en < 0 else en
            if sp > 0:
                st, en = min(max(st, 0), d), min(max(en, 0), d)
            else:
                if en >= 2 ** 31 - 1:
                    far = True
                st, en = min(max(st, 0), d - 1), min(max(en, -1), d - 1)
            a = np.take(a, np.arange(st, en, sp, dtype=np.int64), axis=ax)
        if far:
            return V(x.elem, a), ("runtimes differ", "a negative step with an end of INT_MAX: the spec clamps "
                                  "it to the last index (an empty slice), ONNX Runtime reads 'to the start'")
        return V(x.elem, a), None
    if op == "Gather":
        x, idx = need(0), need(1)
        if x.a.ndim == 0:
            raise Invalid("Gather from a scalar")
        axis = norm_axis(attr(node, "axis", 0), x.a.ndim)
        d = x.a.shape[axis]
        i = np.array(ints_of(idx, "indices"), dtype=np.int64).reshape(idx.shape)
        i = np.where(i < 0, i + d, i)
        if ((i < 0) | (i >= d)).any():
            raise Invalid("index out of range [%d, %d)" % (-d, d))
        return V(x.elem, np.take(x.a, i, axis=axis)), None
    if op == "Expand":
        x = need(0)
        shape = ints_of(need(1), "shape")
        if any(s < 0 for s in shape):
            raise Invalid("negative size")
        return V(x.elem, np.broadcast_to(x.a, broadcast(x.shape, shape)).copy()), None
    if op == "Tile":
        x = need(0)
        reps = ints_of(need(1), "repeats")
        if len(reps) != x.a.ndim or any(n < 0 for n in reps):
            raise Invalid("repeats %s for rank %d" % (reps, x.a.ndim))
        return V(x.elem, np.tile(x.a, reps) if reps else x.a.copy()), None
    if op == "ConstantOfShape":
        shape = ints_of(need(0), "shape")
        if need(0).elem != I64 or any(s < 0 for s in shape):
            raise Invalid("shape %s" % shape)
        t = attr(node, "value")
        v = from_proto(t) if t is not None else V(F32, [0.0])
        if v.a.size != 1:
            raise Invalid("value of %d elements" % v.a.size)
        return V(v.elem, np.full(shape, v.a.reshape(-1)[0], dtype=NP[v.elem])), None
    if op == "Cast":
        to = attr(node, "to")
        if not isinstance(to, int):
            raise NotEvaluated("Cast-1's string 'to'")
        return cast(need(0), to)
    if op == "Neg":
        x = need(0)
        if x.elem not in ARITH_TYPES:
            raise NotEvaluated("Neg on %s" % TYPE_NAME.get(x.elem))
        with np.errstate(all="ignore"):
            return V(x.elem, np.negative(x.a)), None
    if op in ("Add", "Sub", "Mul", "Div"):
        x, y = need(0), need(1)
        if x.elem != y.elem:
            raise Invalid("types differ")
        if x.elem not in ARITH_TYPES:
            raise NotEvaluated("%s on %s" % (op, TYPE_NAME.get(x.elem)))
        a, b = x.a, y.a
        if opset < 7:
            if attr(node, "broadcast", 0):
                axis = attr(node, "axis", a.ndim - b.ndim)
                if axis < 0 or axis + b.ndim > a.ndim:
                    raise Invalid("legacy broadcast axis")
                b = b.reshape([1] * axis + list(b.shape) + [1] * (a.ndim - axis - b.ndim))
            elif a.shape != b.shape:
                raise Invalid("shapes differ without broadcast")
        shape = broadcast(a.shape, b.shape)
        note = None
        with np.errstate(all="ignore"):
            if op == "Add":
                r = a + b
            elif op == "Sub":
                r = a - b
            elif op == "Mul":
                r = a * b
            elif x.elem in INTS:
                aa, bb = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
                if (bb == 0).any():
                    return None, ("integer division", "by zero")
                if x.elem in (I8, I16, I32, I64) and ((aa == np.iinfo(NP[x.elem]).min) & (bb == -1)).any():
                    return None, ("integer division", "INT_MIN / -1")
                r = int_div(aa, bb)
            else:
                r = a / b
        return V(x.elem, np.asarray(r, dtype=NP[x.elem]).reshape(shape)), note
    if op == "Where":
        c, x, y = need(0), need(1), need(2)
        if c.elem != BOOL or x.elem != y.elem:
            raise Invalid("Where of %s, %s, %s" % tuple(TYPE_NAME.get(v.elem, v.elem) for v in (c, x, y)))
        shape = broadcast(c.shape, x.shape, y.shape)
        return V(x.elem, np.where(c.a, x.a, y.a).reshape(shape)), None
    if op in COMPARE:
        a, b = need(0), need(1)
        if a.elem != b.elem:
            raise Invalid("types differ")
        if a.elem in COMPLEX or a.elem in FLOAT8 or a.elem not in NP:
            raise NotEvaluated("%s on %s" % (op, TYPE_NAME.get(a.elem, a.elem)))
        shape = broadcast(a.shape, b.shape)
        # IEEE comparisons (NaN unordered, -0 == +0); bfloat16 held exactly as float32.
        f = {"Equal": np.equal, "Less": np.less, "Greater": np.greater, "LessOrEqual": np.less_equal,
             "GreaterOrEqual": np.greater_equal}[op]
        return V(BOOL, np.asarray(f(a.a, b.a), dtype=np.bool_).reshape(shape)), None
    if op in LOGIC:
        xs = [need(i) for i in range(1 if op == "Not" else 2)]
        if any(x.elem != BOOL for x in xs):
            raise Invalid("%s of %s" % (op, "/".join(TYPE_NAME.get(x.elem, str(x.elem)) for x in xs)))
        if op == "Not":
            return V(BOOL, np.logical_not(xs[0].a)), None
        shape = broadcast(xs[0].shape, xs[1].shape)
        f = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}[op]
        return V(BOOL, np.asarray(f(xs[0].a, xs[1].a)).reshape(shape)), None
    if op == "Abs":
        x = need(0)
        if x.elem in FLOATS:  # the sign bit cleared, NaNs too (their payload kept)
            u = {F16: np.uint16, F64: np.uint64}.get(x.elem, np.uint32)  # bfloat16 held as float32
            a = np.array(x.a, order="C")  # (ascontiguousarray would make a scalar 1-d)
            return V(x.elem, (a.view(u) & u(np.iinfo(u).max >> 1)).view(a.dtype)), None
        if x.elem not in INTS:
            raise NotEvaluated("Abs on %s" % TYPE_NAME.get(x.elem, x.elem))
        with np.errstate(all="ignore"):
            r = np.abs(x.a)
        if x.elem in (I8, I16, I32, I64) and (x.a == np.iinfo(NP[x.elem]).min).any():
            return V(x.elem, r), ("Abs of INT_MIN", "%s %d (|INT_MIN| does not fit)" % (
                TYPE_NAME[x.elem], np.iinfo(NP[x.elem]).min))
        return V(x.elem, r), None
    if op in ("Floor", "Ceil"):
        x = need(0)
        if x.elem not in FLOATS:
            raise NotEvaluated("%s on %s" % (op, TYPE_NAME.get(x.elem, x.elem)))
        r = (np.floor if op == "Floor" else np.ceil)(x.a)  # exact; -0 and infinities kept
        if np.isnan(x.a).any():  # whether a signalling NaN comes back quiet differs between runtimes
            return V(x.elem, r), ("runtimes differ", "%s of NaN" % op)
        return V(x.elem, r), None
    if op == "Split":
        return run_split(node, opset, need, has), None
    if op in REDUCE:
        return run_reduce(node, opset, need, has)
    raise NotEvaluated("operator %s" % op)


def run_reduce(node, opset, need, has):
    """ReduceMax/ReduceMin: axes as attribute (below 18) or input, keepdims, noop_with_empty_axes
    (18). NaN and -0 inputs must stay (which wins differs between runtimes); an empty reduction
    is not evaluated (its value changed between versions)."""
    x = need(0)
    axes = ints_of(need(1), "axes") if opset >= 18 and has(1) else list(attr(node, "axes", []) or [])
    keep = attr(node, "keepdims", 1)
    if not axes and opset >= 18 and attr(node, "noop_with_empty_axes", 0):
        return V(x.elem, x.a.copy()), None
    if x.elem in COMPLEX or x.elem not in NP:
        raise NotEvaluated("%s on %s" % (node.op_type, TYPE_NAME.get(x.elem, x.elem)))
    r = x.a.ndim
    axes = [norm_axis(a, r) for a in axes] if axes else list(range(r))
    if len(set(axes)) != len(axes):
        raise Invalid("repeated axes %s" % axes)
    shape = [1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes]
    if any(x.shape[a] == 0 for a in axes):  # (ONNX Runtime 1.30 departs from the spec there)
        raise NotEvaluated("a reduction over an empty axis")
    if int(np.prod(shape)) == 0:
        return V(x.elem, np.zeros(shape, dtype=x.a.dtype)), None
    f = np.max if node.op_type == "ReduceMax" else np.min
    out = V(x.elem, np.asarray(f(x.a, axis=tuple(axes), keepdims=True)).reshape(shape))
    if x.elem in FLOATS and (np.isnan(x.a).any() or ((x.a == 0) & np.signbit(x.a)).any()):
        return out, ("runtimes differ", "%s of NaN or -0" % node.op_type)
    return out, None


def run_split(node, opset, need, has):
    """Split's outputs (a list of values): sizes from the attribute (below 13) or the input, else
    num_outputs (from 18: ceil(dim / n) each, the rest last), else equal parts."""
    x = need(0)
    if x.a.ndim == 0:
        raise Invalid("Split of a scalar")
    r, k = x.a.ndim, len(node.output)
    axis = attr(node, "axis", 0)
    if axis < 0 and opset < 11:
        raise Invalid("negative axis below opset 11")
    axis = norm_axis(axis, r)
    dim = x.shape[axis]
    sizes = None
    if opset < 13:
        if has(1):
            raise Invalid("a second input below opset 13")
        if attr(node, "split") is not None:
            sizes = list(attr(node, "split"))
    elif has(1):
        if need(1).elem != I64 or need(1).a.ndim != 1:
            raise Invalid("split not a 1-D int64 tensor")
        sizes = ints_of(need(1), "split")
    num = attr(node, "num_outputs") if opset >= 18 else None
    if sizes is not None:
        if num is not None:
            raise Invalid("both split and num_outputs")
        if len(sizes) != k or any(v < 0 for v in sizes) or sum(sizes) != dim:
            raise Invalid("split %s of %d into %d outputs" % (sizes, dim, k))
    elif num is not None:
        if num != k:
            raise Invalid("num_outputs %d for %d outputs" % (num, k))
        chunk = -(-dim // k)
        if dim - chunk * (k - 1) < 1:
            raise NotEvaluated("num_outputs %d of %d leaves no last part" % (k, dim))
        sizes = [chunk] * (k - 1) + [dim - chunk * (k - 1)]
    else:
        if opset >= 18:
            raise Invalid("neither split nor num_outputs (required from opset 18)")
        if dim % k:
            raise Invalid("%d does not split evenly into %d" % (dim, k))
        sizes = [dim // k] * k
    bounds = np.cumsum([0] + sizes)
    return [V(x.elem, np.take(x.a, np.arange(bounds[i], bounds[i + 1]), axis=axis)) for i in range(k)]


def judge(node, opset, ins, consts):
    """(output value or None, expectation, category, text): expectation True when the rules say
    the node folds, False when they say it must stay, None when they leave it open.
    consts: per input, True (a constant), False (not) or None (undecided)."""
    op = node.op_type
    out, note, err = None, None, None
    try:
        out, note = run_node(node, opset, ins)
    except Invalid as e:
        err = ("invalid data", str(e))
    except NotEvaluated as e:
        err = (None, str(e))
    if node.domain not in ("", "ai.onnx") or op not in FOLD_OPS:
        return out, None, "not in the contract", "operator %s" % op
    if opset < MIN_OPSET.get(op, 1):
        if op in SELECT:  # (their older versions: legacy broadcasting or other type lists)
            return out, False, "older version", "%s below opset %d" % (op, MIN_OPSET[op])
        return out, None, "not in the contract", "%s below opset %d" % (op, MIN_OPSET[op])
    present = [i for i, n in enumerate(node.input) if n]
    outs = out if isinstance(out, list) else [out] if out is not None else []
    if any(consts[i] is False for i in present):
        if any(o.elem in (I32, I64) and o.a.ndim == 1 and o.a.size == 0 for o in outs):
            # fold_constants' first part folds the int32/int64 vectors whose contents shape
            # inference determines, whatever computes them: an empty one's.
            return out, None, "shape folding", "an empty %s vector" % TYPE_NAME[outs[0].elem]
        return out, False, "input not constant", ""
    types = [ins[i].elem for i in present if ins[i] is not None]
    if op == "Cast":
        types.append(attr(node, "to"))
    elif op == "ConstantOfShape" and attr(node, "value") is not None:
        types.append(attr(node, "value").data_type)
    types += [o.elem for o in outs[:1]]
    if any(isinstance(t, int) and (never_type(t) or (t in FLOAT8 and (op not in DATA_MOVEMENT or
                                                                     op == "ConstantOfShape"))) for t in types):
        return out, False, "never-folded type", "/".join(sorted({TYPE_NAME.get(t, str(t)) for t in types}))
    if op in ARITH and any(t not in ARITH_TYPES for t in types if isinstance(t, int)):
        return out, None, "not in the contract", "%s on %s" % (op, TYPE_NAME.get(types[0], types[0]))
    if op in ARITH and any(not arith_allowed(op, opset, t) for t in types if isinstance(t, int)):
        return out, False, "invalid data", "%s-%d on %s (its type constraints)" % (op, opset, TYPE_NAME.get(types[0]))
    if op in SELECT:
        tt = [ins[i].elem for i in t_inputs(op) if i < len(node.input) and node.input[i] and ins[i] is not None]
        if any(t not in op_types(op, opset) for t in tt):
            return out, False, "invalid data", "%s-%d on %s (its type constraints)" % (
                op, opset, "/".join(TYPE_NAME.get(t, str(t)) for t in tt))

    if op == "Cast" and any(t in COMPLEX for t in types if isinstance(t, int)):
        return out, None, "not in the contract", "Cast of complex"
    if op in ARITH and opset < 7 and attr(node, "broadcast", 0):
        return out, None, "not in the contract", "%s-6's broadcast attribute" % op
    if any(consts[i] is None for i in present):
        return out, None, "undecided input", ""
    if err:
        return out, (False if err[0] else None), err[0] or "not evaluated", err[1]
    if note:
        return out, (False if note[0] else None), note[0] or note[1], note[-1]
    limit = max(MIB, sum(ins[i].nbytes for i in present))
    if any(o.nbytes > limit for o in outs):
        return out, False, "too large", "%d bytes > %d" % (max(o.nbytes for o in outs), limit)
    return out, True, "", ""


# ------------------------------------------------------------------------------------------------
# Generated models

FLOAT_SPECIALS = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e-45, 1e-40, 3.4028234663852886e38,
                  -3.4e38, 65504.0, 65519.0, 65520.0, 7e4, 1e-8, 6e-8, 2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 128,
                  2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1.8e19, 9.2233715e18, 127.9, -128.9, 255.9, 256.0, -0.7, 0.5,
                  1.5, 2.5, -2.5, 1e300, -1e-310, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -11, 1 + 3 * 2 ** -11,
                  1 + 2 ** -24, 1 / 3, 4294967295.5, 32767.9, -32768.9, 65535.9, 2.0 ** 24 + 1]
INT_SPECIALS = [0, 1, -1, 2 ** 24 + 1, -(2 ** 24) - 1, 2049, 65505, 2 ** 53 + 1, 2 ** 31, -(2 ** 31) - 1,
                2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1, 2 ** 32 + 1, 127, -128, 255, 32767, 65535]
SOURCE_TYPES = [(F32, 4), (I64, 3), (I32, 2), (F64, 2), (F16, 1.5), (BF16, 1.5), (BOOL, 1), (U8, 1), (I8, 1),
                (U16, 0.5), (I16, 0.5), (U32, 0.5), (U64, 0.5)]
OPS = [("Identity", 1), ("Reshape", 2), ("Flatten", 1), ("Squeeze", 1), ("Unsqueeze", 1.5), ("Transpose", 1.5),
       ("Concat", 1.5), ("Slice", 2), ("Gather", 2), ("Expand", 1.5), ("Tile", 1.5), ("ConstantOfShape", 0.7),
       ("Cast", 2.5), ("Add", 1), ("Sub", 1), ("Mul", 1), ("Div", 1.2), ("Neg", 0.7),
       ("Where", 1.5), ("Equal", 0.5), ("Less", 0.4), ("Greater", 0.4), ("LessOrEqual", 0.3),
       ("GreaterOrEqual", 0.3), ("Not", 0.4), ("And", 0.4), ("Or", 0.3), ("Xor", 0.3), ("Abs", 0.8),
       ("Floor", 0.4), ("Ceil", 0.4), ("Split", 1.2), ("If", 0.8), ("ReduceMax", 0.6), ("ReduceMin", 0.6)]
# Chains over special values (NaN, infinities, -0, subnormals, the integer types' limits, float
# rounding ties) through Casts, arithmetic, comparisons, Abs and Where: the rules' edge cases.
CAST_OPS = [("Cast", 6), ("Identity", 0.5), ("Add", 1), ("Sub", 1), ("Mul", 1), ("Div", 1), ("Neg", 1),
            ("Abs", 1), ("Floor", 0.4), ("Ceil", 0.4), ("Where", 0.7), ("Equal", 0.4), ("Less", 0.3), ("Greater", 0.3), ("LessOrEqual", 0.3),
            ("GreaterOrEqual", 0.3)]
# Models ONNX Runtime does not run (kind no_kernel): the types it has no kernels for, more often.
NO_KERNEL_TYPES = [(BF16, 3), (BOOL, 2), (I8, 1.5), (I16, 1.5), (U16, 1.5), (U32, 1.5), (U64, 1.5), (F16, 1),
                   (F32, 1), (I64, 1)]
NO_KERNEL_OPS = [(op, w * (4 if op in ("Abs", "Where") else 3 if op in SELECT else 1)) for op, w in OPS]
MAX_ELEMS = 2000


NAN_BITS = {  # quiet NaNs of both signs; NaNs with payloads and signalling ones (bfloat16 as float32 bits)
    F16: ([0x7E00, 0xFE00], [0x7C01, 0xFD55, 0x7E55]),
    BF16: ([0x7FC00000, 0xFFC00000], [0x7F810000, 0xFFD50000, 0x7FC50000]),
    F32: ([0x7FC00000, 0xFFC00000], [0x7F800001, 0xFFD55555, 0x7FC00055]),
    F64: ([0x7FF8000000000000, 0xFFF8000000000000], [0x7FF0000000000001, 0xFFF5555555555555, 0x7FF8000000000055])}


def broadcastable(*shapes):
    try:
        np.broadcast_shapes(*[tuple(s) for s in shapes])
        return True
    except ValueError:
        return False


def pick(rng, weighted):
    return rng.choices([w[0] for w in weighted], [w[1] for w in weighted])[0]


def rand_shape(rng):
    r = rng.choices([0, 1, 2, 3], [15, 35, 30, 20])[0]
    dims = [rng.randint(1, 4) for _ in range(r)]
    if dims and rng.random() < 0.08:
        dims[rng.randrange(r)] = 0
    return dims


def rand_float(rng):
    k = rng.random()
    if k < 0.3:
        return round(rng.uniform(-10, 10), rng.randint(0, 6))
    if k < 0.6:
        return float(rng.randint(-300, 300))
    if k < 0.8:
        return rng.randint(-64, 64) / 8
    return rng.uniform(-1e4, 1e4)


def rand_value(rng, elem, shape, special=None):
    n = int(np.prod(shape)) if shape else 1
    if special is None:
        special = rng.random() < 0.3
    if elem == BOOL:
        return V(BOOL, np.array([rng.random() < 0.5 for _ in range(n)], dtype=np.bool_).reshape(shape))
    if elem in INTS:
        info = np.iinfo(NP[elem])
        lo, hi = int(info.min), int(info.max)
        pool = [v for v in INT_SPECIALS + [lo, hi, lo + 1, hi - 1] if lo <= v <= hi]
        vals = [rng.choice(pool) if special and rng.random() < 0.3 else rng.randint(max(lo, -20), min(hi, 40))
                for _ in range(n)]
        return V(elem, np.array(vals, dtype=NP[elem]).reshape(shape))
    if elem == STR:
        return V(STR, np.array([rng.choice(["", "a", "bc", "h\u00e9llo", "x y", "0"]) for _ in range(n)],
                               dtype=object).reshape(shape))
    vals = [rng.choice(FLOAT_SPECIALS) if special and rng.random() < 0.35 else rand_float(rng) for _ in range(n)]
    a = np.array(vals, dtype=np.float64).reshape(shape)
    with np.errstate(all="ignore"):
        if elem == F64:
            return V(F64, a)
        if elem in COMPLEX:
            b = np.array([rand_float(rng) for _ in range(n)], dtype=np.float64).reshape(shape)
            return V(elem, a + 1j * b)
        f = a.astype(np.float32)
        return V(elem, f.astype(np.float16) if elem == F16 else to_bf16(f) if elem == BF16 else f)


class GenRetry(Exception):
    """The generator made something it did not mean to (an invalid node where a valid one was
    wanted): the step is dropped."""


class Case:
    """One generated model under construction."""

    def __init__(self, k, rng, opset, kind):
        self.k, self.rng, self.opset, self.kind = k, rng, opset, kind
        self.nodes, self.inits, self.extra_inputs, self.outputs = [], [], [], []
        self.vals = {"X": V(F32, [0.75])}
        self.elems = {"X": F32}  # element types, also of values this script cannot compute
        self.const = {"X": False}
        self.spec = {"X": {"shape": [1], "dtype": "float32", "value": [0.75]}}
        self.expect = {}  # output name -> (expectation, category, text, op)
        self.invalid = []  # outputs of deliberately invalid nodes
        self.pool = []  # constant values chains may take
        self.n = 0
        self.run_ort = True
        self.numpy_check = False  # compare the folded outputs with this script's values (no ORT)
        self.x_cast = {}
        self.dangling = []

    def nodes_inputs(self):
        return {i for n in self.nodes for i in n.input}

    def name(self, p):
        self.n += 1
        return "%s%d" % (p, self.n)

    def source(self, v, how=None, pool=True):
        """A constant holding v: an initializer, a Constant node, or (how="input") an initializer
        that is also a graph input, fed another value."""
        rng, name = self.rng, self.name("c")
        if how is None:
            kinds = [("init", 4), ("const", 3)]
            if self.opset >= 12 and v.elem in (F32, I64) and v.a.ndim <= 1 and v.a.size:
                kinds.append(("attr", 3))
            if v.elem in (F32, I64, I32) and v.a.size and self.kind == "normal":
                kinds.append(("input", 0.3))
            how = pick(rng, kinds)
        if how in ("init", "input"):
            self.inits.append(to_proto(v, name))
        elif how == "const":
            self.nodes.append(helper.make_node("Constant", [], [name], value=to_proto(v, name)))
        else:
            key = ("value_float" if v.a.ndim == 0 else "value_floats") if v.elem == F32 else \
                ("value_int" if v.a.ndim == 0 else "value_ints")
            val = v.a.tolist()
            self.nodes.append(helper.make_node("Constant", [], [name], **{key: val}))
        self.const[name] = how != "input"
        self.vals[name] = v
        self.elems[name] = v.elem
        if how == "input":
            fed = rand_value(rng, v.elem, v.shape, special=False)
            self.extra_inputs.append(helper.make_tensor_value_info(name, v.elem, v.shape))
            self.spec[name] = {"shape": v.shape, "dtype": ORT_DTYPE[v.elem], "value": fed.a.reshape(-1).tolist()}
            self.vals[name] = fed
        if pool and how != "input":
            self.pool.append(name)
        return name

    def param(self, values, elem=I64):
        return self.source(V(elem, values), how=pick(self.rng, [("init", 1), ("const", 1)] + (
            [("attr", 1)] if self.opset >= 12 and elem == I64 and len(values) else [])), pool=False)

    def add(self, op, inputs, attrs=None, invalid=False, outputs=1):
        """Adds one node; its output's name (a list of `outputs` names when that is not 1)."""
        if self.run_ort and (op == "Tile" or op in SELECT):
            # ONNX Runtime has no float16 kernels for these: it casts their float16 inputs to float
            # (InsertCastTransformer) and then drops the pair Cast(A -> float16) -> Cast(float16
            # -> float) (RemoveDuplicateCastTransformer), skipping the rounding to float16 of a
            # Cast that feeds them directly (Cast(1.0001 -> float16) -> Abs gives 1.0001, not 1).
            # A Reshape to the same shape in between keeps it (an Identity would too, but `oxir
            # optimize` bypasses Identity nodes).
            casts = {n.output[0] for n in self.nodes if n.op_type == "Cast"}
            inputs = [self.add("Reshape", [i, self.param(self.vals[i].shape)])
                      if i in casts and self.elems.get(i) == F16 and self.vals.get(i) is not None else i
                      for i in inputs]
        names = [self.name("v") for _ in range(outputs)]
        node = helper.make_node(op, inputs, names, **(attrs or {}))
        ins = [self.vals.get(i) if i else None for i in inputs]
        consts = [self.const.get(i) if i else True for i in inputs]
        v, e, cat, text = judge(node, self.opset, ins, consts)
        vs = v if isinstance(v, list) else [v] * outputs
        if invalid:
            if e is not False or cat not in ("invalid data", "integer division"):
                raise GenRetry("meant invalid, judged %s %s %s" % (e, cat, text))
            self.invalid.extend(names)
        elif cat in ("invalid data", "not evaluated") or v is None:
            raise GenRetry("%s: %s %s" % (op, cat, text))
        if any(x is not None and x.a.size > MAX_ELEMS for x in vs) and self.kind not in BIG_KINDS:
            raise GenRetry("too many elements")
        self.nodes.append(node)
        for out, x in zip(names, vs):
            self.vals[out] = x
            self.elems[out] = x.elem if x is not None else BOOL if op in COMPARE or op in LOGIC else \
                self.elems.get(inputs[1]) if op == "Where" else (attrs or {}).get("to", self.elems.get(inputs[0]))
            self.const[out] = e
            self.expect[out] = (e, cat, text, op)
        return names[0] if outputs == 1 else names

    def nan_exact(self, name):
        """Whether name comes from constants through Abs or Where and data movement only (no Cast,
        no arithmetic, whose NaNs' bits this script does not pin down): its NaNs' bits must match."""
        producers = {o: n for n in self.nodes for o in n.output}
        stack, seen, through = [name], set(), False
        while stack:
            n = producers.get(stack.pop())
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            if n.op_type == "Cast" or n.op_type in ARITH:
                return False
            through |= n.op_type in ("Abs", "Where")
            stack.extend(i for i in n.input if i)
        return through

    def keep_alive(self, n0):
        """After an attempt that gave up: the nodes it added (from self.nodes[n0]) that nothing
        reads become outputs, so that none is dead code (`oxir optimize` removes dead nodes,
        and a node that must stay would seem folded)."""
        read = self.nodes_inputs()
        for n in self.nodes[n0:]:
            if n.op_type != "Constant" and n.output[0] not in read:
                self.dangling.append(n.output[0])

    def attempt(self, fn, *args):
        """fn(*args), or None when it gives up (GenRetry too), keeping what it added alive."""
        n0 = len(self.nodes)
        try:
            out = fn(*args)
        except GenRetry:
            out = None
        if out is None:
            self.keep_alive(n0)
        return out

    def x_as(self, elem):
        if elem not in self.x_cast:
            self.x_cast[elem] = self.add("Cast", ["X"], {"to": elem})
        return self.x_cast[elem]

    # -- one generator per operator: a node reading x (or None when it does not apply) ----------

    def g_Identity(self, x):
        return self.add("Identity", [x])

    def g_Reshape(self, x):
        rng, v = self.rng, self.vals[x]
        n = v.a.size
        if n == 0:
            dims = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
            dims[rng.randrange(len(dims))] = 0
        else:
            dims = [n]
            for _ in range(rng.randint(0, 3)):
                i = rng.randrange(len(dims))
                divs = [d for d in range(1, dims[i] + 1) if dims[i] % d == 0]
                d = rng.choice(divs)
                dims[i:i + 1] = [d, dims[i] // d]
            if n == 1 and rng.random() < 0.3:
                dims = []
        allowzero = self.opset >= 14 and rng.random() < 0.3
        shape = list(dims)
        if not allowzero:
            for i in range(len(shape)):
                if i < v.a.ndim and v.shape[i] == shape[i] and rng.random() < 0.3:
                    shape[i] = 0
        if shape and rng.random() < 0.5 and not (allowzero and 0 in shape):
            i = rng.randrange(len(shape))
            if int(np.prod([d for j, d in enumerate(dims) if j != i])) != 0 and shape[i] != 0:
                shape[i] = -1
        attrs = {"allowzero": int(allowzero)} if self.opset >= 14 and rng.random() < 0.5 else {}
        if allowzero:
            attrs["allowzero"] = 1
        return self.add("Reshape", [x, self.param(shape)], attrs)

    def g_Flatten(self, x):
        r = self.vals[x].a.ndim
        axis = self.rng.randint(0, r)
        if self.opset >= 11 and self.rng.random() < 0.3:
            axis -= r
        return self.add("Flatten", [x], {} if axis == 1 and self.rng.random() < 0.5 else {"axis": axis})

    def axes_form(self, op, x, axes, rank):
        rng = self.rng
        if axes is not None and self.opset >= 11:
            axes = [a - rank if rng.random() < 0.3 else a for a in axes]
        if self.opset >= 13:
            return self.add(op, [x] + ([self.param(axes)] if axes is not None else []))
        return self.add(op, [x], {"axes": axes} if axes is not None else {})

    def g_Squeeze(self, x):
        ones = [i for i, d in enumerate(self.vals[x].shape) if d == 1]
        if not ones:
            return None
        axes = None if self.rng.random() < 0.25 else self.rng.sample(ones, self.rng.randint(1, len(ones)))
        if axes and self.opset < 11:
            # onnx's (and ONNX Runtime's) shape inference of Squeeze-1 mishandles unsorted axes
            # ([1, 0] of [1, 1, 2] inferred [1, 2]): the model would be rejected.
            axes.sort()
        return self.axes_form("Squeeze", x, axes, self.vals[x].a.ndim)

    def g_Unsqueeze(self, x):
        r = self.vals[x].a.ndim
        k = self.rng.randint(1, 2)
        if r + k > 5:
            return None
        return self.axes_form("Unsqueeze", x, self.rng.sample(range(r + k), k), r + k)

    def g_Transpose(self, x):
        perm = list(range(self.vals[x].a.ndim))
        self.rng.shuffle(perm)
        return self.add("Transpose", [x], {} if not perm or self.rng.random() < 0.3 else {"perm": perm})

    def g_Concat(self, x):
        rng, v = self.rng, self.vals[x]
        r = v.a.ndim
        if r == 0:
            return None
        axis = rng.randrange(r)
        ins = [x]
        for _ in range(rng.randint(1, 2)):
            if rng.random() < 0.3:
                ins.append(x)
            else:
                s = list(v.shape)
                s[axis] = rng.choice([0, 1, 1, 2, 3])
                ins.append(self.source(rand_value(rng, v.elem, s)))
        rng.shuffle(ins)
        if self.opset >= 11 and rng.random() < 0.3:
            axis -= r
        return self.add("Concat", ins, {"axis": axis})

    def g_Slice(self, x):
        rng, v = self.rng, self.vals[x]
        r = v.a.ndim
        if r == 0:
            return None
        axes = rng.sample(range(r), rng.randint(1, r))
        starts, ends, steps = [], [], []
        big = 2 ** 31 - 1 if self.opset >= 10 and rng.random() < 0.3 else 2 ** 63 - 1
        for a in axes:
            d = v.shape[a]
            step = rng.choice([1, 1, 2, 3, -1, -2]) if self.opset >= 10 else 1
            starts.append(rng.choice([rng.randint(-d - 2, d + 2), 0, -1, big, -big - 1]))
            # (Not INT_MAX as the end of a backward slice: ONNX Runtime takes it to mean "to the
            # start", where the operator's definition clamps it to dim - 1, an empty slice.)
            ends.append(rng.choice([rng.randint(-d - 2, d + 2), big if step > 0 else d + 5, -big - 1, -1, d]))
            steps.append(step)
        elem = I32 if big == 2 ** 31 - 1 else I64
        default_axes = axes == list(range(len(axes)))
        if self.opset >= 11 and rng.random() < 0.3:
            axes = [a - r for a in axes]
        if self.opset < 10:
            attrs = {"starts": starts, "ends": ends}
            if not default_axes or rng.random() < 0.5:
                attrs["axes"] = axes
            return self.add("Slice", [x], attrs)
        ins = [x, self.param(starts, elem), self.param(ends, elem)]
        keep_axes = not default_axes or rng.random() < 0.5
        keep_steps = any(s != 1 for s in steps) or rng.random() < 0.5
        if keep_axes or keep_steps:
            ins.append(self.param(axes, elem) if keep_axes else "")
        if keep_steps:
            ins.append(self.param(steps, elem))
        return self.add("Slice", ins)

    def g_Gather(self, x):
        rng, v = self.rng, self.vals[x]
        r = v.a.ndim
        if r == 0:
            return None
        axis = rng.randrange(r)
        d = v.shape[axis]
        ishape = [rng.randint(1, 3) for _ in range(rng.choice([0, 1, 1, 2]))]
        if d == 0 or rng.random() < 0.05:
            ishape = (ishape or [1])
            ishape[0] = 0
        lo = -d if self.opset >= 11 else 0
        idx = np.array([rng.randint(lo, d - 1) for _ in range(int(np.prod(ishape)))], dtype=np.int64).reshape(ishape)
        if self.opset >= 11 and rng.random() < 0.3:
            axis -= r
        return self.add("Gather", [x, self.source(V(rng.choice([I64, I32]), idx), pool=False)], {"axis": axis})

    def g_Expand(self, x):
        rng, v = self.rng, self.vals[x]
        if v.elem == BF16 and self.run_ort:
            return None  # ONNX Runtime 1.30 has no bfloat16 Expand (nor Tile)
        target = []
        for d in v.shape:
            if d == 1:
                target.append(rng.choice([1, 2, 3, 3, 0]) if rng.random() < 0.9 else 1)
            else:
                target.append(rng.choice([d, 1]))
        drop = rng.randint(0, len(target)) if rng.random() < 0.2 else 0
        target = target[drop:]
        target = [rng.randint(1, 3) for _ in range(rng.choice([0, 0, 1, 2]))] + target
        return self.add("Expand", [x, self.param(target)])

    def g_Tile(self, x):
        if self.vals[x].elem == BF16 and self.run_ort:
            return None
        reps = [self.rng.choice([1, 1, 2, 3, 0]) for _ in range(self.vals[x].a.ndim)]
        return self.add("Tile", [x, self.param(reps)])

    def g_ConstantOfShape(self, x):
        rng, v = self.rng, self.vals[x]
        if v.elem == I64 and v.a.ndim == 1 and (v.a >= 0).all() and (v.a <= 5).all() and self.const[x] is True:
            shape = x
        else:
            shape = self.param(rand_shape(rng))
        types = [t for t, _ in SOURCE_TYPES if t != BF16 or self.opset >= 20]
        attrs = {}
        if rng.random() < 0.75:
            elem = rng.choice(types)
            attrs["value"] = to_proto(rand_value(rng, elem, [1]), "value")
        return self.add("ConstantOfShape", [shape], attrs)

    def g_Cast(self, x):
        src = self.vals[x].elem
        if src not in NUMERIC:
            return None
        to = self.rng.choice([t for t, _ in SOURCE_TYPES if t != BF16 or self.opset >= 13])
        if any(n.op_type == "Cast" and x in n.output for n in self.nodes):
            # ONNX Runtime (even with graph optimizations off: RemoveDuplicateCastTransformer)
            # replaces Cast(A -> B) -> Cast(B -> C) by Cast(A -> C) when every reader of B is a
            # Cast and B is no graph output, also where B rounds (uint32 -> bfloat16 -> uint8 of
            # 65534 gives 254, not 0): an Identity reading B, an output too, keeps both Casts.
            self.dangling.append(self.add("Identity", [x]))
        return self.add("Cast", [x], {"to": to})

    def binary(self, op, x):
        rng, v = self.rng, self.vals[x]
        if not arith_allowed(op, self.opset, v.elem) or op == "Div" and v.elem in INTS and self.const[x] is not True:
            return None
        k = rng.random()
        if k < 0.15:
            y = x
        else:
            s = v.shape
            if k < 0.45:
                s = list(s)
            elif k < 0.6:
                s = []
            elif k < 0.85:
                s = [1 if rng.random() < 0.4 else d for d in s][rng.randint(0, len(s)):]
            else:
                s = [rng.randint(1, 3)] + list(s)
            yv = rand_value(rng, v.elem, s)
            if op == "Div" and v.elem in INTS:
                a = yv.a.reshape(-1)
                a[a == 0] = rng.choice([1, 3, 7] + ([-2] if v.elem in (I8, I16, I32, I64) else []))
                if v.elem in (I8, I16, I32, I64) and (v.a == np.iinfo(NP[v.elem]).min).any():
                    a[a == -1] = 2
            y = self.source(yv)
        ins = [x, y] if rng.random() < 0.6 else [y, x]
        if op == "Div" and v.elem in INTS:
            b = self.vals[ins[1]].a
            if (b == 0).any() or (v.elem in (I8, I16, I32, I64) and (self.vals[ins[0]].a == np.iinfo(
                    NP[v.elem]).min).any() and (b == -1).any()):
                return None
        return self.add(op, ins)

    def g_Neg(self, x):
        return self.add("Neg", [x]) if arith_allowed("Neg", self.opset, self.vals[x].elem) else None

    # -- Where, comparisons, logic, Abs ----------------------------------------------------------

    def takes(self, op, elem):
        """Whether the operator's version takes elem, and ONNX Runtime has a kernel for it when it
        runs the model."""
        return self.opset >= MIN_OPSET.get(op, 1) and elem in op_types(op, self.opset) and not (
            self.run_ort and elem in ORT_LACKS.get(op, ()))

    def partner_shape(self, s):
        """A shape that broadcasts with s: s, [], s with dims made 1 and leading ones dropped, or
        one more leading dim."""
        rng = self.rng
        k = rng.random()
        if k < 0.45:
            return list(s)
        if k < 0.6:
            return []
        if k < 0.85:
            return [1 if rng.random() < 0.4 else d for d in s][rng.randint(0, len(s)):]
        return [rng.randint(1, 3)] + list(s)

    def edge_value(self, elem, shape, like=None):
        """A value with the cases comparisons, Abs and Where must get right: NaNs of both signs
        (with payloads, signalling ones too, except float16 in models ONNX Runtime runs: it
        quiets float16 NaNs), -0, +0, infinities, the integer limits; with `like` (a value of the
        same type), elements copied from it (equal pairs)."""
        rng = self.rng
        v = rand_value(rng, elem, shape)
        if elem not in INTS | FLOATS or not v.a.size:
            return v
        flat = v.a.reshape(-1)
        src = like.a.reshape(-1) if like is not None and like.elem == elem and like.a.size else None
        for i in range(flat.size):
            k = rng.random()
            if src is not None and k < 0.35:
                flat[i] = src[rng.randrange(src.size)]
            elif k < 0.6 and elem in FLOATS:
                quiet, odd = NAN_BITS[elem]
                w = rng.choice(["nan", "nan", "-0", "0", "inf", "-inf"])
                if w == "nan":
                    u = {F16: np.uint16, F64: np.uint64}.get(elem, np.uint32)
                    flat.view(u)[i] = rng.choice(quiet + (odd if elem != F16 or not self.run_ort else []))
                else:
                    flat[i] = float(w)
            elif k < 0.6:
                info = np.iinfo(NP[elem])
                flat[i] = rng.choice([int(info.min), int(info.max), int(info.min) + 1, 0, 1,
                                      -1 if info.min else 2])
        return v

    def compare(self, op, x):
        """op (a comparison) of x and a constant related to it (or x itself)."""
        rng, v = self.rng, self.vals[x]
        if not self.takes(op, v.elem):
            return None
        y = x if rng.random() < 0.12 else self.source(self.edge_value(v.elem, self.partner_shape(v.shape), v))
        return self.add(op, [x, y] if rng.random() < 0.6 else [y, x])

    def any_compare(self, x):
        ops = [op for op in COMPARE if self.takes(op, self.vals[x].elem)]
        return self.compare(self.rng.choice(ops), x) if ops else None

    def condition(self, shape):
        """A bool value that broadcasts with shape, for Where and the logical operators: a
        constant, a comparison of constants with edge values, a bool of the pool, or (not a
        constant) one computed from X."""
        rng = self.rng
        s = self.partner_shape(shape)
        k = rng.random()
        if k < 0.1:
            bools = [p for p in self.pool if self.vals.get(p) is not None and self.vals[p].elem == BOOL]
            fits = [p for p in bools if broadcastable(self.vals[p].shape, shape)]
            if fits:
                return rng.choice(fits)
        if k < 0.2 and self.kind == "normal" and 0 not in s and 0 not in shape:
            # (Not empty: an empty int64 vector computed from it would be known all the same,
            # and shape folding may fold it.)
            return self.add(rng.choice(["Less", "Greater", "Equal"] if self.opset >= 11 else ["Less", "Greater"]),
                            ["X", self.source(self.edge_value(F32, s))])
        if k < 0.55:
            elem = pick(rng, [t for t in SOURCE_TYPES if t[0] != BOOL and any(self.takes(op, t[0]) for op in COMPARE)])
            out = self.any_compare(self.source(self.edge_value(elem, s), pool=False))
            if out is not None:
                return out
        return self.source(rand_value(rng, BOOL, s))

    def as_bool(self, x):
        """x when it is bool, else a comparison of x with a constant."""
        return x if self.vals[x].elem == BOOL else self.any_compare(x)

    def g_Where(self, x):
        rng, v = self.rng, self.vals[x]
        if v.elem == BOOL and (rng.random() < 0.5 or not self.takes("Where", BOOL)):
            # x the condition, X and Y new constants
            elem = pick(rng, [t for t in SOURCE_TYPES if self.takes("Where", t[0])])
            a = self.source(self.edge_value(elem, self.partner_shape(v.shape)))
            b = a if rng.random() < 0.1 else self.source(self.edge_value(elem, self.partner_shape(v.shape),
                                                                         self.vals[a]))
            ins = [x, a, b]
        else:
            if not self.takes("Where", v.elem):
                return None
            if v.elem != BOOL and rng.random() < 0.4:
                cond = self.any_compare(x)  # Where(x < c, x, y)
                if cond is None:
                    return None
            else:
                cond = self.condition(v.shape)
            k = rng.random()
            same = [p for p in self.pool if p != x and self.vals.get(p) is not None and self.vals[p].elem == v.elem
                    and broadcastable(self.vals[p].shape, v.shape)]
            if k < 0.1:
                other = x
            elif k < 0.25 and same:
                other = rng.choice(same)
            else:
                other = self.source(self.edge_value(v.elem, self.partner_shape(v.shape), v))
            ins = [cond, x, other] if rng.random() < 0.6 else [cond, other, x]
        vals = [self.vals.get(i) for i in ins]
        if self.run_ort and vals[1] is not None and vals[1].elem in FLOATS and None not in vals:
            # ONNX Runtime's Where selects "cond ? X : 0" and "cond ? 0 : Y", then merges them
            # taking the first where it is not 0 (or a one-element Y selection where that is not
            # 0): a -0 it selects may come out +0. No -0 in the results of the Wheres it runs.
            try:
                r = np.where(vals[0].a, vals[1].a, vals[2].a)
            except ValueError:
                return None
            if ((r == 0) & np.signbit(r)).any():
                return None
        return self.add("Where", ins)

    def g_Not(self, x):
        b = self.as_bool(x)
        return self.add("Not", [b]) if b is not None else None

    def logic(self, op, x):
        rng = self.rng
        b = self.as_bool(x)
        if b is None:
            return None
        y = b if rng.random() < 0.12 else self.condition(self.vals[b].shape)
        return self.add(op, [b, y] if rng.random() < 0.6 else [y, b])

    def g_Floor(self, x, op="Floor"):
        rng, v = self.rng, self.vals[x]
        if not self.takes(op, v.elem):
            return None
        if rng.random() < 0.25:
            x = self.source(self.edge_value(v.elem, v.shape, v))  # (NaN, -0, infinities, ties)
        return self.add(op, [x])

    def g_Ceil(self, x):
        return self.g_Floor(x, "Ceil")

    def g_Split(self, x):
        """A Split of x along one axis, in the form its version takes: sizes (an attribute below
        13, an input from 13), num_outputs (from 18), or equal parts. Returns one of its outputs;
        the others become graph outputs."""
        rng, v = self.rng, self.vals[x]
        if v.a.ndim == 0 or (v.elem == BF16 and self.run_ort):
            return None
        r = v.a.ndim
        axis = rng.randrange(r)
        dim = v.shape[axis]
        attrs = {"axis": axis - r if self.opset >= 11 and rng.random() < 0.4 else axis} if axis or rng.random() < 0.5 \
            else {}
        inputs = [x]
        form = rng.choice(["sizes", "equal" if self.opset < 18 else "num"])
        if form == "sizes":
            k = rng.randint(1, 3)
            cuts = sorted(rng.randint(0, dim) for _ in range(k - 1))
            sizes = [b - a for a, b in zip([0] + cuts, cuts + [dim])]
            if self.opset < 13:
                attrs["split"] = sizes
            else:
                inputs.append(self.param(sizes))
        elif form == "equal":
            k = rng.choice([d for d in range(1, 5) if dim % d == 0] or [1])
        else:
            k = rng.randint(1, 4)
            attrs["num_outputs"] = k
        outs = self.add("Split", inputs, attrs, outputs=k)
        outs = outs if isinstance(outs, list) else [outs]
        pick_one = rng.choice(outs)
        self.dangling.extend(o for o in outs if o != pick_one)
        return pick_one

    def g_If(self, x):
        """An If whose condition is a constant bool (rank 0 or one element), each branch one of:
        x itself (an outer value passed through), Identity(x), Abs(x), Neg(x), or a Constant of
        its own. oxir replaces the If by the branch taken; the result is that branch's value,
        folded when the branch computes it from constants alone."""
        rng, v = self.rng, self.vals[x]
        if v is None or (v.elem == BF16 and (self.run_ort or self.opset < 16)) or v.elem in COMPLEX or \
                never_type(v.elem) or (v.elem in FLOAT8 and self.opset < 19):
            return None  # (If takes bfloat16 from 16, float8 from 19)
        taken = bool(rng.random() < 0.5)
        cond = self.source(V(BOOL, np.array(taken).reshape([] if rng.random() < 0.7 else [1])), pool=False)
        out = self.name("v")
        branches = []
        for b in range(2):
            # (ONNX Runtime rejects a branch output that is an outer value, which the spec allows)
            kind = rng.choice(["Identity", "Abs", "Neg", "const"] + ([] if self.run_ort else ["pass"]))
            if kind == "Abs" and not self.takes("Abs", v.elem) or kind == "Neg" and not arith_allowed(
                    "Neg", self.opset, v.elem):
                kind = "Identity"
            bout = self.name("b")
            if kind == "pass":
                nodes, bout, val, e = [], x, v, self.const[x]
            elif kind == "const":
                val = rand_value(rng, v.elem, v.shape)
                nodes, e = [helper.make_node("Constant", [], [bout], value=to_proto(val, bout))], True
            else:
                node = helper.make_node(kind, [x], [bout])
                val, e, cat, _ = judge(node, self.opset, [v], [self.const[x]])
                if val is None or cat in ("invalid data", "not evaluated"):
                    raise GenRetry("If branch %s: %s" % (kind, cat))
                nodes = [node]
            graph = helper.make_graph(nodes, "branch%d_%s" % (b, out), [],
                                      [helper.make_tensor_value_info(bout, v.elem, v.shape)])
            branches.append((graph, val, e, kind))
        graph, val, e, kind = branches[0 if taken else 1]
        self.nodes.append(helper.make_node("If", [cond], [out], then_branch=branches[0][0],
                                           else_branch=branches[1][0]))
        self.vals[out], self.elems[out] = val, v.elem
        # Folded when the branch taken computes from constants (its node, or the Identity that
        # passes a constant on, folds in the next round); otherwise its node takes the If's place.
        self.const[out] = e
        self.expect[out] = (True, "", "", "If") if e is True else (None, "inlined branch", kind, "If")
        return out

    def g_ReduceMax(self, x, op="ReduceMax"):
        """Axes (none, some, negative from 11) as attribute below 18 and as input from 18, with
        keepdims and noop_with_empty_axes now and then; edge values (NaN, -0) sometimes."""
        rng, v = self.rng, self.vals[x]
        if not self.takes(op, v.elem):
            return None
        if v.elem in FLOATS and rng.random() < 0.2:
            x = self.source(self.edge_value(v.elem, v.shape, v))
        r = v.a.ndim
        axes = sorted(rng.sample(range(r), rng.randint(0, r))) if r else []
        if self.opset >= 11:
            axes = [a - r if rng.random() < 0.3 else a for a in axes]
        rng.shuffle(axes)
        attrs, inputs = {}, [x]
        if rng.random() < 0.6:
            attrs["keepdims"] = rng.randint(0, 1)
        if self.opset < 18:
            if axes or rng.random() < 0.5:
                attrs["axes"] = axes
        else:
            if axes or rng.random() < 0.3:
                inputs.append(self.param(axes))
            if rng.random() < 0.4:
                attrs["noop_with_empty_axes"] = rng.randint(0, 1)
        return self.add(op, inputs, attrs)

    def g_ReduceMin(self, x):
        return self.g_ReduceMax(x, "ReduceMin")

    def g_Abs(self, x):
        rng, v = self.rng, self.vals[x]
        if not self.takes("Abs", v.elem):
            return None
        if rng.random() < 0.25:
            x = self.source(self.edge_value(v.elem, v.shape, v))  # (INT_MIN and -NaN more often)
        return self.add("Abs", [x])

    # -- chains, outputs, the model ----------------------------------------------------------------

    FAMILIES = {"binary": ("Add", "Sub", "Mul", "Div"),
                "compare": ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"),
                "logic": ("And", "Or", "Xor")}

    def generator(self, op):
        """The method that adds one `op` node reading x: a family's shared one or g_<op>."""
        for family, ops in self.FAMILIES.items():
            if op in ops:
                method = getattr(self, family)
                return lambda x: method(op, x)
        return getattr(self, "g_" + op)

    def chain(self, x, length, ops=OPS):
        rng = self.rng
        for _ in range(length):
            for _ in range(12):
                op = pick(rng, ops)
                src = x if rng.random() < 0.85 or not self.pool else rng.choice(self.pool)
                if self.vals.get(src) is None:
                    src = x
                out = self.attempt(self.generator(op), src)
                if out is not None:
                    if x not in self.nodes_inputs():
                        self.dangling.append(x)  # left behind: an output too, or it would be dead code
                    x = out
                    if self.const[out] is not False and self.vals[out].elem not in COMPLEX | {STR}:
                        self.pool.append(out)
                    break
        return x

    def finish(self, results):
        """Graph outputs: the results, bfloat16 through Cast, 1 / result from X, Cast + X."""
        rng = self.rng
        for name in dict.fromkeys(results + [d for d in self.dangling if d not in self.nodes_inputs()]):
            v = self.vals.get(name)
            elem = v.elem if v is not None else None
            if elem == BF16 and self.run_ort:
                name = self.add("Cast", [name], {"to": F32})
                elem = F32
            self.outputs.append(name)
            if v is None or elem in COMPLEX or never_type(elem) or not self.run_ort:
                continue
            try:
                if elem in (F32, F64) and rng.random() < 0.7:
                    self.outputs.append(self.add("Div", [self.x_as(elem), name]))
                elif rng.random() < 0.3:
                    self.outputs.append(self.add("Add", [self.add("Cast", [name], {"to": F32}), "X"]))
            except GenRetry:
                pass
        if self.run_ort and rng.random() < 0.5:
            # Nodes of the folded operators that read X, with constant parameters.
            k = rng.randrange(4)
            try:
                if k == 0:
                    y = self.add("Expand", ["X", self.param([2, rng.randint(1, 3)])])
                elif k == 1:
                    y = self.add("Concat", ["X", self.source(rand_value(rng, F32, [2]))], {"axis": 0})
                elif k == 2:
                    y = self.add("Gather", ["X", self.param([0, 0, -1 if self.opset >= 11 else 0])])
                else:
                    y = self.add("Mul", [self.source(rand_value(rng, F32, [2, 1])), "X"])
                self.outputs.append(y)
            except GenRetry:
                pass
        if not any(n.op_type != "Constant" and "X" in n.input for n in self.nodes):
            self.outputs.append(self.add("Neg", ["X"]))

    def model(self):
        outs = []
        for name in self.outputs:
            v = self.vals.get(name)
            outs.append(helper.make_tensor_value_info(name, self.elems[name], v.shape if v is not None else None))
        g = helper.make_graph(self.nodes, "fold_%d" % self.k,
                              [helper.make_tensor_value_info("X", F32, [1])] + self.extra_inputs, outs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="verify_fold")
        m.ir_version = 8
        return m


INVALID_KINDS = ("gather_oor", "reshape_size", "div_zero", "div_intmin", "squeeze_not_one", "expand_mismatch",
                 "slice_step0", "bcast_mismatch", "type_invalid")
BIG_KINDS = ("cos_over", "cos_edge", "expand_over", "tile_over", "slice_big", "bcast_over", "bcast_edge")
ODD_KINDS = ("string", "complex", "float8", "int4")


def invalid_node(c, kind):
    rng = c.rng
    elem = rng.choice([F32, I64, I32, U8, F16, BOOL, F64] + ([BF16] if c.opset >= 13 else []))
    if kind == "gather_oor":
        s = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        axis = rng.randrange(len(s))
        d = s[axis]
        bad = rng.choice([d, d + 7] + ([-d - 1] if c.opset >= 11 else []))
        idx = [rng.randint(0, d - 1) for _ in range(rng.randint(0, 3))] + [bad]
        rng.shuffle(idx)
        return c.add("Gather", [c.source(rand_value(rng, elem, s)), c.source(V(I64, idx), pool=False)],
                     {"axis": axis}, invalid=True)
    if kind == "reshape_size":
        s = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
        n = int(np.prod(s))
        shape = rng.choice([[n + 1], [n, 2], [2, n + 1], [n * 3, -1, 2] if n % 2 else [n + 1, -1]])
        return c.add("Reshape", [c.source(rand_value(rng, elem, s)), c.param(shape)], invalid=True)
    if kind in ("div_zero", "div_intmin"):
        c.run_ort = False  # integer division by zero, INT_MIN / -1: a SIGFPE in ONNX Runtime
        elem = rng.choice([I32, I64])
        s = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        a, b = rand_value(rng, elem, s, special=False), rand_value(rng, elem, s, special=False)
        b.a[b.a == 0] = 5
        flat = b.a.reshape(-1) if b.a.ndim else None
        if kind == "div_zero":
            if flat is not None:
                flat[rng.randrange(flat.size)] = 0
            else:
                b = V(elem, 0)
        else:
            a.a.reshape(-1)[0] = np.iinfo(NP[elem]).min if a.a.ndim else 0
            if a.a.ndim == 0:
                a = V(elem, np.iinfo(NP[elem]).min)
            b = V(elem, -1) if rng.random() < 0.5 else V(elem, np.full(s, -1))
        return c.add("Div", [c.source(a), c.source(b)], invalid=True)
    if kind == "squeeze_not_one":
        s = [rng.randint(2, 4) for _ in range(rng.randint(1, 3))]
        axes = [rng.randrange(len(s))]
        x = c.source(rand_value(rng, elem, s))
        return c.add("Squeeze", [x, c.param(axes)] if c.opset >= 13 else [x], {} if c.opset >= 13 else {"axes": axes},
                     invalid=True)
    if kind == "expand_mismatch":
        s = [rng.randint(2, 4)]
        return c.add("Expand", [c.source(rand_value(rng, elem, s)), c.param([s[0] + 1])], invalid=True)
    if kind == "slice_step0":
        if c.opset < 10:
            c.opset = 10
        s = [rng.randint(1, 4) for _ in range(rng.randint(1, 2))]
        return c.add("Slice", [c.source(rand_value(rng, elem, s)), c.param([0]), c.param([1]), c.param([0]),
                               c.param([0])], invalid=True)
    if kind == "bcast_mismatch":  # shapes that do not broadcast
        op = rng.choice(["Where", "Where", "Equal", "Less", "GreaterOrEqual", "And", "Xor"])
        if op == "GreaterOrEqual" and c.opset < 12 or op == "Equal" and c.opset < 11:
            op = "Less"
        n = rng.randint(2, 4)
        a, b = rng.choice([[n], [rng.randint(1, 3), n]]), [n + rng.randint(1, 2)]
        a, b = (a, b) if rng.random() < 0.5 else (b, a)
        if op == "Where":
            elem = rng.choice([F32, I64, I32, U8, F64, F16])
            shapes = [a, b, []] if rng.random() < 0.5 else [[], a, b] if rng.random() < 0.5 else [a, [1], b]
            return c.add("Where", [c.source(rand_value(rng, BOOL, shapes[0])),
                                   c.source(rand_value(rng, elem, shapes[1])),
                                   c.source(rand_value(rng, elem, shapes[2]))], invalid=True)
        elem = BOOL if op in LOGIC else rng.choice([F32, I64, I32, F64])
        return c.add(op, [c.source(rand_value(rng, elem, a)), c.source(rand_value(rng, elem, b))], invalid=True)
    if kind == "type_invalid":  # an element type the operator's version does not take
        cases = [("Less", BOOL), ("Abs", BOOL), ("Not", I32), ("And", U8), ("Xor", F32), ("Or", I64)]
        if c.opset < 11:
            cases += [("Equal", rng.choice([F32, F64, U8, I8, F16, U64]))]
        if c.opset < 13:
            cases += [("Less", BF16), ("Greater", BF16), ("Abs", BF16), ("Equal", BF16)]
        if 12 <= c.opset < 16:
            cases += [("LessOrEqual", BF16), ("GreaterOrEqual", BF16)]
        if c.opset >= 12:
            cases += [("LessOrEqual", BOOL)]
        if c.opset < 16:
            cases += [("Where", BF16)]
        op, elem = rng.choice(cases)
        s = rand_shape(rng)
        # (Not in the pool: the chains would take a bfloat16 below opset 13 to other operators.)
        ins = [c.source(rand_value(rng, elem, s), pool=False) for _ in range(1 if op in ("Abs", "Not") else 2)]
        if op == "Where":
            ins.insert(0, c.source(rand_value(rng, BOOL, s)))
        return c.add(op, ins, invalid=True)
    raise AssertionError(kind)


def big_case(c, kind):
    rng = c.rng
    if kind in ("cos_over", "cos_edge"):
        elem = rng.choice([F32, I32, I64, F64, U8])
        n = MIB // itemsize(elem)
        shape = [n // 256, 256] if kind == "cos_edge" else [n // 256 + 1, 256]
        return [c.add("ConstantOfShape", [c.param(shape)], {"value": to_proto(rand_value(rng, elem, [1]), "value")})]
    if kind == "expand_over":
        elem = rng.choice([F32, I64, F16])
        n = MIB // itemsize(elem) + rng.choice([1, 64])
        return [c.add("Expand", [c.source(rand_value(rng, elem, [1])), c.param([n])])]
    if kind == "tile_over":
        n = 150000  # 600 KB of floats twice: 1.2 MB > max(1 MiB, 600 KB)
        x = c.source(V(F32, np.arange(n, dtype=np.float32) * 0.5), how="init")
        return [c.add("Tile", [x, c.param([2])])]
    if kind in ("bcast_over", "bcast_edge"):
        # Broadcasting to 1 MiB of output (folds) or just over (stays) from a few KB of inputs.
        op = rng.choice(["Where", "Equal", "Less", "And"])
        if op == "Where":
            elem = rng.choice([F32, I32, I64, F64, U8])
            n = int(np.sqrt(MIB // itemsize(elem)))
            m = n + (1 if kind == "bcast_over" else 0)
            cond = c.source(rand_value(rng, BOOL, [n, 1]))
            xv, yv = rand_value(rng, elem, [1, m]), rand_value(rng, elem, [])
            for v in (xv, yv):  # (no -0: ONNX Runtime's Where may select it as +0, see g_Where)
                v.a[v.a == 0] = 0
            x, y = c.source(xv), c.source(yv)
            return [c.add("Where", [cond, x, y] if rng.random() < 0.5 else [cond, y, x])]
        elem = BOOL if op == "And" else rng.choice([I32, I64] + ([F32] if op == "Less" or c.opset >= 11 else []))
        m = 1024 + (rng.randint(1, 3) if kind == "bcast_over" else 0)
        return [c.add(op, [c.source(rand_value(rng, elem, [1024, 1])), c.source(rand_value(rng, elem, [1, m]))])]
    # slice_big: a 1.2 MB input; a slice of it under its own size folds.
    n = 300000
    x = c.source(V(I32, np.arange(n, dtype=np.int32) - 7), how="init")
    if c.opset < 10:
        c.opset = 10
    return [c.add("Slice", [x, c.param([1]), c.param([n - 1])]), c.add("Identity", [x])]


def odd_case(c, kind):
    """Chains over strings, complex numbers, float8 and int4: data movement only (and Where for
    strings and complex numbers)."""
    rng = c.rng
    moves = [(op, w) for op, w in OPS if op in DATA_MOVEMENT and op != "ConstantOfShape"] + [("Where", 2)]
    if kind in ("string", "complex"):
        elem = STR if kind == "string" else rng.choice([C64, C128])
        if kind == "complex":
            c.run_ort = False
            c.numpy_check = True
        results = []
        for _ in range(rng.randint(1, 2)):
            s = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
            results.append(c.chain(c.source(rand_value(rng, elem, s)), rng.randint(1, 5), moves))
        return results
    # float8e4m3fn and int4: raw bytes; ONNX Runtime is not run (no JS type for them).
    c.run_ort = False
    c.opset = max(c.opset, 21 if kind == "int4" else 19)
    n = rng.randint(2, 6) * 2
    t = onnx.TensorProto(name=c.name("c"), data_type=F8E4M3FN if kind == "float8" else INT4, dims=[2, n // 2])
    t.raw_data = bytes(rng.randrange(0x70) for _ in range(n if kind == "float8" else n // 2))
    c.inits.append(t)
    c.const[t.name] = True
    src = V(F8E4M3FN, np.frombuffer(t.raw_data, np.uint8).reshape(2, n // 2)) if kind == "float8" else None
    c.vals[t.name] = src
    c.elems[t.name] = t.data_type
    out = []
    for op, ins, attrs in (("Reshape", [t.name, c.param([n])], {}), ("Transpose", [t.name], {}),
                           ("Identity", [t.name], {})):
        name = c.name("v")
        node = helper.make_node(op, ins, [name], **attrs)
        c.nodes.append(node)
        if kind == "float8":  # bytes moved as they are: folded, and compared with this script's values
            # (Transpose takes float8 from version 21; below, inference rejects it and it stays)
            c.expect[name] = (True, "", "", op) if op != "Transpose" or c.opset >= 21 else (
                None, "not in the contract", "Transpose-%d of float8" % c.opset, op)
        else:
            c.expect[name] = (None if op == "Identity" else False, "never-folded type", TYPE_NAME[t.data_type], op)
        c.vals[name] = None if src is None else V(F8E4M3FN, {"Reshape": src.a.reshape(n), "Transpose": src.a.T,
                                                             "Identity": src.a}[op])
        c.elems[name] = t.data_type
        c.const[name] = False
        out.append(name)
    c.outputs.extend(out)
    return []


def generate(k, seed, work):
    """Case k: returns the Case with its model written to work/gen_k.onnx."""
    for attempt in range(20):
        rng = random.Random("%d/%d/%d" % (seed, k, attempt))
        r = rng.random()
        kind = ("invalid" if r < 0.12 else "big" if r < 0.155 else "odd" if r < 0.21 else
                "no_kernel" if r < 0.26 else "normal")
        c = Case(k, rng, rng.randint(9, 21), kind)
        try:
            results = []
            types, ops = SOURCE_TYPES, OPS
            if kind == "no_kernel":  # the types ONNX Runtime has no kernels for: this script's values only
                c.run_ort, c.numpy_check = False, True
                types, ops = NO_KERNEL_TYPES, NO_KERNEL_OPS
                if rng.random() < 0.7:
                    c.opset = rng.randint(13, 21)  # (bfloat16)
                for _ in range(rng.randint(1, 2)):  # Abs and Where of NaNs, -0, ... (their bits compared)
                    elem = rng.choice([F16, F32, F64] + ([BF16] if c.opset >= 13 else []))
                    x = c.source(c.edge_value(elem, rand_shape(rng)))
                    results.append(c.attempt(c.g_Abs if rng.random() < 0.5 else c.g_Where, x) or x)
            if kind == "invalid":
                c.kind = rng.choice(INVALID_KINDS)
                bad = invalid_node(c, c.kind)
                results.append(bad)
                if rng.random() < 0.5:
                    results.append(c.add("Identity", [bad]))
            elif kind == "big":
                c.kind = rng.choice(BIG_KINDS)
                results += big_case(c, c.kind)
            elif kind == "odd":
                c.kind = rng.choice(ODD_KINDS)
                results += odd_case(c, c.kind)
            if c.kind in ("normal", "no_kernel") + INVALID_KINDS or rng.random() < 0.3:
                for _ in range(rng.randint(1, 3) if c.kind in ("normal", "no_kernel") else 1):
                    elem = pick(rng, [t for t in types if t[0] != BF16 or c.opset >= 13])
                    u = rng.random()
                    if u < 0.12:
                        end = c.chain(c.g_ConstantOfShape("X"), rng.randint(1, 6), ops)
                    elif u < 0.37:
                        end = c.chain(c.source(rand_value(rng, elem, rand_shape(rng), special=True)),
                                      rng.randint(1, 4), CAST_OPS)
                    else:
                        end = c.chain(c.source(rand_value(rng, elem, rand_shape(rng))), rng.randint(1, 6), ops)
                    results.append(end)
                    mids = [n.output[0] for n in c.nodes[-6:] if n.output[0] in c.expect]
                    if mids and rng.random() < 0.25:
                        results.append(rng.choice(mids))
            c.finish(results)
        except GenRetry:
            continue
        if not any(e[0] is not None for e in c.expect.values()):
            continue
        c.path = os.path.join(work, "gen_%d.onnx" % k)
        onnx.save(c.model(), c.path)
        return c
    raise RuntimeError("case %d: no model after 20 attempts" % k)


# ------------------------------------------------------------------------------------------------
# Checks of an optimized model

def out_constants(m):
    """The names OUT holds as constants: initializers that are not graph inputs, Constant outputs."""
    inputs = {i.name for i in m.graph.input}
    names = {t.name for t in m.graph.initializer if t.name not in inputs}
    for n in m.graph.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and any(
                a.name in ("value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                           "value_strings") for a in n.attribute):
            names.update(n.output)
    return names


def signature(n, alias=None):
    ins = tuple(n.input) if not alias else tuple(alias.get(i, i) for i in n.input)
    return (n.domain or "", n.op_type, ins, tuple(a.SerializeToString() for a in n.attribute))


def undo_output_renames(in_g, out_g):
    """Puts back in out_g (in place) the names oxir's Identity removal changed, so that the checks
    here can find nodes by their names in IN: a graph output y = Identity(x), x computed by a node,
    becomes that node computing y, and its readers read y. Here the node computes x again, its
    readers read x, and an Identity(x) -> y follows it (unless y is a Constant: see below). Subgraphs of nodes with the same outputs
    in both are paired by attribute name and handled alike."""
    in_made = {o for n in in_g.node for o in n.output if o}
    outs = {o.name for o in in_g.output}
    out_made = {o: n for n in out_g.node for o in n.output if o}
    back = {}
    for n in in_g.node:
        if n.op_type != "Identity" or n.domain not in ("", "ai.onnx") or len(n.input) != 1 or len(n.output) != 1:
            continue
        x, y = n.input[0], n.output[0]
        # (When y is a Constant now, what IN computed as x folded: had the Identity stayed, it
        # would have folded too, and x gone as unused. That is how it is judged.)
        if (y in outs and x in in_made and x not in outs and x not in out_made and y in out_made
                and out_made[y].op_type != "Constant"
                and not (out_made[y].op_type == "Identity" and list(out_made[y].input) == [x])):
            back[y] = x
    if back:
        nodes = list(out_g.node)
        del out_g.node[:]
        for n in nodes:
            for k, i in enumerate(n.input):
                if i in back:
                    n.input[k] = back[i]
            restored = [o for o in n.output if o in back]
            for k, o in enumerate(n.output):
                if o in back:
                    n.output[k] = back[o]
            out_g.node.append(n)  # (a copy: n is complete by now)
            for o in restored:
                out_g.node.append(onnx.helper.make_node("Identity", [back[o]], [o]))
    in_subs = {(tuple(n.output), a.name): a.g for n in in_g.node for a in n.attribute
               if a.type == onnx.AttributeProto.GRAPH}
    for n in out_g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH and (tuple(n.output), a.name) in in_subs:
                undo_output_renames(in_subs[(tuple(n.output), a.name)], a.g)
    return back


def load_out(out_path, in_model):
    """OUT, with the Identity removal's renamings undone (undo_output_renames), and the names
    put back in its main graph (graph output -> the name IN computed it under)."""
    om = onnx.load(out_path)
    return om, undo_output_renames(in_model.graph, om.graph)


def check_folding(expect, in_model, out_model, opset, label, renamed=None):
    """Failures (strings): a node expected to fold that did not, a node expected to stay that did
    not, a node of the folded operators left with constant inputs that no rule excuses. renamed:
    the names load_out put back (OUT reads x where IN read the graph output y = Identity(x))."""
    fails = []
    produced = {o: n for n in out_model.graph.node for o in n.output if o}
    in_nodes = {o: n for n in in_model.graph.node for o in n.output if o}
    in_outputs = {o.name for o in in_model.graph.output}
    readers = collections.defaultdict(list)
    for n in in_model.graph.node:
        for i in n.input:
            readers[i].extend(n.output)
    # A node that stays may be merged with an identical one (oxir's common subexpressions).
    out_signatures = {signature(n) for n in out_model.graph.node}
    inits = {t.name for t in out_model.graph.initializer}
    consts = out_constants(out_model)
    for name, (e, cat, text, op) in expect.items():
        n = produced.get(name)
        if e is True:
            if n is not None and n.op_type != "Constant":
                # Not reported again: a node whose input is another node's that should have folded.
                if any(i not in consts and expect.get(i, (None,))[0] is True for i in n.input if i):
                    continue
                fails.append("%s: %s -> %s not folded (still a %s node%s)" % (
                    label, op, name, n.op_type, "" if all(i in consts for i in n.input if i)
                    else "; inputs not constant in OUT: %s" % [i for i in n.input if i and i not in consts]))
            elif n is None and name in inits and opset >= 9:
                fails.append("%s: %s -> %s folded into an initializer, not a Constant node" % (label, op, name))
        elif e is False and cat in STRICT and op != "Identity":
            # (An Identity may be bypassed: its input renamed to its output.)
            merged = n is None and name in in_nodes and signature(in_nodes[name], renamed) in out_signatures
            # Removed as unused: no graph output, and what read it is no longer computed (shape
            # folding: an empty int64 vector computed from it is known all the same).
            unused = n is None and name not in in_outputs and all(
                produced.get(r) is None or produced[r].op_type == "Constant" for r in readers[name])
            if (n is None or n.op_type != op) and not merged and not unused:
                fails.append("%s: %s -> %s folded or removed although it must stay (%s%s)" % (
                    label, op, name, cat, ": " + text if text else ""))
    for n in out_model.graph.node:
        if n.domain not in ("", "ai.onnx") or n.op_type not in FOLD_OPS:
            continue
        # (The nodes of IN that stay with constant inputs are judged above.)
        if all(i in consts for i in n.input if i) and n.output[0] not in expect:
            fails.append("%s: OUT has %s -> %s with constant inputs only, a node IN does not have" % (
                label, n.op_type, n.output[0]))
    return fails


def folded_value(out_model, name):
    """The value OUT holds for `name` as a Constant node or an initializer, or None."""
    for n in out_model.graph.node:
        if name in n.output:
            return constant_value(n) if n.op_type == "Constant" else None
    for t in out_model.graph.initializer:
        if t.name == name:
            return from_proto(t)
    return None


def compare_values(got, want, nan_bits=False):
    """'identical' (bit for bit; NaNs equal, or with nan_bits only NaNs of the same bits), 'zero
    signs' (equal but for the sign of a zero), 'close' (floats within 1e-3 relative + 1e-5
    absolute), or 'differ: ...'."""
    if got is None:
        return "differ: not a constant"
    if got.elem != want.elem or got.shape != want.shape:
        return "differ: %s%s vs %s%s" % (TYPE_NAME.get(got.elem), got.shape, TYPE_NAME.get(want.elem), want.shape)
    a, b = got.a, want.a
    if got.elem == STR or a.dtype == np.bool_ or got.elem in INTS:
        return "identical" if np.array_equal(a, b) else "differ: values"
    nan = np.isnan(a) & np.isnan(b) if got.elem not in COMPLEX else np.isnan(a.real) & np.isnan(b.real)
    raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, a.dtype.itemsize)
    rawb = np.ascontiguousarray(b).reshape(-1).view(np.uint8).reshape(b.size, b.dtype.itemsize)
    same = (raw == rawb).all(axis=1).reshape(a.shape) | nan
    if nan_bits and got.elem in FLOATS and not (raw == rawb).all():
        bad = int(np.argwhere(~(raw == rawb).all(axis=1))[0][0])
        return "differ: at flat index %d, bits %s vs %s" % (bad, raw[bad][::-1].tobytes().hex(),
                                                            rawb[bad][::-1].tobytes().hex())
    if same.all():
        return "identical"
    if ((a == b) | nan).all():
        return "zero signs"
    if got.elem not in COMPLEX:
        af, bf = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(all="ignore"):
            if (nan | (af == bf) | (np.abs(af - bf) <= 1e-3 * np.abs(bf) + 1e-5)).all():
                return "close"
    bad = np.argwhere(~same)[0].tolist()
    return "differ: at %s %r vs %r" % (bad, a[tuple(bad)], b[tuple(bad)])


def wrap(m, how):
    """Model m with its main graph's nodes moved into a subgraph of the same computation: both
    branches of an If on X > 0 (a condition known only at run time; the branches alike), or the
    body of a Loop of 2 iterations (each result a scan output, beside a carried value that grows
    and its length). The initializers and inputs stay outside: the subgraph reads them as outer
    values. A result that is not a node output goes through an Identity named "w_..." (ONNX
    Runtime rejects a subgraph output naming an outer value). The model's outputs are named
    "r<k>_..."."""
    g = m.graph
    produced = {o for n in g.node for o in n.output}
    body_nodes, body_outs, outs = [], [], []
    for k, v in enumerate(g.output):
        name = v.name
        if name not in produced:
            body_nodes.append(helper.make_node("Identity", [name], ["w_" + name], name="wrap_id_%d" % k))
            name = "w_" + name
        bo = onnx.ValueInfoProto()
        bo.CopyFrom(v)
        bo.name = name
        body_outs.append(bo)
        ro = onnx.ValueInfoProto()
        ro.CopyFrom(v)
        ro.name = "r%d_%s" % (k, v.name)  # (an output listed twice is two outputs of the If or Loop)
        if how == "loop" and ro.type.tensor_type.HasField("shape"):
            dims = list(ro.type.tensor_type.shape.dim)
            ro.type.tensor_type.shape.ClearField("dim")
            ro.type.tensor_type.shape.dim.add().dim_value = 2
            for d in dims:
                ro.type.tensor_type.shape.dim.add().CopyFrom(d)
        outs.append(ro)
    nodes = list(g.node) + body_nodes
    inits = list(g.initializer)
    if how == "loop":
        # A carried value that grows by X every iteration, and its length as a scan output: what
        # differs from one iteration to the next must not fold (it also gives Loop up to opset
        # 11 the carried value it needs).
        outs[:0] = [helper.make_tensor_value_info("r_carried", F32, [None]),
                    helper.make_tensor_value_info("r_lengths", I64, [2, 1])]
    if how == "if":
        inits.append(to_proto(V(F32, [0.0]), "wrap_zero"))
        main = [helper.make_node("Greater", ["X", "wrap_zero"], ["wrap_cond"], name="wrap_cond"),
                helper.make_node("If", ["wrap_cond"], [o.name for o in outs], name="wrap",
                                 then_branch=helper.make_graph(nodes, "then", [], body_outs),
                                 else_branch=helper.make_graph(nodes, "else", [], body_outs))]
    else:
        inits.append(to_proto(V(I64, np.array(2, dtype=np.int64)), "wrap_trips"))
        body = helper.make_graph(
            [helper.make_node("Identity", ["wrap_cin"], ["wrap_cout"], name="wrap_cout"),
             helper.make_node("Concat", ["wrap_vin", "X"], ["wrap_vout"], name="wrap_vout", axis=0),
             helper.make_node("Shape", ["wrap_vin"], ["wrap_len"], name="wrap_len")] + nodes, "body",
            [helper.make_tensor_value_info("wrap_i", I64, []), helper.make_tensor_value_info("wrap_cin", BOOL, []),
             helper.make_tensor_value_info("wrap_vin", F32, [None])],
            [helper.make_tensor_value_info("wrap_cout", BOOL, []), helper.make_tensor_value_info("wrap_vout", F32, [None]),
             helper.make_tensor_value_info("wrap_len", I64, [1])] + body_outs)
        main = [helper.make_node("Loop", ["wrap_trips", "", "X"], [o.name for o in outs], name="wrap", body=body)]
    w = helper.make_model(helper.make_graph(main, g.name, list(g.input), outs, inits),
                          opset_imports=list(m.opset_import), producer_name="verify_fold")
    w.ir_version = m.ir_version
    return w


def wrapped_graphs(out_model):
    """The subgraphs of the wrapping node ("wrap") in OUT."""
    for n in out_model.graph.node:
        if n.name == "wrap":
            return [a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
    return []


def folding_signature(nodes, names=True):
    """What folding left of a graph, independent of the names it made up: the operators of the
    nodes (but the wrapper's own) and the values of the Constants (with their names unless
    names is False)."""
    ops, consts = collections.Counter(), collections.Counter()
    for n in nodes:
        if n.name.startswith("wrap_"):
            continue
        ops[n.op_type] += 1
        if n.op_type == "Constant":
            consts[(n.output[0][2:] if n.output[0].startswith("w_") else n.output[0] if names else "",
                    tuple(a.SerializeToString() for a in n.attribute))] += 1
    return ops, consts


INFERRED = re.compile(r"(\d+) rejected, (\d+) conflicts, (\d+) type errors(, (\d+) unknown attributes)?")


def inference_rejects(oxir, path, work):
    """Whether oxir's inference rejects a node of the model (or says there is a conflict)."""
    r = subprocess.run([oxir, "infer", path, os.path.join(work, "inferred.onnx")], capture_output=True, text=True,
                       timeout=120)
    got = INFERRED.search(r.stdout)
    return r.returncode != 0 or not got or any(int(x) for x in got.groups() if x and x.isdigit())


def run_noop(oxir, src, dst, label, fails):
    """`oxir optimize src dst` (no-op nodes replaced too): how many it replaced, or None (with
    the failure recorded)."""
    r = subprocess.run([oxir, "optimize", src, dst], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not os.path.exists(dst):
        fails.append("%s: oxir optimize (no-ops too) failed: %s" % (label, r.stderr.strip()[-300:]))
        return None
    got = re.search(r"replaced (\d+) nodes that hand their input on unchanged", r.stdout)
    return int(got.group(1)) if got else 0


def run_oxir(oxir, src, dst):
    """`oxir optimize src dst --no-noop`: (the summary's 8 numbers, None) or (None, error text).
    (--no-noop: the rules here are folding's; a Cast to the type it has must stay for them, and
    the wrapped copies compare a subgraph, where no-ops stay, with the main graph.
    replace_noop_nodes has its own tests: tests/unit/test_noop.cpp, passes_real_models.)"""
    try:
        r = subprocess.run([oxir, "optimize", src, dst, "--no-noop"], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    got = SUMMARY.search(r.stdout)
    if r.returncode != 0 or not got or not os.path.exists(dst):
        return None, "exit %d: %s %s" % (r.returncode, r.stdout.strip()[-300:], r.stderr.strip()[-500:])
    return [int(g) for g in got.groups()], None


def cmp_ort(jobs, work, ort_dir):
    """cmp_ort.js on jobs: one verdict dict per job. Raises RuntimeError when it fails."""
    if not jobs:
        return []
    path = os.path.join(work, "jobs.json")
    with open(path, "w") as f:
        json.dump(jobs, f)
    r = subprocess.run(["node", os.path.join(HERE, "cmp_ort.js"), path], capture_output=True, text=True,
                       timeout=1800, env=dict(os.environ, OXIR_ORT_DIR=ort_dir))
    verdicts = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if r.returncode != 0 or len(verdicts) != len(jobs):
        raise RuntimeError("cmp_ort.js: exit %d, %d verdicts for %d jobs: %s" % (
            r.returncode, len(verdicts), len(jobs), r.stderr.strip()[-2000:]))
    return verdicts


# ------------------------------------------------------------------------------------------------
# The backend tests with their inputs made constant

def read_test_tensor(path, declared):
    """A test_data_set_0 tensor; the older float16/bfloat16 tests store their data as uint16 (the
    same bits): those get the declared type."""
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    if t.data_type == U16 and declared in (F16, BF16):
        t.data_type = declared
    return t


def corpus_cases(corpus, work, st):
    """(label, path of the constant model, its expectations, opset, model dir, original model)."""
    cases = []
    for d in test_dirs(*(os.path.join(corpus, k) for k in CORPUS_KINDS)):
        try:
            m = onnx.load(os.path.join(d, "model.onnx"))
        except Exception:
            continue
        opset = default_opset(m)
        if opset is None or any(n.domain not in ("", "ai.onnx") or n.op_type not in FOLD_OPS | {"Constant", "If"}
                                for n in m.graph.node) or not m.graph.node:
            continue
        inits = {t.name for t in m.graph.initializer}
        feeds = [i for i in m.graph.input if i.name not in inits]
        tensors = []
        for k, i in enumerate(feeds):
            p = os.path.join(d, "test_data_set_0", "input_%d.pb" % k)
            if not os.path.exists(p) or not i.type.HasField("tensor_type"):
                break
            t = read_test_tensor(p, i.type.tensor_type.elem_type)
            if t.data_type != i.type.tensor_type.elem_type:
                break
            t.name = i.name
            tensors.append(t)
        if len(tensors) != len(feeds):
            st["corpus_no_inputs"] += 1
            continue
        c = onnx.ModelProto()
        c.CopyFrom(m)
        del c.graph.input[:]
        c.graph.initializer.extend(tensors)
        raised = c.ir_version < 4
        c.ir_version = max(c.ir_version, 4)
        label = "%s/%s%s" % (os.path.basename(os.path.dirname(d)), os.path.basename(d),
                             " (IR %d -> 4)" % m.ir_version if raised else "")
        # This script's expectations, node by node.
        vals, consts, expect = {}, {}, {}
        for t in c.graph.initializer:
            try:
                vals[t.name] = from_proto(t)
            except NotEvaluated:
                vals[t.name] = None
            consts[t.name] = True
        for n in c.graph.node:
            ins = [vals.get(i) if i else None for i in n.input]
            cs = [consts.get(i, False) if i else True for i in n.input]
            if n.op_type == "Constant":
                try:
                    v, e = constant_value(n), True
                except NotEvaluated:
                    v, e = None, None
                if v is not None and opset < 9 and v.elem not in (F16, F32, F64):
                    e = False  # Constant-1 holds float types only: oxir's inference rejects it, folding skips it
                vals[n.output[0]], consts[n.output[0]] = v, e
                continue
            v, e, cat, text = judge(n, opset, ins, cs)
            if cat == "invalid data":  # a backend test's data is valid: this script's evaluation is wrong
                e, cat, text = None, "not evaluated", "this script's evaluation rejects it: " + text
            for k, o in enumerate(n.output):
                vals[o], consts[o] = (v[k] if isinstance(v, list) and k < len(v) else None if isinstance(v, list)
                                      else v), e
                expect[o] = (e, cat, text, n.op_type)
        path = os.path.join(work, "corpus_%d.onnx" % len(cases))
        onnx.save(c, path)
        cases.append((label, path, expect, opset, d, m))
    return cases


def check_corpus(cases, oxir, work, ort_dir, st, fails, keep):
    jobs, owners, notes = [], [], []
    for label, path, expect, opset, d, m in cases:
        st["corpus_taken"] += 1
        out = path[:-5] + "_out.onnx"
        counts, err = run_oxir(oxir, path, out)
        if err:
            fails.append("%s: oxir optimize failed: %s" % (label, err))
            save_failure(keep, "corpus_" + os.path.basename(d), path)
            continue
        im = onnx.load(path)
        om, renamed = load_out(out, im)
        left = [n for n in om.graph.node if n.op_type != "Constant"]
        bad = check_folding(expect, im, om, opset, label, renamed)
        for n in left:
            e = expect.get(n.output[0])
            if e and e[0] is not True:
                notes.append("%s: %s -> %s left, %s: %s" % (label, n.op_type, n.output[0], "excused by the rules"
                                                             if e[0] is False else "outside the rules as written",
                                                             e[1] + (": " + e[2] if e[2] else "")))
        if not left:
            st["corpus_folded"] += 1
        fails.extend(bad)
        # The folded outputs against the test's references.
        verdicts = []
        for k, o in enumerate(m.graph.output):
            p = os.path.join(d, "test_data_set_0", "output_%d.pb" % k)
            if not os.path.exists(p) or not o.type.HasField("tensor_type"):
                continue  # (a sequence or an optional: ONNX Runtime compares it below)
            t = read_test_tensor(p, o.type.tensor_type.elem_type)
            try:
                want = from_proto(t)
                got = folded_value(om, o.name)
            except NotEvaluated as e:
                notes.append("%s: output %s not compared: %s" % (label, o.name, e))
                continue
            if got is None:
                continue  # left to a node: ONNX Runtime compares it below
            verdicts.append((o.name, compare_values(got, want)))
        if verdicts and all(v == "identical" for _, v in verdicts):
            st["corpus_identical"] += 1
        st["corpus_outputs"] += len(verdicts)
        st["corpus_outputs_identical"] += sum(v == "identical" for _, v in verdicts)
        for name, v in verdicts:
            if v in ("zero signs", "close"):
                st["corpus_close"] += 1
                notes.append("%s: output %s only %s to the reference" % (label, name,
                                                                         "equal but for zero signs" if v == "zero signs"
                                                                         else "close (1e-3)"))
            elif v != "identical":
                fails.append("%s: output %s %s from the reference" % (label, name, v))
        if bad or any(v not in ("identical",) for _, v in verdicts):
            save_failure(keep, "corpus_" + os.path.basename(d), path, out)
        job = {"a": path, "b": out, "spec": {}, "always_expect": True}
        exp = expected_of(d, m)
        if exp is not None:
            job["expect"] = exp
        jobs.append(job)
        owners.append((label, d, path, out))
    for res in cmp_ort(jobs, work, ort_dir):
        label, d, path, out = owners[res["job"]]
        v = res["verdict"]
        st["corpus_ort_" + v.lower()] += 1
        if v in ("SAME", "REFERENCE", "BOTH_FAIL"):
            if v != "SAME":
                notes.append("%s: ONNX Runtime %s: %s" % (label, "cannot run the model before, after agrees with the "
                                                          "reference" if v == "REFERENCE" else "runs neither model",
                                                          res["detail"][:200]))
            continue
        fails.append("%s: ONNX Runtime %s: %s" % (label, v, res["detail"][:300]))
        save_failure(keep, "corpus_" + os.path.basename(d), path, out)
    return notes


def save_failure(keep, tag, *paths):
    if not keep:
        return
    os.makedirs(keep, exist_ok=True)
    for p in paths:
        if p and os.path.exists(p):
            base = os.path.basename(p)
            shutil.copy(p, os.path.join(keep, tag + ("_out" if base.endswith("_out.onnx") else "_in") + ".onnx"))


# ------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
    ap.add_argument("--count", type=int, default=500, help="generated models")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    ap.add_argument("--keep", default="/tmp/fold/fail", help="where failing models are copied ('' for nowhere)")
    ap.add_argument("--generate-only", action="store_true",
                    help="no oxir: check the generated models with onnx's checker and ONNX Runtime (IN against IN)")
    args = ap.parse_args()
    if not shutil.which("node"):
        vr.skip("node is not installed")
    ort_dir = vr.ensure_ort(args.cache)
    work = tempfile.mkdtemp(prefix="oxir-fold-")
    if args.keep and os.path.isdir(args.keep):  # this script's models of an earlier run
        for f in os.listdir(args.keep):
            if re.match(r"(gen|corpus)_.*\.onnx$|failures\.txt$", f):
                os.remove(os.path.join(args.keep, f))
    st = collections.Counter()
    reasons, fold_ops = collections.Counter(), collections.Counter()
    fails, notes = [], []
    cases = [generate(k, args.seed, work) for k in range(args.count)]
    jobs, owners = [], []
    by_kind = collections.Counter(c.kind for c in cases)
    for c in cases:
        label = "gen_%d (%s, opset %d)" % (c.k, c.kind, c.opset)
        main_noops = None  # no-op nodes replaced in the main graph (when ONNX Runtime runs the case)
        st["generated"] += 1
        in_ok = valid(onnx.load(c.path), True)
        st["in_valid"] += in_ok
        for e, cat, _, op in c.expect.values():
            st["expect_" + ("fold" if e is True else "stay" if e is False else "open")] += 1
            fold_ops[op] += e is True
            if e is not True:
                reasons[("stay: " if e is False else "open: ") + cat] += 1
        if args.generate_only:
            if not in_ok and c.opset <= 17 and c.kind in ("normal", "no_kernel") + BIG_KINDS:
                notes.append("%s: onnx's full check rejects the generated model: %s" % (
                    label, str(onnx_check_error(c.path))[:200]))
            if c.run_ort:
                jobs.append({"a": c.path, "b": c.path, "spec": c.spec})
                owners.append((c, label, c.path))
            continue
        out = c.path[:-5] + "_out.onnx"
        counts, err = run_oxir(args.oxir, c.path, out)
        if err:
            fails.append("%s: oxir optimize failed: %s" % (label, err))
            save_failure(args.keep, "gen_%d" % c.k, c.path)
            continue
        st["oxir_folded"] += counts[3]
        im = onnx.load(c.path)
        om, renamed = load_out(out, im)
        bad = check_folding(c.expect, im, om, c.opset, label, renamed)
        st["folded_checked"] += sum(1 for e in c.expect.values() if e[0] is True)
        if in_ok:
            if valid(onnx.load(out), True):  # (the file as written, not om with names put back)
                st["out_valid"] += 1
            else:
                bad.append("%s: onnx's full check accepts IN but not OUT: %s" % (label, onnx_check_error(out)))
        if c.numpy_check or not c.run_ort:
            for name in c.outputs:
                v = c.vals.get(name)
                if v is not None and c.expect.get(name, (None,))[0] is True:
                    got = folded_value(om, name)
                    if got is None:
                        continue  # not folded: reported above
                    exact = c.nan_exact(name)
                    verdict = compare_values(got, v, nan_bits=exact)
                    st["numpy_compared"] += 1
                    st["numpy_compared_nan_bits"] += exact
                    if verdict != "identical":
                        bad.append("%s: output %s (%s) %s from numpy's" % (label, name, TYPE_NAME[v.elem], verdict))
        if bad:
            save_failure(args.keep, "gen_%d" % c.k, c.path, out)
        fails.extend(bad)
        if c.run_ort:
            jobs.append({"a": c.path, "b": out, "spec": c.spec})
            owners.append((c, label, out))
            # And with no-op nodes removed too (replace_noop_nodes, which run_oxir turns off):
            # ONNX Runtime must still give the same bits.
            nout = c.path[:-5] + "_noop.onnx"
            main_noops = run_noop(args.oxir, c.path, nout, label, fails)
            if main_noops is not None:
                st["noop_replaced"] += main_noops
                jobs.append({"a": c.path, "b": nout, "spec": c.spec})
                owners.append((c, label + " (no-ops removed too)", nout))
        # The same computation inside a subgraph (If branches or a Loop body) must fold the same.
        how = "if" if c.k % 2 == 0 else "loop"
        wpath = c.path[:-5] + "_wrap.onnx"
        onnx.save(wrap(onnx.load(c.path), how), wpath)
        wout = wpath[:-5] + "_out.onnx"
        _, err = run_oxir(args.oxir, wpath, wout)
        wlabel = "%s wrapped in %s" % (label, "an If" if how == "if" else "a Loop")
        if err:
            fails.append("%s: oxir optimize failed: %s" % (wlabel, err))
            save_failure(args.keep, "gen_%d_wrap" % c.k, wpath)
            continue
        st["wrapped"] += 1
        rejected_before = st["wrapped_rejected"]
        subs = wrapped_graphs(load_out(wout, onnx.load(wpath))[0])
        if len(subs) != (2 if how == "if" else 1):
            fails.append("%s: the wrapping node is gone or changed" % wlabel)
        if inference_rejects(args.oxir, wpath, work):
            # A node inference rejects (a type its operator's version does not take, ...) makes it
            # reject the whole If or Loop: nothing in it may fold (unused nodes may go). So does
            # a type the If or Loop of that opset does not take (bfloat16 before 16, ...).
            st["wrapped_rejected"] += 1
            # (Constants by value: the Identity removal may rename a Constant to the branch output
            # it fed; the values a fold makes are new.)
            before = wrapped_graphs(onnx.load(wpath))[0]
            old_consts = folding_signature(before.node, names=False)[1]
            for sub in subs:
                new_consts = folding_signature(sub.node, names=False)[1] - old_consts
                if new_consts:
                    fails.append("%s: inference rejects a node, yet subgraph %s has new Constants %s" % (
                        wlabel, sub.name, [k[0] for k in new_consts][:8]))
                    save_failure(args.keep, "gen_%d_wrap" % c.k, wpath, wout)
                    break
        else:
            want = folding_signature(om.graph.node)
            for sub in subs:
                got = folding_signature(sub.node)
                if got != want:
                    fails.append("%s: subgraph %s folds otherwise than the main graph: operators %s against %s; "
                                 "Constants only in the subgraph %s, only in the main graph %s" % (
                                     wlabel, sub.name, dict(got[0]), dict(want[0]),
                                     [k[0] for k in got[1] - want[1]][:8], [k[0] for k in want[1] - got[1]][:8]))
                    save_failure(args.keep, "gen_%d_wrap" % c.k, wpath, wout)
                    break
            else:
                st["wrapped_same"] += 1
        if c.run_ort:
            jobs.append({"a": wpath, "b": wout, "spec": c.spec})
            owners.append((c, wlabel, wout))
            # No-ops inside the subgraphs: replaced as in the main graph (in each branch), and
            # ONNX Runtime gives the same bits.
            wnout = wpath[:-5] + "_noop.onnx"
            wnoops = run_noop(args.oxir, wpath, wnout, wlabel, fails)
            if wnoops is not None:
                st["noop_wrapped"] += wnoops
                jobs.append({"a": wpath, "b": wnout, "spec": c.spec})
                owners.append((c, wlabel + " (no-ops removed too)", wnout))
                rejected = st["wrapped_rejected"] > rejected_before
                # (In a Loop body a string tensor from outside stays where a no-op passes it on:
                # ONNX Runtime's Identity empties it after the first iteration.)
                g = onnx.load(c.path).graph
                outer_strings = how == "loop" and (
                    any(t.data_type == onnx.TensorProto.STRING for t in g.initializer) or
                    any(i.type.tensor_type.elem_type == onnx.TensorProto.STRING for i in g.input))
                if outer_strings:
                    st["noop_outer_strings"] += 1
                elif main_noops is not None and not rejected and wnoops != main_noops * len(subs):
                    fails.append("%s: %d no-op nodes replaced in the subgraphs, %d in the main graph" % (
                        wlabel, wnoops, main_noops))
                    save_failure(args.keep, "gen_%d_wrap" % c.k, wpath, wnout)
    try:
        verdicts = cmp_ort(jobs, work, ort_dir)
    except RuntimeError as e:
        print("error: %s" % e)
        return 2
    for res in verdicts:
        c, label, out = owners[res["job"]]
        v = res["verdict"]
        st["ort_" + v.lower()] += 1
        ok = v == "SAME" or v == "BOTH_FAIL" and (c.kind in INVALID_KINDS or args.generate_only)
        if v == "BOTH_FAIL" and c.kind not in INVALID_KINDS:
            notes.append("%s: ONNX Runtime runs neither model: %s" % (label, res["detail"][:300]))
        if not ok:
            fails.append("%s: ONNX Runtime %s: %s" % (label, v, res["detail"][:300]))
            save_failure(args.keep, "gen_%d" % c.k, c.path, out if out != c.path else None)
    if not args.generate_only and not os.path.isdir(args.corpus):
        notes.append("corpus %s not found (Debian's libonnx-testdata): backend tests not run" % args.corpus)
    if not args.generate_only and os.path.isdir(args.corpus):
        try:
            notes += check_corpus(corpus_cases(args.corpus, work, st), args.oxir, work, ort_dir, st, fails, args.keep)
        except RuntimeError as e:
            print("error: %s" % e)
            return 2

    print("generated models: %d (%s; seed %d); opsets 9-21" % (st["generated"], ", ".join(
        "%s %d" % kv for kv in sorted(by_kind.items())), args.seed))
    print("  node outputs this script expects to fold: %d, to stay: %d, left open by the rules: %d" % (
        st["expect_fold"], st["expect_stay"], st["expect_open"]))
    print("    (%s)" % ", ".join("%s %d" % kv for kv in sorted(reasons.items())))
    print("    to fold, by operator: %s" % ", ".join("%s %d" % kv for kv in sorted(fold_ops.items())))
    if not args.generate_only:
        print("  oxir: %d nodes folded (its summary); onnx's full check: %d of %d OUT models it accepts as IN"
              % (st["oxir_folded"], st["out_valid"], st["in_valid"]))
        print("  the same models inside If branches and Loop bodies: %d; folded as in the main graph: %d; with a node "
              "inference rejects, so nothing folded inside: %d" % (st["wrapped"], st["wrapped_same"],
                                                                  st["wrapped_rejected"]))
        print("  with no-op nodes removed too (a second `oxir optimize` without --no-noop): %d nodes replaced, "
              "%d in the wrapped models' subgraphs, as many as in the main graph (in each branch) but in %d Loop "
              "bodies that read string tensors from outside; ONNX Runtime compares those models as well" % (
                  st["noop_replaced"], st["noop_wrapped"], st["noop_outer_strings"]))
        if st["numpy_compared"]:
            print("  folded outputs of the models ONNX Runtime does not run compared with this script's own values: %d "
                  "(%d of them NaN bits too)" % (st["numpy_compared"], st["numpy_compared_nan_bits"]))
    else:
        print("  onnx's full check accepts %d of the generated models" % st["in_valid"])
    print("  ONNX Runtime, IN against %s: %d jobs; SAME %d, BOTH_FAIL %d, DIFF %d" % (
        "IN" if args.generate_only else "OUT", len(jobs), st["ort_same"], st["ort_both_fail"], st["ort_diff"]))
    if not args.generate_only and st["corpus_taken"]:
        print("backend tests with constant inputs: %d taken, %d folded completely; folded outputs compared with the "
              "references: %d, identical %d (in %d models), only close %d" % (
                  st["corpus_taken"], st["corpus_folded"], st["corpus_outputs"], st["corpus_outputs_identical"],
                  st["corpus_identical"], st["corpus_close"]))
        print("  ONNX Runtime before/after: SAME %d, REFERENCE %d (before not run), BOTH_FAIL %d, DIFF %d" % (
            st["corpus_ort_same"], st["corpus_ort_reference"], st["corpus_ort_both_fail"], st["corpus_ort_diff"]))
    for n in notes:
        print("note:", n)
    for f in fails[:int(os.environ.get("OXIR_FOLD_MAX_FAILS", "60"))]:
        print("FAIL:", f)
    if len(fails) > int(os.environ.get("OXIR_FOLD_MAX_FAILS", "60")):
        print("... and %d more failures" % (len(fails) - int(os.environ.get("OXIR_FOLD_MAX_FAILS", "60"))))
    print("%d failures" % len(fails))
    if fails and args.keep:
        os.makedirs(args.keep, exist_ok=True)
        with open(os.path.join(args.keep, "failures.txt"), "w") as f:
            f.write("".join("FAIL: %s\n" % x for x in fails))
        print("failing models (IN as *_in.onnx, OUT as *_out.onnx) and failures.txt in %s" % args.keep)
    shutil.rmtree(work, ignore_errors=True)
    return 1 if fails else 0


def onnx_check_error(path):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return ""
    except Exception as e:  # noqa: BLE001
        return str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__


if __name__ == "__main__":
    sys.exit(main())
