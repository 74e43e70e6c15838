#!/usr/bin/python3
"""Finds the input type signatures and attribute names of ONNX Runtime's contrib operators that oxir
has inference rules for (domain com.microsoft, and SimplifiedLayerNormalization, which ONNX Runtime
defines in the default domain), as ONNX Runtime 1.30's loader checks them, for
scripts/data/ort_contrib_schemas.json (the type-constraint check of com.microsoft nodes).

    /usr/bin/python3 scripts/probe_ort_contrib_types.py [--cache ~/.cache/oxir] [--write | --check]

These operators have no ONNX schema; ONNX Runtime's own schema is their definition. No schema
text is read: the signatures are observed. For every contrib node of the single-operator
models tests/infer/newops/gen_models.py writes, the node alone becomes a model whose inputs are
graph inputs (their types and shapes as in the case). Then each input in turn gets each of the 26
element types, the others keeping theirs, and an ONNX Runtime session is created (never run):
  - "Type Error: Type (...) of input parameter (NAME) ... is invalid": the input's type parameter
    does not allow that type;
  - "Type parameter (T) ... bound to different types": it allows it, and the input shares the type
    parameter T with another input (which still has the old type);
  - anything else (loaded, no kernel, a shape-inference error): the schema allowed the type, since
    ONNX Runtime checks a node's input types before it runs its inference function.
So each input gets the set of element types it allows, and inputs that name the same parameter
form a group that must agree. Inputs never probed (absent in every case) are left unconstrained.
Outputs are not described (their types follow from the inputs and attributes, which the rules
already infer).

Attribute names: ONNX Runtime checks a node's attribute names against the schema before anything
else about the node ("Unrecognized attribute: NAME for operator OP"). Every identifier-like string
in ONNX Runtime's library (and its tails after each '_') is tried alone, as an int attribute, on
each operator's standalone model (scripts/lib/probe_attribute_names.js); the names not refused are
the operator's attributes. A schema's names are string literals of the library, so none is missed.
An operator that accepts a name no operator has is left without names (not checked).

--write replaces the data file (about 15 minutes: 1.5 million sessions); --check (about 30 s)
probes the input types again and tries the committed attribute names of all operators on each,
and exits 1 if ONNX Runtime's answers differ from the file; without either, prints what the full
probe finds.
"""

import argparse
import collections
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "infer", "real"))
import verify_real as vr  # noqa: E402  (ensure_ort)
import probe_ort_attributes as pa  # noqa: E402  (scripts/: this script's directory; CONTROL)
from probe_ort_types import create_sessions  # noqa: E402

DATA = os.path.join(HERE, "data", "ort_contrib_schemas.json")
# Operators ONNX Runtime defines in the default domain (version 1) that ONNX does not.
ORT_DEFAULT = {"SimplifiedLayerNormalization"}
NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
         9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
         16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
         21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2", 26: "int2"}
INVALID = re.compile(r"Type Error: Type (\S+) of input parameter \(([^)]*)\) of operator \(([^)]*)\)")
MISMATCH = re.compile(r"Type Error: Type parameter \(([^)]*)\) of Optype \(([^)]*)\) bound to different types")


def standalone(m, node, onnx, helper):
    """A model holding only `node`, its inputs graph inputs typed as in `m` (None if some input's
    type is not known)."""
    inferred = onnx.shape_inference.infer_shapes(m)
    types = {}
    for vi in list(inferred.graph.input) + list(inferred.graph.value_info):
        types[vi.name] = vi.type
    for t in m.graph.initializer:
        types[t.name] = helper.make_tensor_type_proto(t.data_type, list(t.dims))
    g = helper.make_graph([copy.deepcopy(node)], "probe", [], [helper.make_value_info(o, onnx.TypeProto())
                                                              for o in node.output if o])
    seen = set()
    for name in node.input:
        if not name or name in seen:
            continue
        seen.add(name)
        t = types.get(name)
        if t is None or not t.HasField("tensor_type") or not t.tensor_type.elem_type:
            return None
        g.input.append(helper.make_value_info(name, t))
    out = helper.make_model(g, opset_imports=list(m.opset_import))
    out.ir_version = max(m.ir_version, 10)
    return out


def probe(cache, attribute_candidates):
    """The input signatures and attribute names per operator. attribute_candidates(ort_dir) gives
    the names to try on every operator."""
    import onnx
    from onnx import helper
    ort_dir = vr.ensure_ort(cache)
    bases = {}  # op -> one standalone model of it
    with tempfile.TemporaryDirectory(prefix="oxir-contrib-") as tmp:
        gen = os.path.join(tmp, "gen")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "infer", "newops", "gen_models.py"), gen],
                       check=True, capture_output=True, env=dict(os.environ, OXIR_PROGRAMS="0"))
        # meta: job file -> (op, case, input position or None for the case as it is, element type);
        # declared: (op, case, input position) -> the case's own element type there.
        jobs, meta, declared, done = [], {}, {}, set()
        for f in sorted(os.listdir(gen)):
            if not f.endswith(".onnx"):
                continue
            m = onnx.load(os.path.join(gen, f))
            for node in m.graph.node:
                if node.domain != "com.microsoft" and not (node.domain in ("", "ai.onnx") and node.op_type in ORT_DEFAULT):
                    continue
                present = tuple(bool(x) for x in node.input)
                if (node.op_type, present) in done:
                    continue
                base = standalone(m, node, onnx, helper)
                if base is None:
                    print(f"  {f}: {node.op_type} skipped (an input's type is not known)", file=sys.stderr)
                    continue
                done.add((node.op_type, present))
                bases.setdefault(node.op_type, base)
                fn = os.path.join(tmp, f"{len(jobs)}.onnx")
                onnx.save(base, fn)
                jobs.append({"name": fn, "model": fn, "runs": []})
                meta[fn] = (node.op_type, f, None, None)
                orig = {i.name: i.type.tensor_type.elem_type for i in base.graph.input}
                for k, name in enumerate(node.input):
                    if not name or name in node.input[:k]:
                        continue
                    declared[(node.op_type, f, k)] = orig[name]
                    for t in NAMES:
                        if t == orig[name]:
                            continue
                        mm = copy.deepcopy(base)
                        for i in mm.graph.input:
                            if i.name == name:
                                i.type.tensor_type.elem_type = t
                        fn = os.path.join(tmp, f"{len(jobs)}.onnx")
                        onnx.save(mm, fn)
                        jobs.append({"name": fn, "model": fn, "runs": []})
                        meta[fn] = (node.op_type, f, k, t)
        res = create_sessions(jobs, tmp, ort_dir)
        attributes = probe_attributes(bases, attribute_candidates(ort_dir), tmp, ort_dir)
    # Per operator and input position: allowed types, the formal name, the parameter name.
    ops = collections.defaultdict(lambda: collections.defaultdict(
        lambda: {"allowed": set(), "rejected": set(), "formal": None, "param": None}))
    bad_base = set()
    for fn, (op, case, k, t) in meta.items():
        err = res[fn].get("error", "")
        if k is None:
            if INVALID.search(err) or MISMATCH.search(err):
                bad_base.add((op, case))
                print(f"  {case}: {op} rejected as it is: {err[:200]}", file=sys.stderr)
            continue
        pos = ops[op][k]
        mi, mm = INVALID.search(err), MISMATCH.search(err)
        if mi and mi.group(3) == op:
            pos["rejected"].add(t)
            pos["formal"] = pos["formal"] or mi.group(2)
        else:
            pos["allowed"].add(t)
            if mm and mm.group(2) == op:
                if pos["param"] not in (None, mm.group(1)):
                    sys.exit(f"{op} input {k}: parameters {pos['param']} and {mm.group(1)}")
                pos["param"] = mm.group(1)
    for (op, case, k), t in declared.items():
        if (op, case) not in bad_base and op in ops:
            ops[op][k]["allowed"].add(t)
    table = {}
    for op in sorted(ops):
        inputs = []
        for k in range(max(ops[op]) + 1):
            pos = ops[op].get(k)
            if pos is None:
                inputs.append(None)
                continue
            if pos["allowed"] & pos["rejected"]:
                sys.exit(f"{op} input {k}: cases disagree on {sorted(pos['allowed'] & pos['rejected'])}")
            inputs.append({"formal": pos["formal"], "param": pos["param"],
                           "types": [NAMES[t] for t in sorted(pos["allowed"])] if pos["rejected"] else None})
        table[op] = {"inputs": inputs, "attributes": attributes.get(op)}
    return table


BOGUS = pa.CONTROL  # a name no operator has


def binary_candidates(ort_dir):
    """Every name an attribute could have that occurs in ONNX Runtime's library: identifier-like
    runs of its bytes, and their tails after each '_' (the linker stores a string that ends
    another one only once: "num_heads" may exist only inside "kv_num_heads")."""
    lib = None
    for root, _, files in os.walk(os.path.join(ort_dir, "node_modules", "onnxruntime-node", "bin")):
        for f in files:
            if f.startswith("libonnxruntime.so"):
                lib = os.path.join(root, f)
    if lib is None:
        sys.exit(f"libonnxruntime.so not found under {ort_dir}")
    with open(lib, "rb") as fh:
        data = fh.read()
    names = set()
    for w in set(re.findall(rb"[A-Za-z0-9_]{1,48}", data)):
        parts = w.decode().split("_")
        for i in range(len(parts)):
            c = "_".join(parts[i:])
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,47}", c):
                names.add(c)
    return sorted(names) + [BOGUS]


def probe_attributes(bases, candidates, tmp, ort_dir):
    """{op: sorted accepted names, or None when the loader accepts any name}: each candidate tried
    alone on each operator's standalone model (scripts/lib/probe_attribute_names.js), in two
    processes."""
    import base64
    jobs = []
    for op, m in sorted(bases.items()):
        g = copy.deepcopy(m.graph)
        node = copy.deepcopy(g.node[0])
        del g.node[:]
        head = copy.deepcopy(m)
        head.ClearField("graph")
        jobs.append({"op": op, "model": base64.b64encode(head.SerializeToString()).decode(),
                     "graph": base64.b64encode(g.SerializeToString()).decode(),
                     "node": base64.b64encode(node.SerializeToString()).decode()})
    cp = os.path.join(tmp, "candidates.txt")
    with open(cp, "w") as fh:
        fh.write("\n".join(candidates) + "\n")
    procs = []
    for half in (jobs[0::2], jobs[1::2]):
        jp = os.path.join(tmp, f"attr_jobs{len(procs)}.json")
        with open(jp, "w") as fh:
            json.dump(half, fh)
        procs.append(subprocess.Popen(["node", os.path.join(HERE, "lib", "probe_attribute_names.js"), jp, cp],
                                      stdout=subprocess.PIPE, text=True,
                                      env=dict(os.environ, OXIR_ORT_DIR=ort_dir, ALLOW_RELEASED_ONNX_OPSET_ONLY="0")))
    found = {}
    for pr in procs:
        out, _ = pr.communicate()
        if pr.returncode != 0:
            sys.exit("probe_attribute_names.js failed")
        found.update(json.loads(out))
    return {op: None if BOGUS in names else sorted(set(names)) for op, names in found.items()}


def to_schema(op, entry):
    """onnx_schemas_*.json form: inputs with constraint names, the constraints' type sets, and the
    attribute names (left out when not known)."""
    inputs = entry["inputs"]
    ins, cons = [], {}
    for k, p in enumerate(inputs):
        if p is None or p["types"] is None:  # never probed, or every type allowed
            ins.append({"name": f"input{k}", "option": "single", "homogeneous": True, "type": None})
            continue
        name = p["param"] or p["formal"] or f"input{k}"
        types = [f"tensor({t})" for t in p["types"]]
        if name in cons and cons[name] != types:  # not expected: one parameter, one set
            print(f"warning: {op} input {k}: {name} allows other types than before; checked alone", file=sys.stderr)
            name = f"{name}_{k}"
        cons[name] = types
        ins.append({"name": p["formal"] or f"input{k}", "option": "single", "homogeneous": True, "type": name})
    out = {"domain": "" if op in ORT_DEFAULT else "com.microsoft", "op": op, "since_version": 1, "inputs": ins, "outputs": [],
           "constraints": cons}
    if entry["attributes"] is not None:
        out["attributes"] = entry["attributes"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        # The committed names of every operator (and one that no operator has) on every operator:
        # each must accept exactly its own. Finding names the data lacks takes --write's full run
        # (every name in the library, about 1.5 million sessions).
        with open(DATA) as f:
            committed_names = sorted({a for s in json.load(f) for a in s.get("attributes", [])})
        table = probe(args.cache, lambda ort_dir: committed_names + [BOGUS])
    else:
        table = probe(args.cache, binary_candidates)
    schemas = [to_schema(op, e) for op, e in table.items()]
    if args.write:
        with open(DATA, "w") as f:
            f.write("[\n" + ",\n".join(json.dumps(s) for s in schemas) + "\n]\n")
        print(f"{len(schemas)} operators -> {DATA}")
        return 0
    if args.check:
        with open(DATA) as f:
            committed = json.load(f)
        if committed != schemas:
            have = {s["op"]: s for s in committed}
            for s in schemas:
                if have.get(s["op"]) != s:
                    print(f"differs: {s['op']}\n  ONNX Runtime: {json.dumps(s)}\n  committed:    "
                          f"{json.dumps(have.get(s['op']))}")
            print("FAILED")
            return 1
        print(f"OK: ONNX Runtime agrees with {DATA} ({len(schemas)} operators)")
        return 0
    for s in schemas:
        print(json.dumps(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
