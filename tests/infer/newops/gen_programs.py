"""Seeded random multi-node programs for the ONNX Runtime differential test (imported by
gen_models.py). The single-operator cases check one rule at a time; these check how the rules
compose: symbols merged by one node and relied on by the next, shape tensors built by chains of
Shape/Gather/Slice/arithmetic/Concat/Where and consumed by Reshape/Expand/ConstantOfShape/Range,
broadcasting against input dims that are 1 at some bindings, pools, pads and slices applied to
derived sizes.

Each program imports one of opsets 9, 10, 11, 13, 15, 17, 18, 21 and 23 and writes every operator in
the form of that version (axes as attributes or inputs, Split sizes, Resize's roi/scales, Shape
start/end); under opsets 9 and 10 it leaves out the operators, input forms, attributes and negative
axes those versions did not have yet (Program.check_old_version), so ONNX Runtime runs most of them.
OXIR_PROGRAM_OPSETS=9,10 (say) draws from other opsets instead.
Every value a program computes is also a graph output, so verify_newops.py checks all of them, not
only the last. The generator tracks each value's concrete shape at every binding (and the contents
of small int64 tensors) only to choose operands and attributes that are valid at all bindings; the
reference is what ONNX Runtime computes, never this tracking. A program ONNX Runtime rejects at some
binding is counted as skipped.
"""

import os
import random

import numpy as np
from onnx import AttributeProto
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

NB = 4  # bindings per program
# dim_params of the graph inputs and their size at each binding; several are 1 at one binding, so
# broadcasting against them is legal there and a rule cannot assume they are not 1.
PARAMS = {
    "N": (1, 3, 2, 4), "S": (5, 1, 8, 3), "H": (6, 9, 4, 7), "W": (8, 5, 11, 6),
    "C": (3, 4, 2, 5), "T": (7, 2, 1, 9),
}
MAX_ELEMS = 200_000
OPSET = 18
OPSETS = [9, 10, 11, 13, 15, 17, 18, 18, 21, 23]  # per program: the attribute/input forms of each version
if os.environ.get("OXIR_PROGRAM_OPSETS"):  # e.g. "9,10" for a run at other opsets
    OPSETS = [int(x) for x in os.environ["OXIR_PROGRAM_OPSETS"].split(",")]


def _attr_ref(name, ref):
    """An attribute of a function body node that refers to the calling node's attribute `ref`."""
    a = AttributeProto()
    a.name = name
    a.ref_attr_name = ref
    a.type = AttributeProto.INT
    return a


def const_node(name, values):
    """A Constant node of an int64 tensor (inside subgraphs and function bodies)."""
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64)))


class Reject(Exception):
    """The chosen operation is not valid at every binding (or too big): it is not added."""


def const_dim(c):
    return (c,) * NB


class Val:
    def __init__(self, name, kind, shape, content=None):
        self.name = name
        self.kind = kind  # 'f' float32, 'i' int64, 'b' bool
        self.shape = shape  # list of per-binding size tuples
        self.content = content  # 'i' values of rank <= 1: list of per-binding value tuples, or None

    @property
    def rank(self):
        return len(self.shape)


def bcast(*shapes):
    r = max(len(s) for s in shapes)
    out = []
    for k in range(r):
        dims = [s[len(s) - r + k] for s in shapes if len(s) - r + k >= 0]
        d = []
        for b in range(NB):
            sizes = {x[b] for x in dims} - {1}
            if len(sizes) > 1:
                raise Reject()
            d.append(sizes.pop() if sizes else 1)
        out.append(tuple(d))
    return out


def numel(shape, b):
    n = 1
    for d in shape:
        n *= d[b]
    return n


class Program:
    def __init__(self, rng, index, opset=OPSET):
        self.rng = rng
        self.index = index
        self.opset = opset
        self.nodes, self.inits, self.inputs, self.vals = [], {}, [], []
        self.aliases = {}  # dim_param -> sizes, for input dims that equal derived sizes
        self.count = 0
        self.fills = {}  # run-time contents of some inputs (If conditions)
        self.functions, self.function_protos = [], []  # model-local functions: (name, variant), FunctionProto

    # -- randomness
    def ri(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    def chance(self, p):
        return self.rng.random() < p

    def choice(self, seq):
        return seq[self.ri(0, len(seq) - 1)]

    # -- names, constants, inputs
    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, values, shape=None):
        name = self.fresh("k")
        arr = np.array(values, dtype=np.int64)
        if shape is not None:
            arr = arr.reshape(shape)
        self.inits[name] = arr
        content = [const_dim(int(v)) for v in arr.reshape(-1)] if arr.ndim <= 1 else None
        return Val(name, "i", [const_dim(n) for n in arr.shape], content)

    def data_piece(self, c):
        """[c] as run-time data: an int64 graph input [1] fed c. Inference cannot know it, so a
        shape tensor concatenated from it and from pieces of shapes has contents known in part;
        the generator knows c, and ONNX Runtime is the reference."""
        name = self.fresh("data")
        self.inputs.append((name, TP.INT64, [1]))
        self.fills[name] = {"value": [int(c)]}
        return Val(name, "i", [const_dim(1)], [const_dim(int(c))])

    def piece(self, c, p=0.2):
        """A constant piece [c], or (with chance p) the same value as run-time data."""
        return self.data_piece(c) if self.chance(p) else self.const([c])

    def const_f(self, value):
        name = self.fresh("k")
        self.inits[name] = np.array(value, dtype=np.float32)
        return Val(name, "f", [])

    def empty_f(self):
        name = self.fresh("k")
        self.inits[name] = np.zeros([0], dtype=np.float32)
        return name

    def const_b(self, value):
        name = self.fresh("k")
        self.inits[name] = np.array(value, dtype=np.bool_)
        return name

    def label(self, sizes):
        """A dim label for a new graph input whose size is `sizes` at each binding."""
        if len(set(sizes)) == 1 and self.chance(0.8):
            return sizes[0]
        for p, s in PARAMS.items():
            if s == sizes and self.chance(0.85):
                return p
        for p, s in self.aliases.items():
            if s == sizes and self.chance(0.7):
                return p
        p = f"A{len(self.aliases)}"
        self.aliases[p] = sizes
        return p

    def sizes_of(self, label):
        if isinstance(label, int):
            return const_dim(label)
        return PARAMS[label] if label in PARAMS else self.aliases[label]

    def new_input(self, labels, kind="f"):
        name = self.fresh("in")
        elem = TP.FLOAT if kind == "f" else TP.INT64
        self.inputs.append((name, elem, list(labels)))
        v = Val(name, kind, [self.sizes_of(lab) for lab in labels])
        v.is_input = True
        self.vals.append(v)
        return v

    def random_labels(self, rank):
        out = []
        for _ in range(rank):
            if self.chance(0.3):
                out.append(self.ri(1, 6))
            else:
                out.append(self.choice(list(PARAMS)))
        return out

    # -- nodes
    def node(self, op, ins, n_out=1, kinds=None, shapes=None, contents=None, **attrs):
        outs = [self.fresh("v") for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, [i if isinstance(i, str) else i.name for i in ins], outs, **attrs))
        vals = []
        for k in range(n_out):
            shape = shapes[k]
            if any(d[b] <= 0 for d in shape for b in range(NB)):
                raise Reject()  # no empty tensors: later ops (Reshape -1, pools...) would be invalid
            if any(numel(shape, b) > MAX_ELEMS for b in range(NB)):
                raise Reject()
            v = Val(outs[k], kinds[k], shape, contents[k] if contents else None)
            vals.append(v)
        self.vals.extend(vals)
        return vals if n_out > 1 else vals[0]

    def pick(self, kinds="f", pred=None):
        cands = [v for v in self.vals if v.kind in kinds and not getattr(v, "opaque", False) and (pred is None or pred(v))]
        if not cands:
            raise Reject()
        recent = cands[-4:]
        return self.choice(recent if self.chance(0.6) else cands)

    def slice_from_nodes(self, src, dst, lo, axis):
        """Subgraph nodes for dst = src[lo:] along `axis`, bounds as Constant nodes."""
        ks, ke, ka = self.fresh("ke"), self.fresh("ke"), self.fresh("ke")
        return [const_node(n, [c]) for n, c in ((ks, lo), (ke, 2**40), (ka, axis))] + \
            [helper.make_node("Slice", [src, ks, ke, ka], [dst])]

    def axes_node(self, op, data, axes, since, **kw):
        """op(data) over `axes`: an input from opset `since` on, an attribute before."""
        if self.opset >= since:
            return self.node(op, [data, self.const(axes)], **kw)
        return self.node(op, [data], axes=axes, **kw)

    # -- shape-tensor helpers (int64 values with known contents)
    def shape_of(self, v, start=None, end=None):
        attrs = {}
        dims = list(v.shape)
        if start is not None and self.opset < 15:
            raise Reject()  # Shape's start/end are opset 15
        if start is not None:
            attrs["start"] = start
            if end is not None:
                attrs["end"] = end
            lo = start + v.rank if start < 0 else start
            hi = v.rank if end is None else (end + v.rank if end < 0 else end)
            dims = dims[max(0, min(lo, v.rank)):max(0, min(hi, v.rank))]
        if not dims:
            raise Reject()
        return self.node("Shape", [v], kinds=["i"], shapes=[[const_dim(len(dims))]], contents=[dims], **attrs)

    def dim_piece(self, v, i):
        """A 1-D int64 tensor [v.shape[i]] computed from v's shape, one of several ways."""
        how = self.ri(0, 2)
        if how == 1 and self.opset < 15:
            how = 0
        if how == 0:
            s = self.shape_of(v)
            idx = self.const([i if self.chance(0.5) else i - v.rank])
            return self.node("Gather", [s, idx], kinds=["i"], shapes=[[const_dim(1)]], contents=[[v.shape[i]]])
        if how == 1:
            return self.shape_of(v, i, i + 1 if i + 1 < v.rank or self.chance(0.5) else None)
        s = self.shape_of(v)
        idx = self.const(i)
        g = self.node("Gather", [s, idx], kinds=["i"], shapes=[[]], contents=[[v.shape[i]]])
        return self.axes_node("Unsqueeze", g, [0], 13, kinds=["i"], shapes=[[const_dim(1)]], contents=[[v.shape[i]]])

    def product_piece(self, v, lo, hi):
        """[prod(v.shape[lo:hi])] as a 1-D int64 tensor."""
        prod = tuple(int(np.prod([d[b] for d in v.shape[lo:hi]])) for b in range(NB))
        if hi - lo == 1:
            return self.dim_piece(v, lo)
        if self.chance(0.5):
            s = self.shape_of(v)
            sl = self.node("Slice", [s, self.const([lo]), self.const([hi])], kinds=["i"],
                           shapes=[[const_dim(hi - lo)]], contents=[v.shape[lo:hi]])
            return self.node("ReduceProd", [sl], kinds=["i"], shapes=[[const_dim(1)]], contents=[[prod]], keepdims=1)
        acc = self.dim_piece(v, lo)
        for i in range(lo + 1, hi):
            nxt = self.dim_piece(v, i)
            content = [tuple(a * b for a, b in zip(acc.content[0], nxt.content[0]))]
            acc = self.node("Mul", [acc, nxt], kinds=["i"], shapes=[[const_dim(1)]], contents=[content])
        return acc

    def concat_pieces(self, pieces):
        if len(pieces) == 1:
            return pieces[0]
        content = [c for p in pieces for c in p.content]
        return self.node("Concat", pieces, kinds=["i"], shapes=[[const_dim(len(content))]], contents=[content], axis=0)

    # ---------------------------------------------------------------------------------------------
    # Operations. Each adds nodes or raises Reject.

    def op_unary(self):
        v = self.pick("f")
        op = self.choice(["Relu", "Neg", "Sigmoid", "Abs", "Softmax", "CumSum"])
        if op == "Softmax":
            if v.rank == 0:
                raise Reject()
            return self.node(op, [v], kinds=["f"], shapes=[v.shape], axis=self.ri(-v.rank, v.rank - 1))
        if op == "CumSum":
            if v.rank == 0:
                raise Reject()
            return self.node(op, [v, self.const(self.ri(-v.rank, v.rank - 1))], kinds=["f"], shapes=[v.shape])
        return self.node(op, [v], kinds=["f"], shapes=[v.shape])

    def related_input(self, v, extra=0):
        """A new input broadcastable against v: each trailing dim the same size, 1, or another param."""
        labels = []
        for d in v.shape[max(0, v.rank - self.ri(0, v.rank)):]:
            r = self.rng.random()
            if r < 0.6:
                labels.append(self.label(d))
            elif r < 0.85:
                labels.append(1)
            else:
                labels.append(self.choice(list(PARAMS)))
        labels = self.random_labels(extra) + labels
        return self.new_input(labels)

    def op_binary(self):
        a = self.pick("f")
        others = [u for u in self.vals if u.kind == "f" and u is not a and not getattr(u, "opaque", False)]
        self.rng.shuffle(others)
        b = None
        if self.chance(0.5):
            for u in others:
                try:
                    bcast(a.shape, u.shape)
                    b = u
                    break
                except Reject:
                    pass
        if b is None:
            b = self.related_input(a, extra=self.ri(0, 1) if self.chance(0.2) else 0)
        ins = [a, b] if self.chance(0.5) else [b, a]
        op = self.choice(["Add", "Mul", "Sub", "Max", "Min"])
        if op in ("Max", "Min") and self.chance(0.4):
            c = self.related_input(a)
            ins.append(c)
        return self.node(op, ins, kinds=["f"], shapes=[bcast(*[x.shape for x in ins])])

    def op_where(self):
        a = self.pick("f")
        b = self.related_input(a)
        cond = self.node(self.choice(["Greater", "Less", "Equal"]), [a, b], kinds=["b"], shapes=[bcast(a.shape, b.shape)])
        y = self.related_input(a) if self.chance(0.5) else a
        return self.node("Where", [cond, a, y], kinds=["f"], shapes=[bcast(cond.shape, a.shape, y.shape)])

    def op_transpose(self):
        v = self.pick("f", lambda v: v.rank >= 2)
        perm = [int(x) for x in self.rng.permutation(v.rank)]
        return self.node("Transpose", [v], kinds=["f"], shapes=[[v.shape[p] for p in perm]], perm=perm)

    def op_reshape(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        # Contiguous groups of input dims; each becomes one output dim (a product).
        cuts = sorted(set(self.ri(1, v.rank - 1) for _ in range(self.ri(0, v.rank))) if v.rank > 1 else [])
        bounds = [0] + cuts + [v.rank]
        groups = list(zip(bounds[:-1], bounds[1:]))
        pieces, shape = [], []
        copies = False  # a 0 in the target (copy the input dim), which allowzero=1 would read as 0
        minus_one = self.ri(0, len(groups) - 1) if self.chance(0.4) else -1
        for gi, (lo, hi) in enumerate(groups):
            prod = tuple(int(np.prod([d[b] for d in v.shape[lo:hi]])) for b in range(NB))
            if self.chance(0.15):
                pieces.append(self.piece(1))
                shape.append(const_dim(1))
            if gi == minus_one:
                pieces.append(self.piece(-1, 0.1))
            elif hi - lo == 1 and lo == len(shape) and self.chance(0.3):
                pieces.append(self.piece(0, 0.1))  # copy the input dim at the same position
                copies = True
            elif len(set(prod)) == 1 and self.chance(0.5):
                pieces.append(self.piece(prod[0]))
            else:
                pieces.append(self.product_piece(v, lo, hi))
            shape.append(prod)
        target = self.concat_pieces(pieces)
        if self.opset >= 14 and not copies and self.chance(0.3):
            return self.node("Reshape", [v, target], kinds=["f"], shapes=[shape], allowzero=1)
        return self.node("Reshape", [v, target], kinds=["f"], shapes=[shape])

    def op_expand(self):
        v = self.pick("f")
        if self.chance(0.5):
            u = self.pick("f", lambda u: u is not v)
            shape = bcast(v.shape, u.shape)
            target = self.shape_of(u)
        else:
            # A target built from v's own dims with some 1s turned into other sizes, plus new leading dims.
            pieces, tshape = [], []
            for _ in range(self.ri(0, 1)):
                c = self.ri(1, 3)
                pieces.append(self.piece(c))
                tshape.append(const_dim(c))
            for i, d in enumerate(v.shape):
                if d == const_dim(1) and self.chance(0.6):
                    c = self.ri(2, 4)
                    pieces.append(self.piece(c))
                    tshape.append(const_dim(c))
                elif self.chance(0.3):
                    pieces.append(self.piece(1))
                    tshape.append(const_dim(1))
                else:
                    pieces.append(self.dim_piece(v, i))
                    tshape.append(d)
            if not pieces:
                raise Reject()
            target = self.concat_pieces(pieces)
            shape = bcast(v.shape, tshape)
        return self.node("Expand", [v, target], kinds=["f"], shapes=[shape])

    def op_constant_of_shape(self):
        s = self.pick("i", lambda s: s.rank == 1 and s.content is not None and all(min(c) > 0 for c in s.content))
        shape = list(s.content)
        return self.node("ConstantOfShape", [s], kinds=["f"], shapes=[shape],
                         value=helper.make_tensor("value", TP.FLOAT, [1], [0.5]))

    def op_range(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        i = self.ri(0, v.rank - 1)
        s = self.shape_of(v)
        n = self.node("Gather", [s, self.const(i)], kinds=["i"], shapes=[[]], contents=[[v.shape[i]]])
        start, delta = self.ri(0, 2), self.ri(1, 3)
        length = tuple(max(0, -(-(d - start) // delta)) for d in v.shape[i])
        r = self.node("Range", [self.const(start), n, self.const(delta)], kinds=["i"], shapes=[[length]])
        return self.node("Cast", [r], kinds=["f"], shapes=[[length]], to=TP.FLOAT)

    def op_slice(self):
        v = self.pick("fi", lambda v: v.rank >= 1 and (v.kind == "f" or v.rank == 1))
        axes = sorted(set(self.ri(0, v.rank - 1) for _ in range(self.ri(1, v.rank))))
        starts, ends, steps, shape = [], [], [], list(v.shape)
        big = 2**62
        picked = None  # per binding, the indices kept along axes[0] (for a 1-D int64 tensor's contents)
        for ax in axes:
            step = self.choice([1, 1, 1, 2, -1, -2])
            s = self.choice([0, 1, 2, -1, -2, -3, big, -big])
            e = self.choice([1, 2, 3, -1, -2, big, -big])
            kept = []
            for d in v.shape[ax]:
                if step > 0:
                    ss = min(max(s + d if s < 0 else s, 0), d)
                    ee = min(max(e + d if e < 0 else e, 0), d)
                else:
                    ss = min(max(s + d if s < 0 else s, 0), d - 1)
                    ee = min(max(e + d if e < 0 else e, -1), d - 1)
                kept.append(list(range(ss, ee, step)))
            if picked is None:
                picked = kept
            starts.append(s)
            ends.append(e)
            steps.append(step)
            shape[ax] = tuple(len(k) for k in kept)
        ins = [v, self.const(starts), self.const(ends),
               self.const(axes if self.chance(0.7) else [a - v.rank for a in axes])]
        if steps != [1] * len(steps) or self.chance(0.5):
            ins.append(self.const(steps))
        content = None
        if v.kind == "i" and v.content is not None and len(set(shape[0])) == 1:
            content = [tuple(v.content[picked[b][k]][b] for b in range(NB)) for k in range(shape[0][0])]
        return self.node("Slice", ins, kinds=[v.kind], shapes=[shape], contents=[content])

    def op_concat(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        same = [u for u in self.vals if u.kind == "f" and u.rank == v.rank and not getattr(u, "opaque", False) and
                all(u.shape[k] == v.shape[k] for k in range(v.rank) if k != axis)]
        parts = [v]
        for _ in range(self.ri(1, 2)):
            if self.chance(0.5) and same:
                parts.append(self.choice(same))
            else:
                labels = [self.label(d) for d in v.shape]
                labels[axis] = self.choice([self.ri(1, 4), self.choice(list(PARAMS))])
                parts.append(self.new_input(labels))
        shape = list(v.shape)
        shape[axis] = tuple(sum(p.shape[axis][b] for p in parts) for b in range(NB))
        return self.node("Concat", parts, kinds=["f"], shapes=[shape], axis=axis if self.chance(0.5) else axis - v.rank)

    def op_shape_concat(self):
        """Concatenates pieces of several values' shapes (a common exporter pattern)."""
        pieces = []
        for _ in range(self.ri(2, 3)):
            u = self.pick("f", lambda u: u.rank >= 1)
            pieces.append(self.dim_piece(u, self.ri(0, u.rank - 1)))
        return self.concat_pieces(pieces)

    def op_reduce(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        op = self.choice(["ReduceSum", "ReduceMean", "ReduceMax"])
        keep = self.ri(0, 1)
        if self.chance(0.15):
            shape = [const_dim(1)] * v.rank if keep else []
            return self.node(op, [v], kinds=["f"], shapes=[shape], keepdims=keep)
        axes = sorted(set(self.ri(0, v.rank - 1) for _ in range(self.ri(1, v.rank))))
        shape = [const_dim(1) if k in axes else d for k, d in enumerate(v.shape) if keep or k not in axes]
        return self.axes_node(op, v, [a if self.chance(0.6) else a - v.rank for a in axes],
                              13 if op == "ReduceSum" else 18, kinds=["f"], shapes=[shape], keepdims=keep)

    def op_matmul(self):
        a = self.pick("f", lambda v: v.rank >= 1)
        k = a.shape[-1]
        if self.chance(0.15):  # a vector: contracted, no trailing dim
            b = self.new_input([self.label(k)])
            return self.node("MatMul", [a, b], kinds=["f"], shapes=[a.shape[:-1]])
        if a.rank >= 3 and self.chance(0.4):
            labels = [self.label(d) if self.chance(0.7) else 1 for d in a.shape[:-2]] + [self.label(k), self.ri(1, 5)]
        else:
            labels = [self.label(k), self.choice([self.ri(1, 5), self.choice(list(PARAMS))])]
        b = self.new_input(labels)
        batch = bcast(a.shape[:-2], b.shape[:-2])
        shape = batch + ([a.shape[-2]] if a.rank >= 2 else []) + [b.shape[-1]]
        return self.node("MatMul", [a, b], kinds=["f"], shapes=[shape])

    def op_unsqueeze(self):
        v = self.pick("fi", lambda v: v.kind == "f" or v.rank <= 1)
        n = self.ri(1, 2)
        r = v.rank + n
        axes = sorted(int(a) for a in self.rng.choice(r, size=n, replace=False))
        shape, it = [], iter(v.shape)
        for k in range(r):
            shape.append(const_dim(1) if k in axes else next(it))
        content = v.content if v.kind == "i" and v.rank == 0 and n == 1 else None
        return self.axes_node("Unsqueeze", v, [a if self.chance(0.6) else a - r for a in axes], 13,
                              kinds=[v.kind], shapes=[shape], contents=[content])

    def op_squeeze(self):
        v = self.pick("f", lambda v: any(d == const_dim(1) for d in v.shape))
        ones = [k for k, d in enumerate(v.shape) if d == const_dim(1)]
        axes = sorted(set(self.choice(ones) for _ in range(self.ri(1, len(ones)))))
        shape = [d for k, d in enumerate(v.shape) if k not in axes]
        return self.axes_node("Squeeze", v, axes, 13, kinds=["f"], shapes=[shape])

    def op_flatten(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank)
        lo = tuple(numel(v.shape[:axis], b) for b in range(NB))
        hi = tuple(numel(v.shape[axis:], b) for b in range(NB))
        return self.node("Flatten", [v], kinds=["f"], shapes=[[lo, hi]],
                         axis=axis if axis == v.rank or self.chance(0.7) else axis - v.rank)

    def op_pad(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        pads = [self.ri(-1, 3) for _ in range(2 * v.rank)]
        shape = [tuple(d[b] + pads[k] + pads[k + v.rank] for b in range(NB)) for k, d in enumerate(v.shape)]
        if self.chance(0.3):  # some pads as run-time data
            return self.node("Pad", [v, self.concat_pieces([self.piece(p, 0.4) for p in pads])], kinds=["f"],
                             shapes=[shape], mode="constant")
        return self.node("Pad", [v, self.const(pads)], kinds=["f"], shapes=[shape], mode="constant")

    def op_tile(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        reps = [self.ri(1, 3) for _ in range(v.rank)]
        shape = [tuple(x * r for x in d) for d, r in zip(v.shape, reps)]
        if self.chance(0.3):  # some repeats as run-time data
            reps_v = self.concat_pieces([self.piece(r, 0.5) for r in reps])
        else:
            reps_v = self.const(reps)
        return self.node("Tile", [v, reps_v], kinds=["f"], shapes=[shape])

    def op_pool(self):
        v = self.pick("f", lambda v: 3 <= v.rank <= 4)
        sp = v.rank - 2
        k = [self.ri(1, 3) for _ in range(sp)]
        st = [self.ri(1, 3) for _ in range(sp)]
        pads = [self.ri(0, k[j] - 1) for j in range(sp)] + [self.ri(0, k[j] - 1) for j in range(sp)]
        shape = list(v.shape[:2])
        for j in range(sp):
            out = []
            for d in v.shape[2 + j]:
                span = d + pads[j] + pads[j + sp] - k[j]
                if span < 0:
                    raise Reject()
                out.append(span // st[j] + 1)
            shape.append(tuple(out))
        op = self.choice(["MaxPool", "AveragePool"])
        return self.node(op, [v], kinds=["f"], shapes=[shape], kernel_shape=k, strides=st, pads=pads)

    def op_gather(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        lim = min(v.shape[axis])
        ishape = self.choice([[], [self.ri(1, 3)], [self.ri(1, 2), self.ri(1, 3)]])
        idx = [self.ri(-lim, lim - 1) for _ in range(int(np.prod(ishape)) if ishape else 1)]
        ind = self.const(idx, ishape)
        shape = v.shape[:axis] + ind.shape + v.shape[axis + 1:]
        return self.node("Gather", [v, ind], kinds=["f"], shapes=[shape], axis=axis)

    def op_topk(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        if self.chance(0.5):
            k = self.dim_piece(v, axis)
            ksz = v.shape[axis]
        else:
            c = self.ri(1, min(v.shape[axis]))
            k = self.const([c])
            ksz = const_dim(c)
        shape = list(v.shape)
        shape[axis] = ksz
        return self.node("TopK", [v, k], 2, kinds=["f", "i"], shapes=[shape, shape], axis=axis)[0]

    def op_split(self):
        v = self.pick("f", lambda v: v.rank >= 1 and any(min(d) >= 2 for d in v.shape))
        axis = self.choice([k for k, d in enumerate(v.shape) if min(d) >= 2])
        d = v.shape[axis]
        first = tuple(-(-x // 2) for x in d)
        second = tuple(x - f for x, f in zip(d, first))
        s1, s2 = list(v.shape), list(v.shape)
        s1[axis], s2[axis] = first, second
        kw = dict(kinds=["f", "f"], shapes=[s1, s2], axis=axis)
        if self.opset >= 18:
            return self.node("Split", [v], 2, num_outputs=2, **kw)
        if first == second:  # equal halves at every binding: no sizes needed
            return self.node("Split", [v], 2, **kw)
        if len(set(d)) != 1:
            raise Reject()
        if self.opset >= 13:
            return self.node("Split", [v, self.const([first[0], second[0]])], 2, **kw)
        return self.node("Split", [v], 2, split=[first[0], second[0]], **kw)

    def op_shape_arith(self):
        s = self.pick("i", lambda s: s.rank <= 1 and s.content is not None)
        op = self.choice(["Add", "Mul", "Sub", "Div", "Mod", "Max", "Min"])
        if op in ("Max", "Min") and self.opset < 12:
            raise Reject()  # Max/Min take integers from opset 12
        if op in ("Max", "Min") and self.chance(0.5):
            others = [u for u in self.vals if u.kind == "i" and u is not s and u.content is not None
                      and not getattr(u, "opaque", False) and u.rank <= 1
                      and (u.rank == 0 or s.rank == 0 or len(u.content) == len(s.content) or len(u.content) == 1)]
            if not others:
                raise Reject()
            o = self.choice(others)
        else:
            # Div and Mod by a negative constant too (exporters negate sizes, as in -(-S // k)).
            c = self.ri(1, 4) * (-1 if self.chance(0.25) else 1) if op in ("Div", "Mod") else self.ri(-2, 3)
            o = self.const(c) if self.chance(0.5) else self.const([c])
        # Mod with fmod = 1 takes the dividend's sign (C's %), fmod = 0 the divisor's (Python's %).
        attrs = {"fmod": 1} if op == "Mod" and self.chance(0.5) else {}
        shape = bcast(s.shape, o.shape)
        n = shape[0][0] if shape else 1
        a = s.content if len(s.content) == n else s.content * n
        b = o.content if len(o.content) == n else o.content * n
        fn = {"Add": lambda x, y: x + y, "Mul": lambda x, y: x * y, "Sub": lambda x, y: x - y,
              "Div": lambda x, y: (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1),
              "Mod": (lambda x, y: (abs(x) % abs(y)) * (-1 if x < 0 else 1)) if attrs else (lambda x, y: x % y),
              "Max": max, "Min": min}[op]
        content = [tuple(fn(x[b], y[b]) for b in range(NB)) for x, y in zip(a, b)]
        ins = [s, o] if self.chance(0.7) or op in ("Sub", "Div", "Mod") else [o, s]
        return self.node(op, ins, kinds=["i"], shapes=[shape], contents=[content], **attrs)

    def op_where_shape(self):
        """Where(Equal(s, c), x, s): the pattern exporters use to turn 0s of a target into sizes."""
        s = self.pick("i", lambda s: s.rank == 1 and s.content is not None)
        c = self.choice([0, 1, -1, self.ri(2, 5)])
        eq = self.const([c]) if self.chance(0.5) else self.const(c)
        cond = self.node("Equal", [s, eq], kinds=["b"], shapes=[s.shape])
        alt = self.const([self.ri(1, 4)])
        content = [tuple(alt.content[0][b] if x[b] == c else x[b] for b in range(NB)) for x in s.content]
        return self.node("Where", [cond, alt, s], kinds=["i"], shapes=[s.shape], contents=[content])

    def op_size(self):
        v = self.pick("f")
        n = tuple(numel(v.shape, b) for b in range(NB))
        sz = self.node("Size", [v], kinds=["i"], shapes=[[]], contents=[[n]])
        return self.axes_node("Unsqueeze", sz, [0], 13, kinds=["i"], shapes=[[const_dim(1)]], contents=[[n]])

    def spatial_out(self, d, k, s, dil, pb, pe, auto):
        """Output size of a convolution/pool window along one axis, or Reject."""
        span = (k - 1) * dil + 1
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            out = -(-d // s)
        elif auto == "VALID":
            out = (d - span) // s + 1 if d >= span else 0
        else:
            out = (d + pb + pe - span) // s + 1 if d + pb + pe >= span else 0
        if out < 1:
            raise Reject()
        return out

    def op_conv(self):
        v = self.pick("f", lambda v: 3 <= v.rank <= 4)
        sp = v.rank - 2
        cin = v.shape[1]
        group = self.choice([1, 1, 2]) if all(c % 2 == 0 for c in cin) and len(set(cin)) == 1 else 1
        k = [self.ri(1, 3) for _ in range(sp)]
        st = [self.ri(1, 3) for _ in range(sp)]
        dil = [self.ri(1, 2) for _ in range(sp)]
        auto = self.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
        if auto.startswith("SAME"):
            dil = [1] * sp  # ONNX Runtime does not run SAME padding with dilations
        pads = [self.ri(0, (k[j % sp] - 1) * dil[j % sp]) for j in range(2 * sp)]
        m = self.ri(1, 4) * group
        cin_label = self.label(cin) if group == 1 else cin[0] // group
        w = self.new_input([m, cin_label] + k)
        ins = [v, w]
        if self.chance(0.3):
            ins.append(self.new_input([m]))
        attrs = {"kernel_shape": k, "strides": st, "dilations": dil, "group": group}
        if auto == "NOTSET":
            attrs["pads"] = pads
        else:
            attrs["auto_pad"] = auto
        shape = [v.shape[0], const_dim(m)]
        for j in range(sp):
            shape.append(tuple(self.spatial_out(d, k[j], st[j], dil[j], pads[j], pads[j + sp], auto)
                               for d in v.shape[2 + j]))
        return self.node("Conv", ins, kinds=["f"], shapes=[shape], **attrs)

    def op_conv_transpose(self):
        v = self.pick("f", lambda v: 3 <= v.rank <= 4)
        sp = v.rank - 2
        k = [self.ri(1, 3) for _ in range(sp)]
        st = [self.ri(1, 3) for _ in range(sp)]
        dil = [self.ri(1, 2) for _ in range(sp)]
        outpad = [self.ri(0, max(0, min(st[j], dil[j]) - 1)) for j in range(sp)]
        pads = [self.ri(0, k[j % sp] - 1) for j in range(2 * sp)]
        m = self.ri(1, 3)
        w = self.new_input([self.label(v.shape[1]), m] + k)
        attrs = {"kernel_shape": k, "strides": st, "dilations": dil}
        if any(outpad):
            attrs["output_padding"] = outpad
        auto = self.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER"])
        if auto != "NOTSET" and any((k[j] - 1) * dil[j] + 1 < st[j] for j in range(sp)):
            auto = "NOTSET"  # negative total padding: ONNX Runtime clamps it to 0, not what the spec says
        shape = [v.shape[0], const_dim(m)]
        for j in range(sp):
            if auto == "NOTSET":
                out = tuple(st[j] * (d - 1) + outpad[j] + (k[j] - 1) * dil[j] + 1 - pads[j] - pads[j + sp]
                            for d in v.shape[2 + j])
            else:
                out = tuple(d * st[j] for d in v.shape[2 + j])
            shape.append(out)
        if auto == "NOTSET":
            attrs["pads"] = pads
        else:
            attrs["auto_pad"] = auto
            # onnx's inference (inside ONNX Runtime's loader) adds output_padding to d * stride
            # here, the spec does not: not a case the reference agrees on.
            attrs.pop("output_padding", None)
        return self.node("ConvTranspose", [v, w], kinds=["f"], shapes=[shape], **attrs)

    def op_resize(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        empty = ""
        if self.chance(0.5):
            scales = [self.choice([1.0, 1.0, 2.0, 0.5, 1.5, 0.25, 3.0]) for _ in range(v.rank)]
            shape = [tuple(int(x * sc) for x in d) for d, sc in zip(v.shape, scales)]
            sc = self.fresh("k")
            self.inits[sc] = np.array(scales, dtype=np.float32)
            ins = [v, self.empty_f() if self.opset < 13 else empty, sc]
        else:
            pieces, shape = [], []
            for i, d in enumerate(v.shape):
                r = self.rng.random()
                if r < 0.4:
                    pieces.append(self.dim_piece(v, i))
                    shape.append(d)
                elif r < 0.7:
                    c = self.ri(1, 6)
                    pieces.append(self.piece(c))
                    shape.append(const_dim(c))
                else:
                    p = self.dim_piece(v, i)
                    f = self.ri(2, 3)
                    pieces.append(self.node("Mul", [p, self.const([f])], kinds=["i"], shapes=[[const_dim(1)]],
                                            contents=[[tuple(x * f for x in d)]]))
                    shape.append(tuple(x * f for x in d))
            ins = [v] + ([self.empty_f(), self.empty_f()] if self.opset < 13 else [empty, empty]) + \
                [self.concat_pieces(pieces)]
        return self.node("Resize", ins, kinds=["f"], shapes=[shape], mode="nearest")

    def op_depth_space(self):
        v = self.pick("f", lambda v: v.rank == 4 and len(set(v.shape[1])) == 1)
        c = v.shape[1][0]
        if self.chance(0.5):
            bs = self.choice([b for b in (1, 2, 3) if c % (b * b) == 0])
            shape = [v.shape[0], const_dim(c // (bs * bs)), tuple(x * bs for x in v.shape[2]),
                     tuple(x * bs for x in v.shape[3])]
            return self.node("DepthToSpace", [v], kinds=["f"], shapes=[shape], blocksize=bs,
                             mode=self.choice(["DCR", "CRD"]))
        bs = self.choice([b for b in (1, 2, 3) if all(x % b == 0 for x in v.shape[2] + v.shape[3])])
        shape = [v.shape[0], const_dim(c * bs * bs), tuple(x // bs for x in v.shape[2]),
                 tuple(x // bs for x in v.shape[3])]
        return self.node("SpaceToDepth", [v], kinds=["f"], shapes=[shape], blocksize=bs)

    def op_nonzero(self):
        """NonZero / Compress: sizes that depend on the data; their symbols must stay consistent."""
        v = self.pick("f", lambda v: v.rank >= 1)
        if self.chance(0.5):
            # The count is unknown to the generator: the values stay checkable, not reusable as operands.
            nz = self.node("NonZero", [v], kinds=["i"], shapes=[[const_dim(v.rank), const_dim(1)]])
            nz.opaque = True
            s = self.node("Shape", [nz], kinds=["i"], shapes=[[const_dim(2)]])
            s.opaque = True
            cnt = self.node("Gather", [s, self.const([1])], kinds=["i"], shapes=[[const_dim(1)]])
            cnt.opaque = True
            z = self.node("ConstantOfShape", [cnt], kinds=["f"], shapes=[[const_dim(1)]])
            z.opaque = True
            t = self.node("Transpose", [nz], kinds=["i"], shapes=[[const_dim(1), const_dim(v.rank)]], perm=[1, 0])
            t.opaque = True
            return t
        axis = self.ri(0, v.rank - 1)
        cond = self.node("Greater", [self.axes_node("ReduceMax", v, [a for a in range(v.rank) if a != axis], 18,
                                                    kinds=["f"], shapes=[[v.shape[axis]]], keepdims=0)
                                     if v.rank > 1 else v, self.const_f(0.0)],
                         kinds=["b"], shapes=[[v.shape[axis]]])
        c = self.node("Compress", [v, cond], kinds=["f"], shapes=[list(v.shape)], axis=axis)
        c.opaque = True
        return c

    def op_if(self):
        """If on a graph-input condition (fixed at run time, unknown to inference)."""
        v = self.pick("f", lambda v: v.rank >= 1)
        cname = self.fresh("cond")
        value = self.ri(0, 1)
        self.inputs.append((cname, TP.BOOL, []))
        self.fills[cname] = {"value": [value]}
        a, b = self.fresh("t"), self.fresh("e")
        then_nodes = [helper.make_node("Relu", [v.name], [a])]
        kind = self.ri(0, 3)
        axis = self.ri(0, v.rank - 1)
        else_shape = list(v.shape)
        if kind == 0:
            else_nodes = [helper.make_node("Neg", [v.name], [b])]
        elif kind == 1:
            lo = self.ri(1, 2)
            if any(x - lo < 1 for x in v.shape[axis]):
                raise Reject()
            else_nodes = self.slice_from_nodes(v.name, b, lo, axis)
            else_shape[axis] = tuple(x - lo for x in v.shape[axis])
        elif kind == 2:
            pads = [0] * (2 * v.rank)
            pads[axis + v.rank] = self.ri(1, 2)
            kp = self.fresh("ke")
            else_nodes = [const_node(kp, pads), helper.make_node("Pad", [v.name, kp], [b])]
            else_shape[axis] = tuple(x + pads[axis + v.rank] for x in v.shape[axis])
        else:
            if self.opset < 11:
                raise Reject()  # If-1's branches have one shape: ONNX Runtime refuses differing ranks it sees
            ku = self.fresh("ke")
            if self.opset >= 13:
                else_nodes = [const_node(ku, [0]), helper.make_node("Unsqueeze", [v.name, ku], [b])]
            else:
                else_nodes = [helper.make_node("Unsqueeze", [v.name], [b], axes=[0])]
            else_shape = [const_dim(1)] + list(v.shape)
        then_g = helper.make_graph(then_nodes, self.fresh("then"), [], [helper.make_empty_tensor_value_info(a)])
        else_g = helper.make_graph(else_nodes, self.fresh("else"), [], [helper.make_empty_tensor_value_info(b)])
        shape = list(v.shape) if value else else_shape
        return self.node("If", [cname], kinds=["f"], shapes=[shape], then_branch=then_g, else_branch=else_g)

    def op_einsum(self):
        if self.opset < 12:
            raise Reject()
        v = self.pick("f", lambda v: 2 <= v.rank <= 3)
        letters = "abc"[:v.rank]
        r = self.ri(0, 3)
        if r == 0:  # a transpose
            perm = [int(x) for x in self.rng.permutation(v.rank)]
            eq = f"{letters}->{''.join(letters[p] for p in perm)}"
            return self.node("Einsum", [v], kinds=["f"], shapes=[[v.shape[p] for p in perm]], equation=eq)
        if r == 1:  # a sum over some letters
            keep = [i for i in range(v.rank) if self.chance(0.5)]
            eq = f"{letters}->{''.join(letters[i] for i in keep)}"
            return self.node("Einsum", [v], kinds=["f"], shapes=[[v.shape[i] for i in keep]], equation=eq)
        # a contraction with a new operand over the last letter
        m = self.choice([self.ri(1, 4), self.choice(list(PARAMS))])
        w = self.new_input([self.label(v.shape[-1]), m])
        out = letters[:-1] + "z"
        eq = f"{letters},{letters[-1]}z->{out}" if r == 2 else f"...{letters[-1]},{letters[-1]}z->...z"
        return self.node("Einsum", [v, w], kinds=["f"], shapes=[v.shape[:-1] + [w.shape[1]]], equation=eq)

    def op_gemm(self):
        v = self.pick("f", lambda v: v.rank == 2)
        ta = self.ri(0, 1)
        mdim, kdim = (v.shape[1], v.shape[0]) if ta else (v.shape[0], v.shape[1])
        n = self.choice([self.ri(1, 4), self.choice(list(PARAMS))])
        tb = self.ri(0, 1)
        w = self.new_input([n, self.label(kdim)] if tb else [self.label(kdim), n])
        ins = [v, w]
        ndim = self.sizes_of(n)
        if self.chance(0.5):
            ins.append(self.new_input(self.choice([[n], [1, n], [self.label(mdim), 1], []])))
            if bcast([mdim, ndim], ins[2].shape) != [mdim, ndim]:  # C broadcasts to [M, N] one way only
                raise Reject()
        return self.node("Gemm", ins, kinds=["f"], shapes=[[mdim, ndim]], transA=ta, transB=tb)

    def op_onehot(self):
        v = self.pick("i", lambda v: v.rank == 1 and v.content is not None)
        depth = self.ri(2, 6)
        axis = self.ri(-v.rank - 1, v.rank)
        shape = list(v.shape)
        pos = axis if axis >= 0 else axis + v.rank + 1
        shape.insert(pos, const_dim(depth))
        vals = self.fresh("k")
        self.inits[vals] = np.array([0.0, 1.0], dtype=np.float32)
        return self.node("OneHot", [v, self.const(depth), vals], kinds=["f"], shapes=[shape], axis=axis)

    def op_loop(self):
        """Loop with a trip count from a shape or a constant, a carried value that keeps its shape,
        grows or shrinks each iteration, or takes the broadcast shape with an outer value in the
        first one, and sometimes a scan output."""
        v = self.pick("f", lambda v: v.rank >= 1)
        if self.chance(0.5):
            u = self.pick("f", lambda u: u.rank >= 1 and any(max(d) <= 12 for d in u.shape))
            i = self.choice([k for k, d in enumerate(u.shape) if max(d) <= 12])
            trip = self.node("Gather", [self.shape_of(u), self.const(i)], kinds=["i"], shapes=[[]], contents=[[u.shape[i]]])
            m = u.shape[i]
        else:
            c = self.ri(1, 3)
            trip, m = self.const(c), const_dim(c)
        axis = self.ri(0, v.rank - 1)
        it, cin, cout, xin, xout = (self.fresh(p) for p in ("it", "cin", "cout", "x", "xo"))
        body_in = [helper.make_tensor_value_info(it, TP.INT64, []), helper.make_tensor_value_info(cin, TP.BOOL, []),
                   helper.make_tensor_value_info(xin, TP.FLOAT, None)]
        nodes = [helper.make_node("Identity", [cin], [cout])]
        kind = self.ri(0, 2)
        final = list(v.shape)
        partner = None
        if kind == 0 and min(m) >= 1 and self.chance(0.5):
            # x = x + w, w an outer value x broadcasts with: bcast(v, w) from the first iteration on.
            others = [u for u in self.vals if u.kind == "f" and u is not v and not getattr(u, "opaque", False)]
            self.rng.shuffle(others)
            for u in others:
                try:
                    final = bcast(v.shape, u.shape)
                    partner = u
                    break
                except Reject:
                    pass
        if partner is not None:
            nodes.append(helper.make_node("Add", [xin, partner.name], [xout]))
        elif kind == 0:
            nodes.append(helper.make_node("Relu", [xin], [xout]))
        elif kind == 1:
            nodes.append(helper.make_node("Concat", [xin, v.name], [xout], axis=axis))
            final[axis] = tuple(d * (k + 1) for d, k in zip(v.shape[axis], m))
        else:
            nodes += self.slice_from_nodes(xin, xout, 1, axis)
            final[axis] = tuple(d - k for d, k in zip(v.shape[axis], m))
        outs = [helper.make_empty_tensor_value_info(cout), helper.make_empty_tensor_value_info(xout)]
        shapes, kinds = [final], ["f"]
        if self.chance(0.5):
            so = self.fresh("so")
            nodes.append(helper.make_node("Neg", [v.name], [so]))
            outs.append(helper.make_empty_tensor_value_info(so))
            shapes.append([m] + list(v.shape))
            kinds.append("f")
        body = helper.make_graph(nodes, self.fresh("body"), body_in, outs)
        cond = "" if self.chance(0.5) else self.const_b(True)
        return self.node("Loop", [trip, cond, v], len(shapes), kinds=kinds, shapes=shapes, body=body)

    def op_function(self):
        """A call of a model-local function (defined once per program, called from several sites
        with different shapes): inferred per call site, with attribute references bound."""
        v = self.pick("f", lambda v: v.rank >= 1)
        if self.functions and self.chance(0.6):
            fname, variant = self.choice(self.functions)
        else:
            variant = self.choice(["flat2d", "dup", "flatten_attr", "sum_last"] if self.opset >= 15 else
                                  ["dup", "flatten_attr", "sum_last"])
            fname = f"F{len(self.functions)}"
            X, Y = "X", "Y"
            if variant == "flat2d":
                nodes = [helper.make_node("Shape", [X], ["s"], end=1), const_node("m1", [-1]),
                         helper.make_node("Concat", ["s", "m1"], ["t"], axis=0), helper.make_node("Reshape", [X, "t"], [Y])]
                attrs = []
            elif variant == "dup":
                nodes = [helper.make_node("Concat", [X, X], [Y], axis=0)]
                attrs = []
            elif variant == "flatten_attr":
                fl = helper.make_node("Flatten", [X], [Y])
                fl.attribute.append(_attr_ref("axis", "a"))
                nodes = [fl]
                attrs = ["a"]
            else:
                nodes = [const_node("ax", [-1]), helper.make_node("ReduceSum", [X, "ax"], [Y], keepdims=0)] if self.opset >= 13 \
                    else [helper.make_node("ReduceSum", [X], [Y], keepdims=0, axes=[-1])]
                attrs = []
            f = helper.make_function("local", fname, [X], [Y], nodes, [helper.make_opsetid("", self.opset)], attrs)
            self.function_protos.append(f)
            self.functions.append((fname, variant))
        kw = {}
        if variant == "flat2d":
            shape = [v.shape[0], tuple(numel(v.shape[1:], b) for b in range(NB))]
        elif variant == "dup":
            shape = [tuple(2 * x for x in v.shape[0])] + list(v.shape[1:])
        elif variant == "flatten_attr":
            a = self.ri(0, v.rank)
            kw["a"] = a
            shape = [tuple(numel(v.shape[:a], b) for b in range(NB)), tuple(numel(v.shape[a:], b) for b in range(NB))]
        else:
            shape = list(v.shape[:-1])
        return self.node(fname, [v], kinds=["f"], shapes=[shape], domain="local", **kw)

    def op_sequence(self):
        """SplitToSequence, then SequenceLength / SequenceAt / ConcatFromSequence on the sequence
        (sequences themselves are not graph outputs: ONNX Runtime's node binding cannot return them)."""
        v = self.pick("f", lambda v: v.rank >= 1 and max(v.shape[0]) <= 16)
        axis = self.ri(0, v.rank - 1)
        keep = self.ri(0, 1)
        d = v.shape[axis]
        elem = list(v.shape)
        if keep:
            elem[axis] = const_dim(1)
        else:
            del elem[axis]
        seq = self.node("SplitToSequence", [v], kinds=["s"], shapes=[[d]], axis=axis, keepdims=keep)
        seq.opaque = True
        r = self.ri(0, 2)
        if r == 0:
            ln = self.node("SequenceLength", [seq], kinds=["i"], shapes=[[]], contents=[[d]])
            return self.axes_node("Unsqueeze", ln, [0], 13, kinds=["i"], shapes=[[const_dim(1)]], contents=[[d]])
        if r == 1:
            lim = min(d)
            return self.node("SequenceAt", [seq, self.const(self.ri(-lim, lim - 1))], kinds=["f"], shapes=[elem])
        if keep:
            return self.node("ConcatFromSequence", [seq], kinds=["f"], shapes=[list(v.shape)], axis=axis)
        new_axis = self.ri(0, len(elem))
        shape = list(elem)
        shape.insert(new_axis, d)
        return self.node("ConcatFromSequence", [seq], kinds=["f"], shapes=[shape], axis=new_axis, new_axis=1)

    def op_scan(self):
        """Scan (opset 9+) over axis 0 of a value: a running state and a per-step output."""
        v = self.pick("f", lambda v: v.rank >= 1 and max(v.shape[0]) <= 16)
        step = list(v.shape[1:])
        state = self.node("ConstantOfShape", [self.shape_of(v, 1) if v.rank > 1 and self.opset >= 15 else
                                              self.const([1])], kinds=["f"],
                          shapes=[step if v.rank > 1 and self.opset >= 15 else [const_dim(1)]],
                          value=helper.make_tensor("value", TP.FLOAT, [1], [0.0]))
        sin, xin, sout, yout = (self.fresh(p) for p in ("sin", "xt", "so", "yo"))
        body = helper.make_graph(
            [helper.make_node("Add", [sin, xin], [sout]), helper.make_node("Relu", [xin], [yout])], self.fresh("scan"),
            # Ranks declared: ONNX Runtime wants every Scan body output to get a shape.
            [helper.make_tensor_value_info(sin, TP.FLOAT, [None] * state.rank),
             helper.make_tensor_value_info(xin, TP.FLOAT, [None] * len(step))],
            [helper.make_empty_tensor_value_info(sout), helper.make_empty_tensor_value_info(yout)])
        final = bcast(state.shape, step)
        if final != state.shape:
            raise Reject()  # the state would change shape between steps
        return self.node("Scan", [state, v], 2, kinds=["f", "f"], shapes=[final, [v.shape[0]] + step], body=body,
                         num_scan_inputs=1)

    def op_slice_dynamic(self):
        """Slice whose bounds are computed from shapes (x[:, :n] with n = Shape(y)[j], or
        x[k : d - k]): the pattern of exporters cutting a cache or a mask to a sequence length."""
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        d = v.shape[axis]
        r = self.ri(0, 2)
        if r == 0:  # [0 : n) with n a dim of another value (maybe past the end: clamped)
            u = self.pick("f", lambda u: u.rank >= 1)
            j = self.ri(0, u.rank - 1)
            start, end = self.const([0]), self.dim_piece(u, j)
            kept = tuple(min(x, n) for x, n in zip(d, u.shape[j]))
        elif r == 1:  # [k : d - k)
            k = self.ri(0, 2)
            if min(d) <= 2 * k:
                raise Reject()  # d - k < k: a negative end counts from the end
            dim = self.dim_piece(v, axis)
            end = self.node("Sub", [dim, self.const([k])], kinds=["i"], shapes=[[const_dim(1)]],
                            contents=[[tuple(x - k for x in d)]])
            start = self.const([k])
            kept = tuple(x - 2 * k for x in d)
        else:  # [d - n : ) for a constant n <= d: the last n
            n = self.ri(1, 4)
            if min(d) < n:
                raise Reject()  # d - n < 0 would count from the end
            dim = self.dim_piece(v, axis)
            start = self.node("Sub", [dim, self.const([n])], kinds=["i"], shapes=[[const_dim(1)]],
                              contents=[[tuple(x - n for x in d)]])
            end = self.const([2**62])
            kept = const_dim(n)
        shape = list(v.shape)
        shape[axis] = kept
        return self.node("Slice", [v, start, end, self.const([axis])], kinds=["f"], shapes=[shape])

    def op_argmax(self):
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(-v.rank, v.rank - 1)
        keep = self.ri(0, 1)
        a = axis % v.rank
        shape = [const_dim(1) if k == a else x for k, x in enumerate(v.shape) if keep or k != a]
        return self.node(self.choice(["ArgMax", "ArgMin"]), [v], kinds=["i"], shapes=[shape], axis=axis, keepdims=keep)

    def op_global_pool(self):
        v = self.pick("f", lambda v: 3 <= v.rank <= 4)
        shape = list(v.shape[:2]) + [const_dim(1)] * (v.rank - 2)
        return self.node(self.choice(["GlobalAveragePool", "GlobalMaxPool"]), [v], kinds=["f"], shapes=[shape])

    # -- operations added 2026-11-25 (session 11)

    def op_rnn(self):
        """LSTM / GRU / RNN on a rank-3 value (layout 1 from opset 14), hidden sizes as numbers."""
        v = self.pick("f", lambda v: v.rank == 3)
        op = self.choice(["LSTM", "GRU", "RNN"])
        gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
        layout = 0  # ONNX Runtime's CPU kernels reject layout 1 (batch first), so it is not checkable here
        direction = self.choice(["forward", "reverse", "bidirectional"])
        dirs = 2 if direction == "bidirectional" else 1
        hs = self.ri(1, 4)
        seq, batch = (v.shape[0], v.shape[1]) if layout == 0 else (v.shape[1], v.shape[0])
        ins = [v, self.new_input([dirs, gates * hs, self.label(v.shape[2])]), self.new_input([dirs, gates * hs, hs])]
        if self.chance(0.4):
            ins.append(self.new_input([dirs, 2 * gates * hs]))
        n_out = 3 if op == "LSTM" else 2
        if layout == 0:
            y, yh = [seq, const_dim(dirs), batch, const_dim(hs)], [const_dim(dirs), batch, const_dim(hs)]
        else:
            y, yh = [batch, seq, const_dim(dirs), const_dim(hs)], [batch, const_dim(dirs), const_dim(hs)]
        attrs = {"hidden_size": hs, "direction": direction}
        if layout:
            attrs["layout"] = 1
        return self.node(op, ins, n_out, kinds=["f"] * n_out, shapes=[y] + [yh] * (n_out - 1), **attrs)[0]

    def op_norm(self):
        """BatchNormalization (inference), InstanceNormalization, LayerNormalization (opset 17)."""
        v = self.pick("f", lambda v: v.rank >= 2)
        r = self.ri(0, 2)
        if r == 2 and self.opset >= 17:
            axis = self.ri(-v.rank, v.rank - 1)
            a = axis % v.rank
            scale = self.new_input([self.label(d) for d in v.shape[a:]])
            ins = [v, scale] + ([self.new_input([self.label(d) for d in v.shape[a:]])] if self.chance(0.5) else [])
            stat = list(v.shape[:a]) + [const_dim(1)] * (v.rank - a)
            n_out = self.choice([1, 3])
            outs = self.node("LayerNormalization", ins, n_out, kinds=["f"] * n_out,
                             shapes=[v.shape, stat, stat][:n_out], axis=axis)
            return outs[0] if n_out > 1 else outs
        c = self.label(v.shape[1])
        if r == 1 and v.rank >= 3:
            return self.node("InstanceNormalization", [v, self.new_input([c]), self.new_input([c])], kinds=["f"],
                             shapes=[v.shape])
        ins = [v] + [self.new_input([c]) for _ in range(4)]
        return self.node("BatchNormalization", ins, kinds=["f"], shapes=[v.shape])

    def op_pool_ext(self):
        """Pools with ceil_mode, dilations (MaxPool; LpPool from 18), count_include_pad, MaxPool's
        Indices output, and auto_pad."""
        v = self.pick("f", lambda v: 3 <= v.rank <= 4)
        sp = v.rank - 2
        op = self.choice(["MaxPool", "MaxPool", "AveragePool", "LpPool"])
        k = [self.ri(1, 3) for _ in range(sp)]
        st = [self.ri(1, 3) for _ in range(sp)]
        dil_ok = op == "MaxPool" or (op == "LpPool" and self.opset >= 18)
        dil = [self.ri(1, 2) for _ in range(sp)] if dil_ok and self.chance(0.6) else [1] * sp
        ceil = self.ri(0, 1) if op != "LpPool" or self.opset >= 18 else 0
        auto = self.choice(["NOTSET", "NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
        if auto.startswith("SAME") and (any(x > 1 for x in dil) or any(k[j] < st[j] for j in range(sp))):
            # ONNX Runtime sizes SAME padding from the undilated kernel (see docs), and rejects the
            # negative padding a kernel smaller than its stride needs
            auto = "NOTSET"
        if auto != "NOTSET":
            ceil = 0
        pads = [self.ri(0, k[j % sp] - 1) for j in range(2 * sp)]
        shape = list(v.shape[:2])
        for j in range(sp):
            span = (k[j] - 1) * dil[j] + 1
            out = []
            for d in v.shape[2 + j]:
                if auto.startswith("SAME"):
                    o = -(-d // st[j])
                elif auto == "VALID":
                    if d < span:
                        raise Reject()
                    o = (d - span) // st[j] + 1
                else:
                    total = d + pads[j] + pads[j + sp] - span
                    if total < 0:
                        raise Reject()
                    if ceil:
                        o = -(-total // st[j]) + 1
                        if (o - 1) * st[j] >= d + pads[j]:
                            o -= 1  # the last window would start in the end padding
                    else:
                        o = total // st[j] + 1
                out.append(o)
            shape.append(tuple(out))
        attrs = {"kernel_shape": k, "strides": st}
        if auto == "NOTSET":
            attrs["pads"] = pads
        else:
            attrs["auto_pad"] = auto
        if ceil:
            attrs["ceil_mode"] = 1
        if any(x > 1 for x in dil) or (dil_ok and self.chance(0.2)):
            attrs["dilations"] = dil
        if op == "AveragePool" and self.chance(0.5):
            attrs["count_include_pad"] = 1
        if op == "LpPool":
            attrs["p"] = self.ri(1, 3)
        if op == "MaxPool" and self.chance(0.4):
            if self.chance(0.5):
                attrs["storage_order"] = 1
                if any(x > 1 for x in dil):
                    raise Reject()  # ONNX Runtime: no column-major indices with dilations
            return self.node(op, [v], 2, kinds=["f", "i"], shapes=[shape, shape], **attrs)[0]
        return self.node(op, [v], kinds=["f"], shapes=[shape], **attrs)

    def op_take_along(self):
        """GatherElements / ScatterElements with ArgMax indices (take_along_dim / scatter back)."""
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        ishape = [const_dim(1) if k == axis else d for k, d in enumerate(v.shape)]
        idx = self.node(self.choice(["ArgMax", "ArgMin"]), [v], kinds=["i"], shapes=[ishape], axis=axis, keepdims=1)
        ax = axis if self.chance(0.6) else axis - v.rank
        if self.chance(0.5):
            return self.node("GatherElements", [v, idx], kinds=["f"], shapes=[ishape], axis=ax)
        upd = self.axes_node("ReduceMax", v, [axis], 18, kinds=["f"], shapes=[ishape], keepdims=1)
        attrs = {"axis": ax}
        if self.opset >= 16 and self.chance(0.4):
            attrs["reduction"] = self.choice(["add", "mul"] + (["max", "min"] if self.opset >= 18 else []))
        return self.node("ScatterElements", [v, idx, upd], kinds=["f"], shapes=[v.shape], **attrs)

    def op_gather_nd(self):
        """GatherND (batch_dims 0, or 1 over a numeric leading dim) and ScatterND with constant indices."""
        v = self.pick("f", lambda v: v.rank >= 1)
        b = 1 if self.opset >= 12 and v.rank >= 2 and len(set(v.shape[0])) == 1 and self.chance(0.3) else 0
        k = self.ri(1, v.rank - b)
        lead = self.choice([[], [self.ri(1, 3)], [self.ri(1, 2), self.ri(1, 2)]])
        batch = [v.shape[0][0]] if b else []
        count = int(np.prod(batch + lead)) if batch + lead else 1
        lims = [min(v.shape[b + j]) for j in range(k)]
        vals = [[self.ri(-lim, lim - 1) for lim in lims] for _ in range(count)]
        ind = self.const(vals, batch + lead + [k])
        if self.chance(0.6) or b:
            shape = list(v.shape[:b]) + [const_dim(x) for x in lead] + list(v.shape[b + k:])
            attrs = {"batch_dims": b} if b or (self.opset >= 12 and self.chance(0.3)) else {}
            return self.node("GatherND", [v, ind], kinds=["f"], shapes=[shape], **attrs)
        upd = self.new_input(lead + [self.label(d) for d in v.shape[k:]])
        attrs = {}
        if self.opset >= 16 and self.chance(0.4):
            attrs["reduction"] = self.choice(["add", "mul"] + (["max", "min"] if self.opset >= 18 else []))
        return self.node("ScatterND", [v, ind, upd], kinds=["f"], shapes=[v.shape], **attrs)

    def op_position_gather(self):
        """Position ids Range(p, p + n) gathered from a table (an embedding), and the matching rows
        p : p + n (or the first p + n) of a constant buffer with as many rows (a causal mask with a
        key/value cache). The table is large enough at every binding; the Gather then bounds
        p + n, which settles the slice's clamping."""
        v = self.pick("f", lambda v: v.rank >= 1)
        i = self.ri(0, v.rank - 1)
        n_sizes = v.shape[i]
        n = self.node("Gather", [self.shape_of(v), self.const(i)], kinds=["i"], shapes=[[]], contents=[[n_sizes]])
        if self.chance(0.4):
            k = self.ri(0, 3)
            p, p_sizes = self.const(k), const_dim(k)
        else:
            w = self.pick("f", lambda w: w.rank >= 1)
            j = self.ri(0, w.rank - 1)
            p_sizes = w.shape[j]
            p = self.node("Gather", [self.shape_of(w), self.const(j)], kinds=["i"], shapes=[[]], contents=[[p_sizes]])
        e_sizes = tuple(a + b for a, b in zip(p_sizes, n_sizes))
        end = self.node("Add", [p, n], kinds=["i"], shapes=[[]], contents=[[e_sizes]])
        rows = max(e_sizes) + self.ri(0, 2)
        if self.chance(0.6):
            pos = self.node("Range", [p, end, self.const(1)], kinds=["i"], shapes=[[n_sizes]])
        else:
            pos = self.add_to_arange(p, n, n_sizes)
        if self.chance(0.5):
            pos = self.axes_node("Unsqueeze", pos, [0], 13, kinds=["i"], shapes=[[const_dim(1), n_sizes]])
        table = self.fresh("k")
        self.inits[table] = self.rng.standard_normal((rows, 2)).astype(np.float32)
        self.node("Gather", [table, pos], kinds=["f"], shapes=[pos.shape + [const_dim(2)]])
        cols = self.ri(1, 4)
        buf = self.fresh("k")
        self.inits[buf] = self.rng.standard_normal((rows, cols)).astype(np.float32)
        e1 = self.axes_node("Unsqueeze", end, [0], 13, kinds=["i"], shapes=[[const_dim(1)]], contents=[[e_sizes]])
        if self.chance(0.7):
            p1 = self.axes_node("Unsqueeze", p, [0], 13, kinds=["i"], shapes=[[const_dim(1)]], contents=[[p_sizes]])
            return self.node("Slice", [buf, p1, e1, self.const([0])], kinds=["f"], shapes=[[n_sizes, const_dim(cols)]])
        return self.node("Slice", [buf, self.const([0]), e1, self.const([0])], kinds=["f"],
                         shapes=[[e_sizes, const_dim(cols)]])

    def arange_nonzero(self, n1, n_sizes):
        """torch's arange(n) before opset 11 (no Range): NonZero of n ones ([1, n] indices),
        Transposed to [n, 1] and Squeezed to [n]. n1: a [1] int64 tensor holding n."""
        ones = self.node("ConstantOfShape", [n1], kinds=["i"], shapes=[[n_sizes]],
                         value=helper.make_tensor("v", self.choice([TP.INT64, TP.FLOAT]), [1], [1]))
        ones.opaque = True  # its element type may be float: not an index tensor for other steps
        nz = self.node("NonZero", [ones], kinds=["i"], shapes=[[const_dim(1), n_sizes]])
        t = self.node("Transpose", [nz], kinds=["i"], shapes=[[n_sizes, const_dim(1)]], perm=[1, 0])
        return self.axes_node("Squeeze", t, [1], 13, kinds=["i"], shapes=[[n_sizes]])

    def add_to_arange(self, p, n, n_sizes):
        """arange(p, p + n) as torch exports it before opset 11: arange(n) + p (p, n: scalars)."""
        n1 = self.axes_node("Unsqueeze", n, [0], 13, kinds=["i"], shapes=[[const_dim(1)]], contents=[[n_sizes]])
        return self.node("Add", [self.arange_nonzero(n1, n_sizes), p], kinds=["i"], shapes=[[n_sizes]])

    def op_arange_trunc(self):
        """x gathered along an axis at arange((d - c) / k) as torch exports it before opset 11:
        Div truncates (d - 1) / 2 toward zero, and the arange is NonZero of that many ones."""
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        d = v.shape[axis]
        c, k = self.ri(0, 2), self.ri(2, 3)
        if any(x - c < 0 for x in d):
            raise Reject()
        m_sizes = tuple(x - c for x in d)
        m = self.node("Sub", [self.dim_piece(v, axis), self.const([c])], kinds=["i"], shapes=[[const_dim(1)]],
                      contents=[[m_sizes]])
        q_sizes = tuple(x // k for x in m_sizes)
        q = self.node("Div", [m, self.const([k])], kinds=["i"], shapes=[[const_dim(1)]], contents=[[q_sizes]])
        idx = self.arange_nonzero(q, q_sizes)
        shape = list(v.shape)
        shape[axis] = q_sizes
        return self.node("Gather", [v, idx], kinds=["f"], shapes=[shape], axis=axis)

    def op_size_div(self):
        """x[: d // k] or x[d // k :] with d the sliced axis's own size (a conformer's t // 2, a
        sequence cut in halves). Div truncates toward zero, so d // k is floor(d/k) only because
        d, a size, is >= 0; for a compound d (a convolution's floor(...) - 1) the engine knows
        that from the size facts alone."""
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        if 3 <= v.rank <= 4 and self.chance(0.6):
            # First an unpadded stride-1 window along a spatial axis (one whose size varies, if
            # any): d - w + 1, not provably >= 0.
            w = self.ri(2, 4)
            spatial = list(range(2, v.rank))
            varying = [j for j in spatial if len(set(v.shape[j])) > 1]
            axis = self.choice(varying or spatial)
            shape = list(v.shape)
            shape[axis] = tuple(x - w + 1 for x in v.shape[axis])
            v = self.node("MaxPool", [v], kinds=["f"], shapes=[shape],
                          kernel_shape=[w if j == axis else 1 for j in spatial])
        d = v.shape[axis]
        k = self.ri(2, 4)
        q_sizes = tuple(x // k for x in d)
        q = self.node("Div", [self.dim_piece(v, axis), self.const([k])], kinds=["i"], shapes=[[const_dim(1)]],
                      contents=[[q_sizes]])
        shape = list(v.shape)
        if self.chance(0.5):
            shape[axis] = q_sizes
            return self.node("Slice", [v, self.const([0]), q, self.const([axis])], kinds=["f"], shapes=[shape])
        shape[axis] = tuple(x - y for x, y in zip(d, q_sizes))
        return self.node("Slice", [v, q, self.const([2**62]), self.const([axis])], kinds=["f"], shapes=[shape])

    def op_compress_all(self):
        """Compress along an axis with a condition that holds everywhere: not |max| < 0, which
        a NaN makes true as well (|max| + 1 > 0 it makes false; the count then shrinks, and ORT's
        Concat skips an empty input instead of failing). To inference the kept count is
        data-dependent; at run time it is the whole axis. The value
        stays usable, so later steps compute sizes from that count; a Concat with a value of the
        same sizes along another axis (here, or a later op_concat: a U-Net skip connection)
        determines it, and every size computed from it, before or after."""
        v = self.pick("f", lambda v: v.rank >= 2)
        axis = self.ri(0, v.rank - 1)
        d = v.shape[axis]
        red = self.axes_node("ReduceMax", v, [a for a in range(v.rank) if a != axis], 18, kinds=["f"], shapes=[[d]],
                             keepdims=0)
        ab = self.node("Abs", [red], kinds=["f"], shapes=[[d]])
        neg = self.node("Less", [ab, self.const_f(0.0)], kinds=["b"], shapes=[[d]])
        cond = self.node("Not", [neg], kinds=["b"], shapes=[[d]])
        c = self.node("Compress", [v, cond], kinds=["f"], shapes=[list(v.shape)], axis=axis)
        if self.chance(0.5):
            return c
        b = self.choice([k for k in range(v.rank) if k != axis])
        if self.chance(0.3):
            # Both doubled along the axis first: 2*X against 2*d, which gives X too.
            doubled = list(v.shape)
            doubled[axis] = tuple(2 * x for x in d)
            c = self.node("Concat", [c, c], kinds=["f"], shapes=[doubled], axis=axis)
            v = self.node("Concat", [v, v], kinds=["f"], shapes=[doubled], axis=axis)
        shape = list(v.shape)
        shape[b] = tuple(2 * x for x in v.shape[b])
        parts = [c, v] if self.chance(0.5) else [v, c]
        return self.node("Concat", parts, kinds=["f"], shapes=[shape], axis=b)

    def op_if_guarded(self):
        """torch's export of squeeze(axis) on a size that may be 1: If(Equal(d, 1), then: the
        Squeeze (valid only when d == 1; Unsqueezed back here so both branches have one rank),
        else: the value unchanged. The Squeeze's d == 1 holds only in the runs that take the
        branch: the values outside the If, where d is 2 or more at other bindings, must not
        learn it."""
        v = self.pick("f", lambda v: v.rank >= 1 and any(len(set(d)) > 1 for d in v.shape))
        axis = self.choice([j for j, d in enumerate(v.shape) if len(set(d)) > 1])
        cond = self.node("Equal", [self.dim_piece(v, axis), self.const([1])], kinds=["b"], shapes=[[const_dim(1)]])
        a, b, sq = self.fresh("t"), self.fresh("e"), self.fresh("t")
        if self.opset >= 13:
            ka, kb = self.fresh("ke"), self.fresh("ke")
            then_nodes = [const_node(ka, [axis]), helper.make_node("Squeeze", [v.name, ka], [sq]),
                          const_node(kb, [axis]), helper.make_node("Unsqueeze", [sq, kb], [a])]
        else:
            then_nodes = [helper.make_node("Squeeze", [v.name], [sq], axes=[axis]),
                          helper.make_node("Unsqueeze", [sq], [a], axes=[axis])]
        else_nodes = [helper.make_node("Neg", [v.name], [b])]
        then_g = helper.make_graph(then_nodes, self.fresh("then"), [], [helper.make_empty_tensor_value_info(a)])
        else_g = helper.make_graph(else_nodes, self.fresh("else"), [], [helper.make_empty_tensor_value_info(b)])
        return self.node("If", [cond], kinds=["f"], shapes=[list(v.shape)], then_branch=then_g, else_branch=else_g)

    def op_squeeze_all(self):
        """Squeeze without axes: removes the dims that are 1, which must be 1 at every binding."""
        v = self.pick("f", lambda v: any(d == const_dim(1) for d in v.shape) and
                      all(d == const_dim(1) or min(d) > 1 for d in v.shape))
        return self.node("Squeeze", [v], kinds=["f"], shapes=[[d for d in v.shape if d != const_dim(1)]])

    def op_pad_dynamic(self):
        """Pads an axis up to a multiple of m: pad = (m - d % m) % m, computed from the shape (the
        pattern of models that need sizes divisible by a stride)."""
        v = self.pick("f", lambda v: v.rank >= 1)
        axis = self.ri(0, v.rank - 1)
        m = self.ri(2, 8)
        d = v.shape[axis]
        piece = self.dim_piece(v, axis)
        km = self.const([m])
        r1 = self.node("Mod", [piece, km], kinds=["i"], shapes=[[const_dim(1)]], contents=[[tuple(x % m for x in d)]])
        r2 = self.node("Sub", [km, r1], kinds=["i"], shapes=[[const_dim(1)]], contents=[[tuple(m - x % m for x in d)]])
        p = tuple((m - x % m) % m for x in d)
        r3 = self.node("Mod", [r2, km], kinds=["i"], shapes=[[const_dim(1)]], contents=[[p]])
        at_end = self.chance(0.7)
        pieces = []
        for k in range(2 * v.rank):
            if k == axis + (v.rank if at_end else 0):
                pieces.append(r3)
            else:
                pieces.append(self.piece(0, 0.15))
        mode = self.choice(["constant", "constant", "edge", "reflect"])
        if mode == "reflect" and any(pp >= x for pp, x in zip(p, d)):
            mode = "edge"
        shape = list(v.shape)
        shape[axis] = tuple(x + pp for x, pp in zip(d, p))
        return self.node("Pad", [v, self.concat_pieces(pieces)], kinds=["f"], shapes=[shape], mode=mode)

    def op_shape_misc(self):
        """Less common steps on shape tensors: Cast round trips (through int32 or through float
        with Div and Ceil/Floor, as torch exports integer division), Neg/Abs, reductions, Tile,
        Expand, Squeeze to a scalar, Equal/Not masks, Shape with negative start/end."""
        r = self.ri(0, 7)
        if r == 7:
            if self.opset < 15:
                raise Reject()
            v = self.pick("f", lambda v: v.rank >= 2)
            start = self.ri(-v.rank, v.rank - 1)
            end = self.choice([None, self.ri(-v.rank, v.rank)])
            return self.shape_of(v, start, end)
        s = self.pick("i", lambda s: s.rank == 1 and s.content is not None)
        n = len(s.content)
        if r == 0:
            c32 = self.node("Cast", [s], kinds=["i32"], shapes=[s.shape], to=TP.INT32)
            c32.opaque = True
            return self.node("Cast", [c32], kinds=["i"], shapes=[s.shape], contents=[s.content], to=TP.INT64)
        if r == 1:
            f = self.node("Cast", [s], kinds=["fs"], shapes=[s.shape], to=TP.FLOAT)
            q = self.ri(1, 4)
            dv = self.node("Div", [f, self.const_f(float(q))], kinds=["fs"], shapes=[s.shape])
            rnd = self.choice(["Ceil", "Floor"])
            rd = self.node(rnd, [dv], kinds=["fs"], shapes=[s.shape])
            fn = (lambda x: -(-x // q)) if rnd == "Ceil" else (lambda x: x // q)
            content = [tuple(fn(x) for x in c) for c in s.content]
            return self.node("Cast", [rd], kinds=["i"], shapes=[s.shape], contents=[content], to=TP.INT64)
        if r == 2:
            ng = self.node("Neg", [s], kinds=["i"], shapes=[s.shape], contents=[[tuple(-x for x in c) for c in s.content]])
            return self.node("Abs", [ng], kinds=["i"], shapes=[s.shape], contents=[[tuple(abs(x) for x in c) for c in s.content]])
        if r == 3:
            op = self.choice(["ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"])
            fn = {"ReduceSum": sum, "ReduceMax": max, "ReduceMin": min, "ReduceProd": lambda xs: int(np.prod(xs))}[op]
            content = [tuple(fn([c[b] for c in s.content]) for b in range(NB))]
            if self.chance(0.3):
                return self.node(op, [s], kinds=["i"], shapes=[[const_dim(1)]], contents=[content], keepdims=1)
            return self.axes_node(op, s, [0], 13 if op == "ReduceSum" else 18, kinds=["i"], shapes=[[const_dim(1)]],
                                  contents=[content], keepdims=1)
        if r == 4:
            t = self.ri(2, 3)
            return self.node("Tile", [s, self.const([t])], kinds=["i"], shapes=[[const_dim(n * t)]],
                             contents=[s.content * t])
        if r == 5:
            if n != 1:
                raise Reject()
            sc = self.axes_node("Squeeze", s, [0], 13, kinds=["i"], shapes=[[]], contents=[s.content])
            t = self.ri(1, 3)
            return self.node("Expand", [sc, self.const([t])], kinds=["i"], shapes=[[const_dim(t)]],
                             contents=[s.content * t])
        c = self.choice([0, 1, self.ri(2, 6)])
        eq = self.node("Equal", [s, self.const([c])], kinds=["b"], shapes=[s.shape])
        nt = self.node("Not", [eq], kinds=["b"], shapes=[s.shape])
        content = [tuple(int(x != c) for x in col) for col in s.content]
        return self.node("Cast", [nt], kinds=["i"], shapes=[s.shape], contents=[content], to=TP.INT64)

    def op_split_dynamic(self):
        """Split (opset 13+) with sizes computed from the shape: [d - k, k]."""
        if self.opset < 13:
            raise Reject()
        v = self.pick("f", lambda v: v.rank >= 1 and any(min(d) >= 2 for d in v.shape))
        axis = self.choice([k for k, d in enumerate(v.shape) if min(d) >= 2])
        d = v.shape[axis]
        k = self.ri(1, min(d) - 1)
        first = self.node("Sub", [self.dim_piece(v, axis), self.const([k])], kinds=["i"], shapes=[[const_dim(1)]],
                          contents=[[tuple(x - k for x in d)]])
        pieces = [first, self.const([k])] if self.chance(0.5) else [self.const([k]), first]
        sizes = self.concat_pieces(pieces)
        s1, s2 = list(v.shape), list(v.shape)
        s1[axis], s2[axis] = sizes.content[0], sizes.content[1]
        return self.node("Split", [v, sizes], 2, kinds=["f", "f"], shapes=[s1, s2],
                         axis=axis if self.chance(0.6) else axis - v.rank)[0]

    def op_variadic(self):
        """Sum / Mean of one to three broadcasting operands."""
        a = self.pick("f")
        ins = [a] + [self.related_input(a) for _ in range(self.ri(0, 2))]
        self.rng.shuffle(ins)
        return self.node(self.choice(["Sum", "Mean"]), ins, kinds=["f"], shapes=[bcast(*[x.shape for x in ins])])

    def op_dropout(self):
        """Dropout with its mask output (inference: the mask is all true, shaped like the input)."""
        v = self.pick("f")
        return self.node("Dropout", [v], 2, kinds=["f", "b"], shapes=[v.shape, v.shape])[0]

    def op_unique(self):
        """Unique: the unique values are data-dependent; the inverse indices (without an axis) have
        one entry per input element."""
        v = self.pick("f", lambda v: v.rank >= 1)
        n = tuple(numel(v.shape, b) for b in range(NB))
        y, idx, inv, cnt = self.node("Unique", [v], 4, kinds=["f", "i", "i", "i"],
                                     shapes=[[const_dim(1)], [const_dim(1)], [n], [const_dim(1)]])
        for x in (y, idx, cnt):
            x.opaque = True
        return inv

    def op_range_float(self):
        """Range over floats: Range(0, Cast(d, float), 0.5), 2*d elements."""
        v = self.pick("f", lambda v: v.rank >= 1)
        i = self.ri(0, v.rank - 1)
        s = self.shape_of(v)
        n = self.node("Gather", [s, self.const(i)], kinds=["i"], shapes=[[]], contents=[[v.shape[i]]])
        nf = self.node("Cast", [n], kinds=["fs"], shapes=[[]], to=TP.FLOAT)
        delta = self.choice([0.5, 1.0, 2.0])
        length = tuple(int(np.ceil(d / delta)) for d in v.shape[i])
        return self.node("Range", [self.const_f(0.0), nf, self.const_f(delta)], kinds=["f"], shapes=[[length]])

    def op_scan_axes(self):
        """Scan over any axis (scan_input_axes), stacking its per-step output on any axis
        (scan_output_axes), in either direction, with a state that a body Reshape keeps in shape
        through an outer-scope Shape."""
        if self.opset < 11:
            raise Reject()  # negative scan axes are opset 11
        v = self.pick("f", lambda v: v.rank >= 2 and max(max(d) for d in v.shape) <= 16)
        a = self.ri(0, v.rank - 1)
        step = list(v.shape[:a]) + list(v.shape[a + 1:])
        m = v.shape[a]
        state = self.node("ReduceSum" if self.opset >= 13 else "ReduceMax", [v] + ([self.const([a])] if self.opset >= 13 else []),
                          kinds=["f"], shapes=[step], keepdims=0, **({} if self.opset >= 13 else {"axes": [a]}))
        sin, xin, sout, yout, t = (self.fresh(p) for p in ("sin", "xt", "so", "yo", "tt"))
        ks = self.fresh("ke")
        nodes = [helper.make_node("Add", [sin, xin], [t]),
                 helper.make_node("Shape", [state.name], [ks]),  # an outer-scope value seen from the body
                 helper.make_node("Reshape", [t, ks], [sout]),
                 helper.make_node("Neg", [xin], [yout])]
        body = helper.make_graph(nodes, self.fresh("scan"),
                                 [helper.make_tensor_value_info(sin, TP.FLOAT, [None] * len(step)),
                                  helper.make_tensor_value_info(xin, TP.FLOAT, [None] * len(step))],
                                 # ranks declared: ONNX Runtime wants a shape on every Scan body output
                                 [helper.make_tensor_value_info(sout, TP.FLOAT, [None] * len(step)),
                                  helper.make_tensor_value_info(yout, TP.FLOAT, [None] * len(step))])
        b = self.ri(0, len(step))
        stacked = list(step)
        stacked.insert(b, m)
        attrs = {"num_scan_inputs": 1, "scan_input_axes": [a if self.chance(0.6) else a - v.rank],
                 "scan_output_axes": [b if self.chance(0.6) else b - len(stacked)]}
        if self.chance(0.5):
            attrs["scan_input_directions"] = [self.ri(0, 1)]
        if self.chance(0.5):
            attrs["scan_output_directions"] = [self.ri(0, 1)]
        return self.node("Scan", [state, v], 2, kinds=["f", "f"], shapes=[step, stacked], body=body, **attrs)[1]

    def op_loop_if(self):
        """A Loop whose body holds an If on a graph-input condition (outer scope two levels up) and
        reshapes its carried value through a shape computed from an outer-scope value."""
        v = self.pick("f", lambda v: v.rank >= 1)
        c = self.ri(1, 3)
        cname = self.fresh("cond")
        self.inputs.append((cname, TP.BOOL, []))
        self.fills[cname] = {"value": [self.ri(0, 1)]}
        it, cin, cout, xin, xout, r1, r2, s1 = (self.fresh(p) for p in ("it", "cin", "cout", "x", "xo", "r", "r", "s"))
        then_g = helper.make_graph([helper.make_node("Relu", [xin], [r1])], self.fresh("then"), [],
                                   [helper.make_empty_tensor_value_info(r1)])
        else_g = helper.make_graph([helper.make_node("Neg", [xin], [r2])], self.fresh("else"), [],
                                   [helper.make_empty_tensor_value_info(r2)])
        nodes = [helper.make_node("Identity", [cin], [cout]),
                 helper.make_node("If", [cname], [s1], then_branch=then_g, else_branch=else_g),
                 helper.make_node("Shape", [v.name], [self.fresh("ks")])]
        nodes.append(helper.make_node("Reshape", [s1, nodes[-1].output[0]], [xout]))
        body = helper.make_graph(nodes, self.fresh("body"),
                                 [helper.make_tensor_value_info(it, TP.INT64, []),
                                  helper.make_tensor_value_info(cin, TP.BOOL, []),
                                  helper.make_tensor_value_info(xin, TP.FLOAT, None)],
                                 [helper.make_empty_tensor_value_info(cout), helper.make_empty_tensor_value_info(xout)])
        return self.node("Loop", [self.const(c), "", v], kinds=["f"], shapes=[v.shape], body=body)

    OPS = [("op_unary", 2), ("op_binary", 5), ("op_where", 1), ("op_transpose", 2), ("op_reshape", 5),
           ("op_expand", 3), ("op_constant_of_shape", 2), ("op_range", 2), ("op_slice", 4), ("op_concat", 3),
           ("op_shape_concat", 2), ("op_reduce", 2), ("op_matmul", 2), ("op_unsqueeze", 2), ("op_squeeze", 2),
           ("op_flatten", 1), ("op_pad", 2), ("op_tile", 1), ("op_pool", 2), ("op_gather", 2), ("op_topk", 1),
           ("op_split", 1), ("op_shape_arith", 4), ("op_where_shape", 2), ("op_size", 1), ("op_conv", 2),
           ("op_conv_transpose", 1), ("op_resize", 2), ("op_depth_space", 1), ("op_nonzero", 1), ("op_if", 2),
           ("op_einsum", 1), ("op_gemm", 1), ("op_onehot", 1), ("op_loop", 2),
           ("op_function", 2), ("op_sequence", 2), ("op_scan", 1),
           ("op_slice_dynamic", 3), ("op_argmax", 1), ("op_global_pool", 1),
           ("op_rnn", 1), ("op_norm", 1), ("op_pool_ext", 2), ("op_take_along", 1), ("op_gather_nd", 1),
           ("op_squeeze_all", 1), ("op_pad_dynamic", 2), ("op_shape_misc", 3), ("op_split_dynamic", 1),
           ("op_variadic", 1), ("op_dropout", 1), ("op_unique", 1), ("op_range_float", 1),
           ("op_scan_axes", 1), ("op_loop_if", 1),
           ("op_position_gather", 1), ("op_size_div", 1), ("op_if_guarded", 1),
           ("op_arange_trunc", 1), ("op_compress_all", 1)]

    # Before opset 11 (programs at opsets 9 and 10): operators newer than the program's opset,
    # and input forms that came later, are left out (the methods write the opset 11+ forms).
    OLD_SINCE = {"Range": 11, "SplitToSequence": 11, "SequenceConstruct": 11, "SequenceAt": 11,
                 "SequenceInsert": 11, "SequenceErase": 11, "SequenceLength": 11, "SequenceEmpty": 11,
                 "ConcatFromSequence": 11, "Unique": 11, "GatherElements": 11, "ScatterElements": 11,
                 "ScatterND": 11, "GatherND": 11, "CumSum": 11, "Round": 11, "Det": 11, "BitShift": 11,
                 "Mod": 10, "Resize": 10, "ReverseSequence": 10, "RoiAlign": 10, "IsInf": 10,
                 "ThresholdedRelu": 10, "NonMaxSuppression": 10, "Einsum": 12, "Celu": 12, "Trilu": 14,
                 "HardSwish": 14, "LayerNormalization": 17, "GroupNormalization": 18, "Mish": 18, "Gelu": 20,
                 "CenterCropPad": 18, "Col2Im": 18}
    # op -> the opset from which it takes more than this many inputs (attributes before).
    OLD_INPUTS = {"Pad": (11, 1), "Clip": (11, 1), "Slice": (10, 1), "TopK": (10, 1), "Resize": (11, 2),
                  "Split": (13, 1), "Squeeze": (13, 1), "Unsqueeze": (13, 1), "ReduceSum": (13, 1),
                  "ReduceMean": (18, 1), "ReduceMax": (18, 1), "ReduceMin": (18, 1), "ReduceProd": (18, 1),
                  "ReduceL1": (18, 1), "ReduceL2": (18, 1), "ReduceSumSquare": (18, 1), "ReduceLogSum": (18, 1),
                  "ReduceLogSumExp": (18, 1)}

    # (op, attribute) -> the opset that introduced the attribute.
    OLD_ATTRS = {("MaxPool", "ceil_mode"): 10, ("MaxPool", "dilations"): 10, ("AveragePool", "ceil_mode"): 10,
                 ("DepthToSpace", "mode"): 11}

    def check_old_version(self, n):
        if self.OLD_SINCE.get(n.op_type, 0) > self.opset:
            raise Reject()
        since, most = self.OLD_INPUTS.get(n.op_type, (0, 0))
        if self.opset < since and len([i for i in n.input if i]) > most:
            raise Reject()
        if n.op_type == "Gemm" and self.opset < 11 and len(n.input) < 3:
            raise Reject()  # C is optional from opset 11
        for a in n.attribute:
            if self.OLD_ATTRS.get((n.op_type, a.name), 0) > self.opset:
                raise Reject()
            # Negative axes count from the back from opset 11 on (a few operators had them before).
            if a.name in ("axis", "axes") and n.op_type not in ("Gather", "TopK", "OneHot", "LpNormalization") and \
                    (a.i < 0 or any(x < 0 for x in a.ints)):
                raise Reject()
            for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                for m in g.node:
                    self.check_old_version(m)

    def build(self, steps):
        for _ in range(self.ri(1, 2)):
            self.new_input(self.random_labels(self.ri(1, 4)))
        names = [n for n, _ in self.OPS]
        weights = np.array([w for _, w in self.OPS], dtype=float)
        weights /= weights.sum()
        done = 0
        for _ in range(steps * 6):
            if done >= steps:
                break
            op = names[int(self.rng.choice(len(names), p=weights))]
            saved = (len(self.nodes), len(self.vals), len(self.inputs), dict(self.inits), dict(self.aliases), self.count,
                     dict(self.fills), len(self.functions))
            try:
                getattr(self, op)()
                if self.opset < 11:
                    for n in self.nodes[saved[0]:]:
                        self.check_old_version(n)
                    for f in self.function_protos[saved[7]:]:
                        for n in f.node:
                            self.check_old_version(n)
                done += 1
            except Reject:
                n_nodes, n_vals, n_inputs, inits, aliases, count, fills, n_funcs = saved
                del self.nodes[n_nodes:], self.vals[n_vals:], self.inputs[n_inputs:]
                del self.functions[n_funcs:], self.function_protos[n_funcs:]
                self.inits, self.aliases, self.count, self.fills = inits, aliases, count, fills

    def model(self, name):
        inputs = [helper.make_tensor_value_info(n, e, d) for n, e, d in self.inputs]
        outs = [v.name for v in self.vals if not getattr(v, "is_input", False) and v.kind != "s"]
        g = helper.make_graph(self.nodes, name, inputs, [helper.make_empty_tensor_value_info(o) for o in outs],
                              [numpy_helper.from_array(v, k) for k, v in self.inits.items()])
        imports = [helper.make_opsetid("", self.opset)] + ([helper.make_opsetid("local", 1)] if self.function_protos else [])
        m = helper.make_model(g, opset_imports=imports, producer_name="oxir-programs")
        m.functions.extend(self.function_protos)
        m.ir_version = 8
        return m

    def bindings(self):
        used = []
        for _, _, dims in self.inputs:
            for d in dims:
                if isinstance(d, str) and d not in used:
                    used.append(d)
        return [{p: self.sizes_of(p)[b] for p in used} for b in range(NB)]


def program_cases(cases, count, seed=20261125, shuffle_every=0):
    """Appends `count` random programs to `cases` (gen_models.py's CASES list). With shuffle_every
    k > 0, every k-th program has its nodes in a random order (its own generator: the programs
    are the same ones), so inference in dependency order is checked against ORT too."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        p = Program(rng, i, int(rng.choice(OPSETS)))
        p.build(steps=int(rng.integers(4, 13)))
        if not p.nodes:
            continue
        name = f"prog{i:03d}"
        model = p.model(name)
        if shuffle_every > 0 and i % shuffle_every == shuffle_every - 1:
            nodes = list(model.graph.node)
            random.Random(seed * 7919 + i).shuffle(nodes)
            del model.graph.node[:]
            model.graph.node.extend(nodes)
        cases.append({"name": name, "model": model, "bindings": p.bindings(), "fills": p.fills,
                      "note": "random"})
