#!/usr/bin/python3
"""noop_differential: `oxir optimize`'s no-op rules for arithmetic with a constant, one-input
reductions, Split, Pad and Tile (replace_noop_nodes), checked by ONNX Runtime on edge values.

Each generated model computes E = Concat(X, EDGE) -- X a graph input, EDGE a constant of the
element type's edge values (for floating point -0.0, +0.0, NaNs of both signs, infinities,
the smallest subnormal, the largest finite value, 1.5; for integers 0, 1, -1, the type's
limits) -- then one node under test reading E, and its output is a graph output. The node
under test is, for Add/Sub/Mul/Div/And/Or/Xor, `E op C` or `C op E` with C a constant of one
value (the operator's neutral element, or a near miss: +0.0 added, -0.0 subtracted, 2, -1...)
in one of several shapes (scalar, [1], [k] as E's last dim, [1,k], or one that enlarges E).
This script decides by itself, from IEEE and numpy semantics, which nodes are no-ops:

  - a no-op is an operator and side whose result equals E bit for bit for every E (x*1, 1*x,
    x/1 in every type; x+0, 0+x, x-0 for integers; x+(-0.0), (-0.0)+x, x-(+0.0) in floating
    point; x and true, x or false, x xor false) with a C that does not enlarge E;
  - every other node stays: oxir optimize must replace exactly the no-ops (the node under test
    disappears from OUT) and keep the others.

Then ONNX Runtime (npm onnxruntime-node, graph optimizations off; cmp_ort.js compares with
Object.is, so -0.0 differs from +0.0) runs IN and OUT on the same X: the outputs must be the
same. numpy's result of the node on the edge values is compared with E for the cases this
script calls no-ops (its own rule checked against a second implementation of the arithmetic).
Sum/Max/Min/Mean of one input, Split into one output, Pad by zeros (every mode), Tile by ones
and their near misses (two inputs, a nonzero pad, a repeat of 2) run the same way.

Exit 0 when every check holds, 1 otherwise; prints "SKIPPED: ..." and exits 0 without
python3-onnx/numpy, node or onnxruntime-node.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    import onnx
    from onnx import TensorProto as TP, helper, numpy_helper
except ImportError as e:
    print("SKIPPED: needs Debian's python3-onnx and python3-numpy (%s)" % e)
    sys.exit(0)

from passes_common import NoRuntime, run_ort_jobs, valid  # noqa: E402

FLOATS = {TP.FLOAT: np.float32, TP.DOUBLE: np.float64, TP.FLOAT16: np.float16}
INTS = {TP.INT8: np.int8, TP.UINT8: np.uint8, TP.INT32: np.int32, TP.INT64: np.int64, TP.UINT64: np.uint64}
JS_DTYPE = {TP.FLOAT: "float32", TP.DOUBLE: "float64", TP.FLOAT16: "float16", TP.INT8: "int8", TP.UINT8: "uint8",
            TP.INT32: "int32", TP.INT64: "int64", TP.UINT64: "uint64", TP.BOOL: "bool"}


def edge_values(t):
    """The edge values of element type t, as a numpy array of that type."""
    if t in FLOATS:
        f = FLOATS[t]
        info = np.finfo(f)
        tiny = np.nextafter(f(0), f(1))
        vals = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, tiny, -tiny, info.max, 1.5]
        return np.array(vals, dtype=f)
    if t in INTS:
        i = INTS[t]
        info = np.iinfo(i)
        vals = [0, 1, info.max, info.min] + ([-1] if info.min < 0 else [7])
        return np.array(vals, dtype=i)
    return np.array([False, True], dtype=bool)


def is_neutral(op, t, value, side):
    """Whether `E op C` (side "right") or `C op E` (side "left"), C all `value`, is E for every E
    of element type t: the script's own rule."""
    if t == TP.BOOL:
        return (op == "And" and value) or (op in ("Or", "Xor") and not value)
    if op in ("Sub", "Div") and side == "left":
        return False
    if op in ("Mul", "Div"):
        return value == 1
    if op in ("Add", "Sub"):
        if t in INTS:
            return value == 0
        # floating point: only x + (-0.0) and x - (+0.0) keep a negative zero
        neg = np.signbit(np.float64(value))
        return value == 0 and (neg if op == "Add" else not neg)
    return False


def numpy_apply(op, a, b):
    with np.errstate(all="ignore"):
        if op == "Add":
            return a + b
        if op == "Sub":
            return a - b
        if op == "Mul":
            return a * b
        if op == "Div":
            if a.dtype.kind in "iu":
                return None  # (integer division by 1 is the dividend; numpy's // floors)
            return a / b
        if op == "And":
            return np.logical_and(a, b)
        if op == "Or":
            return np.logical_or(a, b)
        if op == "Xor":
            return np.logical_xor(a, b)
    raise ValueError(op)


def same_bits(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if x.dtype.kind == "f":
        # NaN equals NaN (payloads may differ: a quiet NaN stays quiet), else the same bits
        both_nan = np.isnan(x) & np.isnan(y)
        return bool(np.all(both_nan | (x.view(np.uint8 if x.itemsize == 1 else f"u{x.itemsize}") ==
                                       y.view(np.uint8 if y.itemsize == 1 else f"u{y.itemsize}"))))
    return bool(np.array_equal(x, y))


class Case:
    def __init__(self, k, model, expect_noop, what, spec):
        self.k, self.model, self.expect_noop, self.what, self.spec = k, model, expect_noop, what, spec


def make_model(t, rows, node, extra_nodes, opset, out_shape):
    """X ([rows, k] of element type t) concatenated with EDGE along axis 0 (E is [rows+1, k]),
    then `node` reading E; output Y of shape out_shape (a function of k)."""
    edge = edge_values(t)
    k = edge.size
    nodes = [helper.make_node("Constant", [], ["EDGE"], value=numpy_helper.from_array(edge.reshape(1, k), "EDGE_v")),
             helper.make_node("Concat", ["X", "EDGE"], ["E"], axis=0)] + extra_nodes + [node]
    g = helper.make_graph(nodes, "noop", [helper.make_tensor_value_info("X", t, [rows, k])],
                          [helper.make_tensor_value_info("Y", t, out_shape(k))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="verify_noop")
    m.ir_version = 8
    return m, k


def const_node(name, arr):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(arr, name + "_v"))


def arithmetic_cases(rng):
    cases = []
    near = {"Add": [0.0, -0.0, 1.0], "Sub": [0.0, -0.0, 1.0], "Mul": [1.0, 2.0, -1.0, 0.0], "Div": [1.0, 2.0, -1.0]}
    types = [TP.FLOAT, TP.DOUBLE, TP.FLOAT16, TP.INT8, TP.UINT8, TP.INT32, TP.INT64, TP.UINT64]
    for op in ("Add", "Sub", "Mul", "Div"):
        for t in types:
            for value in near[op]:
                if t in INTS and (value < 0 and t in (TP.UINT8, TP.UINT64) or value != int(value)):
                    continue
                for side in ("right", "left"):
                    # (integer C / E divides by E's zero, E / -1 overflows for INT_MIN: undefined,
                    # and a trap that ends ONNX Runtime's process)
                    if t in INTS and op == "Div" and (side == "left" or value < 0):
                        continue
                    cases.append((op, t, value, side))
    for op in ("And", "Or", "Xor"):
        for value in (True, False):
            for side in ("right", "left"):
                cases.append((op, TP.BOOL, value, side))
    out = []
    for op, t, value, side in cases:
        edge_k = edge_values(t).size
        shape_kind = rng.choice(["scalar", "one", "row", "matrix_row", "enlarge"])
        shape = {"scalar": [], "one": [1], "row": [edge_k], "matrix_row": [1, edge_k], "enlarge": [2, 1, edge_k]}[shape_kind]
        np_t = bool if t == TP.BOOL else FLOATS.get(t) or INTS[t]
        c = np.full(shape, value, dtype=np_t)
        ins = ["E", "C"] if side == "right" else ["C", "E"]
        node = helper.make_node(op, ins, ["Y"], name="under_test")
        # (int8, uint8 and the 16-bit integers from Add-14 on)
        opset = rng.choice([14, 17] if t in (TP.INT8, TP.UINT8) else [13, 14, 17])
        model, k = make_model(t, 2, node, [const_node("C", c)], opset,
                              lambda k, c=c: list(np.broadcast_shapes((3, k), c.shape)))
        expect = is_neutral(op, t, value, side) and shape_kind != "enlarge"
        # The script's rule against numpy's arithmetic on the edge values (where numpy computes
        # as ONNX does): a no-op must give E's own bits.
        e = edge_values(t).reshape(1, k)
        got = numpy_apply(op, e, c) if side == "right" else numpy_apply(op, c, e)
        if expect and got is not None and not same_bits(np.asarray(got, dtype=e.dtype).reshape(e.shape), e):
            raise AssertionError("the script's own rule is wrong: %s %s %r %s" % (op, TP.DataType.Name(t), value, side))
        spec = {"X": {"shape": [2, k], "dtype": JS_DTYPE[t]}}
        if t in INTS:
            spec["X"]["int_range"] = [0, 100]
        what = "%s %s C=%r (%s, shape %s)" % (op, TP.DataType.Name(t), value, side, shape_kind)
        out.append((model, expect, what, spec))
    return out


def structural_cases():
    """Sum/Max/Min/Mean of one input, Split, Pad, Tile, and their near misses, on float E."""
    t = TP.FLOAT
    k = edge_values(t).size
    out = []

    def add(node, extra, expect, what, opset=17, shape=(3, k)):
        model, _ = make_model(t, 2, node, extra, opset, lambda _k: list(shape))
        out.append((model, expect, what, {"X": {"shape": [2, k], "dtype": "float32"}}))

    for op in ("Sum", "Max", "Min", "Mean"):
        add(helper.make_node(op, ["E"], ["Y"], name="under_test"), [], True, "%s of one input" % op)
        add(helper.make_node(op, ["E", "E"], ["Y"], name="under_test"), [], False, "%s of two inputs" % op)
    add(helper.make_node("Split", ["E"], ["Y"], name="under_test", axis=1), [], True, "Split into one output")
    add(helper.make_node("Split", ["E"], ["Y"], name="under_test", num_outputs=1), [], True,
        "Split-18 into one output", opset=18)
    for mode in ("constant", "reflect", "edge"):
        add(helper.make_node("Pad", ["E", "P"], ["Y"], name="under_test", mode=mode),
            [const_node("P", np.zeros(4, dtype=np.int64))], True, "Pad by zeros, %s" % mode)
    add(helper.make_node("Pad", ["E", "P"], ["Y"], name="under_test"),
        [const_node("P", np.array([0, 0, 0, 1], dtype=np.int64))], False, "Pad by a one", shape=(3, k + 1))
    add(helper.make_node("Pad", ["E", "P"], ["Y"], name="under_test"),
        [const_node("P", np.array([0, 0, 0, -1], dtype=np.int64))], False, "Pad by a minus one (a crop)",
        shape=(3, k - 1))
    add(helper.make_node("Pad", ["E", "P", "", "A"], ["Y"], name="under_test"),
        [const_node("P", np.zeros(2, dtype=np.int64)), const_node("A", np.array([1], dtype=np.int64))], True,
        "Pad-18 by zeros on axis 1", opset=18)
    add(helper.make_node("Pad", ["E", "P"], ["Y"], name="under_test", mode="wrap"),
        [const_node("P", np.zeros(4, dtype=np.int64))], True, "Pad by zeros, wrap", opset=19)
    add(helper.make_node("Tile", ["E", "R"], ["Y"], name="under_test"),
        [const_node("R", np.ones(2, dtype=np.int64))], True, "Tile by ones")
    add(helper.make_node("Tile", ["E", "R"], ["Y"], name="under_test"),
        [const_node("R", np.array([1, 2], dtype=np.int64))], False, "Tile by a two", shape=(3, 2 * k))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="oxir-noop-")
    cases = arithmetic_cases(rng) + structural_cases()
    fails, jobs, owners = [], [], []
    stats = dict(cases=0, noop=0, stay=0, in_valid=0, out_valid=0)
    for i, (model, expect, what, spec) in enumerate(cases):
        stats["cases"] += 1
        stats["noop" if expect else "stay"] += 1
        src = os.path.join(work, "c%d.onnx" % i)
        dst = os.path.join(work, "c%d_out.onnx" % i)
        onnx.save(model, src)
        in_ok = valid(model, True)
        stats["in_valid"] += in_ok
        r = subprocess.run([args.oxir, "optimize", src, dst], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            fails.append("%s: oxir optimize failed: %s" % (what, r.stderr.strip()[-300:]))
            continue
        out = onnx.load(dst)
        kept = any(n.name == "under_test" and n.op_type != "Identity" for n in out.graph.node)
        if kept == expect:
            fails.append("%s: %s" % (what, "a no-op, yet kept" if expect else "not a no-op, yet replaced"))
        if in_ok:
            ok = valid(out, True)
            stats["out_valid"] += ok
            if not ok:
                fails.append("%s: onnx's full check accepts IN but not OUT" % what)
        jobs.append({"a": src, "b": dst, "spec": spec})
        owners.append(what)
    try:
        verdicts = run_ort_jobs(jobs, work)
    except NoRuntime:
        print("SKIPPED: onnxruntime-node is not installed (ctest infer_real_models installs it)")
        return 0
    if len(verdicts) != len(jobs):
        fails.append("cmp_ort.js gave %d verdicts for %d jobs" % (len(verdicts), len(jobs)))
    ort = {}
    for res in verdicts:
        v = res["verdict"]
        ort[v] = ort.get(v, 0) + 1
        if v not in ("SAME", "BOTH_FAIL"):
            fails.append("%s: ONNX Runtime %s: %s" % (owners[res["job"]], v, res["detail"][:300]))
    print("cases: %d (no-ops by this script's rules: %d, near misses that must stay: %d); onnx's full check "
          "accepts %d OUT of %d valid IN" % (stats["cases"], stats["noop"], stats["stay"], stats["out_valid"],
                                             stats["in_valid"]))
    print("ONNX Runtime, IN against OUT: %s" % ", ".join("%s %d" % kv for kv in sorted(ort.items())))
    for f in fails:
        print("FAIL: " + f)
    print("%d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
