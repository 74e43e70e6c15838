#!/usr/bin/python3
"""Asks ONNX Runtime which version of each operator a model at a given opset gets, for
scripts/data/onnx_versions_probed.json.

    /usr/bin/python3 scripts/probe_ort_versions.py [--cache ~/.cache/oxir] [--out FILE]

For every operator of the type table (include/oxir/infer/type_constraints_data.hpp) and every
opset of its domain up to PROBED (ai.onnx 1-27, ai.onnx.ml 1-5, training 1), builds a one-node
model whose inputs have types the table's newest version at that opset allows (plus the required
attributes and subgraphs a loader insists on), has ONNX Runtime (npm onnxruntime-node) load it
and save it in its own ORT format, and reads the node's since_version from that file: the
version ONNX Runtime's schema registry resolved. When the session fails only for want of a
kernel, the message "Could not find an implementation for OP(V)" names the version too.

A node the loader replaced (a function-defined operator it inlined, Constant folded into an
initializer) says nothing about its operator and is left out, as are nodes the loader refused.

The output maps "Op[@domain]" to {opset: since_version} for the opsets that answered, so
gen_type_constraints.py can tell, for the opsets newer than the table, which operators still
have the table's newest version (their signature and attribute names are then exact) and which
gained a version the table does not have.
"""

import argparse
import json
import os
import re
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "infer", "real"))
import probe_ort_attributes as pa  # noqa: E402  (parse_table, DOMAIN_NAMES)
import verify_real as vr  # noqa: E402  (ensure_ort)

PROBED = {0: 27, 1: 5, 2: 1}
SAVE_JS = r"""
const fs = require('fs'), path = require('path');
const ort = require(path.join(process.env.OXIR_ORT_DIR, 'node_modules', 'onnxruntime-node'));
(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const out = {};
  for (const f of jobs) {
    const o = f.replace(/\.onnx$/, '.ort');
    try {
      const s = await ort.InferenceSession.create(f, {graphOptimizationLevel: 'disabled', logSeverityLevel: 4,
          intraOpNumThreads: 1, interOpNumThreads: 1,
          optimizedModelFilePath: o, extra: {session: {save_model_format: 'ORT'}}});
      out[f] = {ort: o};
      if (s.release) await s.release();
    } catch (e) {
      out[f] = {error: String(e && e.message ? e.message : e).split('\n')[0].slice(0, 400)};
    }
  }
  process.stdout.write(JSON.stringify(out));
})();
"""


# ---- ORT format (a flatbuffer; onnxruntime's ort.fbs): InferenceSession.model(1) -> Model.graph(7)
# ---- -> Graph.nodes(2) -> Node {domain(2), since_version(3), op_type(5)}
class _Table:
    def __init__(self, b, pos):
        self.b, self.pos = b, pos
        self.vt = pos - struct.unpack_from("<i", b, pos)[0]
        self.vlen = struct.unpack_from("<H", b, self.vt)[0]

    def _off(self, i):
        o = 4 + 2 * i
        return struct.unpack_from("<H", self.b, self.vt + o)[0] if o < self.vlen else 0

    def i32(self, i):
        o = self._off(i)
        return struct.unpack_from("<i", self.b, self.pos + o)[0] if o else None

    def _ref(self, i):
        o = self._off(i)
        if not o:
            return None
        p = self.pos + o
        return p + struct.unpack_from("<I", self.b, p)[0]

    def table(self, i):
        p = self._ref(i)
        return _Table(self.b, p) if p is not None else None

    def string(self, i):
        p = self._ref(i)
        if p is None:
            return ""
        n = struct.unpack_from("<I", self.b, p)[0]
        return self.b[p + 4:p + 4 + n].decode()

    def tables(self, i):
        p = self._ref(i)
        if p is None:
            return []
        n = struct.unpack_from("<I", self.b, p)[0]
        out = []
        for k in range(n):
            q = p + 4 + 4 * k
            out.append(_Table(self.b, q + struct.unpack_from("<I", self.b, q)[0]))
        return out


def ort_nodes(path):
    """[(domain, op_type, since_version)] of the main graph of an ORT-format file."""
    with open(path, "rb") as f:
        b = f.read()
    if b[4:8] != b"ORTM":
        raise ValueError(f"{path}: not an ORT-format file")
    root = _Table(b, struct.unpack_from("<I", b, 0)[0])
    graph = root.table(1).table(7)
    return [(n.string(2), n.string(5), n.i32(3)) for n in graph.tables(2)]


# ---- models ----
def parse_types(part):
    """{'T': 't3cfe', ...} from the signature's constraint part."""
    out = {}
    for item in filter(None, part.split(",")):
        k, v = item.split("=", 1)
        out[k] = v
    return out


def pick_elem(mask):
    for dt in (1, 7, 9, 6, 8, 2, 11, 10):  # float, int64, bool, int32, string, uint8, double, f16
        if mask >> dt & 1:
            return dt
    for dt in range(1, 32):
        if mask >> dt & 1:
            return dt
    return 1


def make_type(spec):
    """A TypeProto for a type-set string ('t1fffe', 'sfffe', 't..s..o..'), or None."""
    from onnx import helper
    kinds = dict(re.findall(r"([tsoq])([0-9a-f]+)", spec))
    if "t" in kinds:
        return helper.make_tensor_type_proto(pick_elem(int(kinds["t"], 16)), None)
    if "s" in kinds:
        return helper.make_sequence_type_proto(helper.make_tensor_type_proto(pick_elem(int(kinds["s"], 16)), None))
    if "o" in kinds:
        return helper.make_optional_type_proto(helper.make_tensor_type_proto(pick_elem(int(kinds["o"], 16)), None))
    return None


def subgraph(name, inputs, outputs_from):
    """A graph of Identity nodes: output k copies outputs_from[k] = (visible name, element type)."""
    from onnx import helper
    nodes = [helper.make_node("Identity", [src], [f"{name}_o{k}"]) for k, (src, _) in enumerate(outputs_from)]
    outs = [helper.make_tensor_value_info(f"{name}_o{k}", t, None) for k, (_, t) in enumerate(outputs_from)]
    return helper.make_graph(nodes, name, inputs, outs)


def build(op, domain, opset, sig, attrs):
    """The probe model of op at opset, or None when the table's signature cannot be fed."""
    import onnx
    from onnx import helper, TensorProto
    params, types = (sig.split("|") + [""])[:2]
    ins_spec, outs_spec = params.split(">")
    constraints = parse_types(types)
    inputs, names = [], []
    for i, tok in enumerate(ins_spec.split()):
        optional = tok.endswith("?")
        base = tok.rstrip("?+*")
        spec = base[1:] if base.startswith("=") else constraints.get(base, "")
        if optional and op not in ("Loop",) and not (op == "Resize" and i == 2):
            names.append("")
            continue
        t = make_type(spec)
        if t is None:
            return None
        if op == "Loop" and i < 2:  # M (int64) and cond (bool) of a Loop are given
            t = helper.make_tensor_type_proto(TensorProto.INT64 if i == 0 else TensorProto.BOOL, None)
        names.append(f"x{i}")
        inputs.append(helper.make_value_info(f"x{i}", t))
    while names and names[-1] == "":
        names.pop()
    # outputs: the required ones (at least one); optional ones would ask for a training mode
    outs = [f"y{k}" for k, tok in enumerate(outs_spec.split()) if not tok.endswith("?") or k == 0]
    node = helper.make_node(op, names, outs, domain=pa.DOMAIN_NAMES[domain])
    have = set((attrs or "").split())
    simple = {"to": 1, "blocksize": 1, "hidden_size": 1, "kernel_shape": [1], "equation": "i->i",
              "pooled_shape": [1, 1], "direction": "LEFT" if op == "BitShift" else "forward", "size": 1}
    for a, v in simple.items():
        if a in have:
            node.attribute.append(helper.make_attribute(a, v))
    if op in ("RandomNormal", "RandomUniform"):
        node.attribute.append(helper.make_attribute("shape", [1]))
    if op in ("Concat", "ConcatFromSequence"):
        node.attribute.append(helper.make_attribute("axis", 0))
    if op == "If":
        x = helper.make_tensor_value_info("outer", TensorProto.FLOAT, None)
        inputs.append(x)
        node.attribute.append(helper.make_attribute("then_branch", subgraph("t", [], [("outer", TensorProto.FLOAT)])))
        node.attribute.append(helper.make_attribute("else_branch", subgraph("e", [], [("outer", TensorProto.FLOAT)])))
    if op == "Loop":
        # M, cond and one carried value (the signature's V: float), each a graph input
        body_in = [helper.make_tensor_value_info("it", TensorProto.INT64, []),
                   helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                   helper.make_tensor_value_info("v", TensorProto.FLOAT, None)]
        node.attribute.append(helper.make_attribute("body", subgraph("b", body_in, [("cond", TensorProto.BOOL), ("v", TensorProto.FLOAT)])))
    if op == "Scan":
        if opset < 9:
            return None
        body_in = [helper.make_tensor_value_info("s", TensorProto.FLOAT, None)]
        node.attribute.append(helper.make_attribute("body", subgraph("b", body_in, [("s", TensorProto.FLOAT)])))
        node.attribute.append(helper.make_attribute("num_scan_inputs", 1))
    graph = helper.make_graph([node], "probe", inputs,
                              [helper.make_value_info(o, onnx.TypeProto()) for o in node.output])
    opsets = [helper.make_opsetid(pa.DOMAIN_NAMES[domain], opset)]
    if domain != 0:
        opsets.append(helper.make_opsetid("", 21))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 7 if opset <= 13 and domain == 0 else 10
    return model


# ONNX Runtime defines LayerNormalization in the default domain from version 1 (its own kernel's
# schema), where ONNX has it only from opset 17.
ORT_EARLIER = {("LayerNormalization", 0): 17}


def check(out, versions, committed_path):
    """0 when ONNX Runtime's answers agree with the table up to its newest opset and equal the
    committed data file (which kUnchangedThrough is generated from); else 1, printing why."""
    with open(pa.TABLE) as f:
        m = re.search(r"kTypeTableNewest\[4\] = \{(\d+), (\d+), (\d+), \d+\}", f.read())  # the fourth: com.microsoft
    newest = {d: int(m.group(d + 1)) for d in range(3)}
    bad = 0
    compared = 0
    for (domain, op), vs in sorted(versions.items()):
        key = op + (f"@{pa.DOMAIN_NAMES[domain]}" if domain else "")
        for opset, since in out.get(key, {}).items():
            opset = int(opset)
            if opset > newest[domain] or opset < ORT_EARLIER.get((op, domain), 0):
                continue
            ours = max((r[1] for r in vs if r[1] <= opset), default=None)
            compared += 1
            if ours != since:
                bad += 1
                print(f"MISMATCH {key} at opset {opset}: the table has version {ours}, ONNX Runtime {since}")
    with open(committed_path) as f:
        committed = json.load(f)
    if committed != out:
        bad += 1
        for key in sorted(set(committed) | set(out)):
            if committed.get(key) != out.get(key):
                print(f"DRIFT {key}: committed {committed.get(key)}, now {out.get(key)}")
        print("the answers differ from the committed file: rerun this script without --check and "
              "scripts/gen_type_constraints.py")
    print(f"{compared} (operator, opset) pairs up to opset {newest[0]} (ml {newest[1]}) compared with the table, "
          f"{sum(len(v) for v in out.values())} answers with {os.path.basename(committed_path)}: "
          + ("OK" if not bad else f"{bad} problems"))
    return 1 if bad else 0


def main():
    import onnx
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    ap.add_argument("--out", default=os.path.join(HERE, "data", "onnx_versions_probed.json"))
    ap.add_argument("--jobs", type=int, default=2, help="ONNX Runtime processes in parallel")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; fail (exit 1) unless every answer up to the table's newest opset "
                    "agrees with the table and all answers equal the committed data file (ctest "
                    "infer_versions_differential)")
    args = ap.parse_args()
    rows = pa.parse_table()
    versions = {}
    for r in rows:
        versions.setdefault((r[2], r[0]), []).append(r)
    ort_dir = vr.ensure_ort(args.cache)
    with tempfile.TemporaryDirectory(prefix="oxir-probe-ver-") as tmp:
        meta = {}
        for (domain, op), vs in sorted(versions.items()):
            for opset in range(1, PROBED[domain] + 1):
                usable = [r for r in vs if r[1] <= opset and r[3]]
                row = usable[-1] if usable else next((r for r in vs if r[3]), None)
                if row is None:
                    continue
                model = build(op, domain, opset, row[3], row[4])
                if model is None:
                    continue
                fn = os.path.join(tmp, f"{len(meta)}.onnx")
                onnx.save(model, fn)
                meta[fn] = (domain, op, opset)
        js = os.path.join(tmp, "save.js")
        with open(js, "w") as f:
            f.write(SAVE_JS)
        res = pa.run_split(js, sorted(meta), args.jobs, tmp, ort_dir)
        found = {}
        for fn, (domain, op, opset) in meta.items():
            r, since = res.get(fn, {}), None
            if "ort" in r:
                nodes = ort_nodes(r["ort"])
                if len(nodes) == 1 and nodes[0][1] == op and nodes[0][0] in (pa.DOMAIN_NAMES[domain], "ai.onnx" if not domain else None):
                    since = nodes[0][2]
            else:
                m = re.search(r"Could not find an implementation for (\w+)\((\d+)\)", r.get("error", ""))
                if m and m.group(1) == op:
                    since = int(m.group(2))
            if since is not None:
                key = op + (f"@{pa.DOMAIN_NAMES[domain]}" if domain else "")
                found.setdefault(key, {})[str(opset)] = since
    out = {k: dict(sorted(v.items(), key=lambda kv: int(kv[0]))) for k, v in sorted(found.items())}
    if args.check:
        sys.exit(check(out, versions, args.out))
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{sum(len(v) for v in out.values())} (operator, opset) answers for {len(out)} operators "
          f"of {len(versions)} written to {args.out}")


if __name__ == "__main__":
    main()
