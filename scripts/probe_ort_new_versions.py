#!/usr/bin/python3
"""Writes scripts/data/onnx_schemas_22_27.json: operator versions of opsets 22-27 as signatures
the type table can check exactly, each confirmed by ONNX Runtime 1.30's loader.

    /usr/bin/python3 scripts/probe_ort_new_versions.py [--cache ~/.cache/oxir] [--write]

No stored copy of onnx's changelog reaches opset 22, and python3-onnx 1.12 stops at 17. ONNX
Runtime 1.30 resolves new versions of many operators there (scripts/data/onnx_versions_probed.json).
Two kinds are derived here from the operator's previous version (onnx 1.12's schemas and
scripts/data/onnx_schemas_newer.json), keeping its formal parameters:
  - the versions of opset 22, which added bfloat16 to the float type sets (44 operators): the
    candidate adds bfloat16 to every type set that has float16, and is kept only when the loader
    accepts exactly that set for every type parameter that inputs use;
  - the versions of opsets 23-27 of operators whose parameters are all input types or fixed
    types (Flatten, Pad, Reshape, Shape, Size, Squeeze, Transpose, Unsqueeze, TopK, Range), which
    took the element types added in those opsets: each input parameter's set is what the loader
    accepts (complex types, which ONNX Runtime cannot load at all, kept from the previous version).
    Opset 27 loads only with ALLOW_RELEASED_ONNX_OPSET_ONLY=0 (probe_ort_types sets it).
Each candidate is tried on a one-node model of the operator at the version's opset:
  - every element type given to all inputs of a type parameter together;
  - where two or more inputs share a parameter, another allowed type given to the first of
    them alone must be refused (the inputs must still agree).
Errors given after the loader's type check (a missing kernel; onnxruntime-node unable to
represent a created session's bfloat16 input) count as accepted; any other error leaves the
operator out. Parameters only outputs use (RandomUniform's T) keep the candidate's set, at
opsets 23-25 only where they are index types (as are input parameters the model lacks: Pad's
optional axes). The one-node models are the backend node tests of libonnx-testdata and the
cases of tests/infer/newops/gen_models.py (their cache). Operators without such a model, or
where the loader disagrees, are listed and left out: the table keeps checking them widened.
Without --write, prints what it would write.
"""

import argparse
import copy
import glob
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "infer", "real"))
import gen_type_constraints as gtc  # noqa: E402  (from_onnx, from_newer, ELEM)
import probe_ort_types as pot  # noqa: E402  (create_sessions)
import verify_real as vr  # noqa: E402  (ensure_ort)

OUT = os.path.join(HERE, "data", "onnx_schemas_22_27.json")
# Operators whose versions of opsets 23-27 only took new element types, all in parameters that
# inputs use or in fixed types.
NEWER_TYPES = ["Flatten", "Pad", "Reshape", "Shape", "Size", "Squeeze", "Transpose", "Unsqueeze", "TopK", "Range"]
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
NAMES = {v: k for k, v in gtc.ELEM.items()}
COMPLEX = {14, 15}


def previous_versions():
    """(op -> row) of the newest default-domain version up to opset 21."""
    best = {}
    for row in gtc.from_onnx() + gtc.from_newer():
        d, name, since = row[0], row[1], row[2]
        if d == 0 and since <= 21 and (name not in best or since > best[name][2]):
            best[name] = row
    return best


def candidate(row, version):
    """The previous version's signature; at 22 with bfloat16 wherever float16 is allowed."""
    _, name, _, deprecated, ins, outs, cons, _ = row
    if deprecated:
        return None
    widened = {}
    for p, types in cons.items():
        types = list(types)
        if version == 22 and "tensor(float16)" in types and "tensor(bfloat16)" not in types:
            types.append("tensor(bfloat16)")
        widened[p] = types
    return {"domain": "", "op": name, "since_version": version, "inputs": copy.deepcopy(ins),
            "outputs": copy.deepcopy(outs), "constraints": widened}


def one_node_model(op, cache, opset):
    """A one-node model of `op` at `opset`: (ModelProto, node) or None."""
    import onnx
    paths = sorted(glob.glob(os.path.join(cache, "newops-models", op + "[0-9]*.onnx")))
    paths += sorted(glob.glob(os.path.join(NODE_TESTS, "test_" + op.lower() + "*", "model.onnx")))
    for p in paths:
        m = onnx.load(p)
        nodes = [n for n in m.graph.node if n.op_type != "Constant"]
        if len(nodes) != 1 or nodes[0].op_type != op or nodes[0].domain not in ("", "ai.onnx"):
            continue
        if any(n.op_type == "Constant" for n in m.graph.node):
            continue
        g = m.graph
        inits = {t.name: t for t in g.initializer}
        for nm in nodes[0].input:
            if nm in inits:
                t = inits[nm]
                g.input.append(onnx.helper.make_tensor_value_info(nm, t.data_type, list(t.dims)))
                g.initializer.remove(t)
        del g.value_info[:]
        for o in g.output:  # untyped: ONNX Runtime infers them (a declared type would clash when retyped)
            o.ClearField("type")
        for o in m.opset_import:
            if o.domain in ("", "ai.onnx"):
                o.version = opset
        if m.ir_version < 10:
            m.ir_version = 10
        return m, nodes[0]
    return None


def main():
    import onnx
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    with open(gtc.VERSIONS_PROBED) as f:
        resolved = json.load(f)
    # (operator, version): the versions of opset 22, and those of 23-27 of NEWER_TYPES.
    versions = sorted((op, 22) for op, at in resolved.items() if at.get("22") == 22)
    versions += sorted({(op, resolved[op][str(o)]) for op in NEWER_TYPES for o in range(23, 28)
                        if resolved.get(op, {}).get(str(o), 0) > 22})
    prev = previous_versions()
    with open(gtc.ATTRS_BEYOND) as f:
        beyond_names = json.load(f)
    ort_dir = vr.ensure_ort(args.cache)
    kept, left_out = [], []
    with tempfile.TemporaryDirectory(prefix="oxir-versions-") as tmp:
        jobs, meta, plans = [], {}, {}

        def add(key, model, what):
            fn = os.path.join(tmp, f"{len(jobs)}.onnx")
            onnx.save(model, fn)
            jobs.append({"name": fn, "model": fn, "runs": []})
            meta[fn] = (key, what)

        for key in versions:
            op, version = key
            if op not in prev or not (cand := candidate(prev[op], version)):
                left_out.append((key, "no previous version"))
                continue
            found = one_node_model(op, args.cache, version)
            if not found:
                left_out.append((key, "no one-node model"))
                continue
            m, node = found
            inputs = {i.name: i for i in m.graph.input}
            groups = {}
            for k, nm in enumerate(node.input):
                if not nm or nm not in inputs:
                    continue
                formal = cand["inputs"][min(k, len(cand["inputs"]) - 1)]
                if "(" in formal["type"]:
                    continue  # a literal type, not a parameter
                groups.setdefault(formal["type"], []).append(nm)
            if version > 22:
                used = {p["type"] for p in cand["inputs"] if "(" not in p["type"]}
                outputs_only = {p["type"] for p in cand["outputs"] if "(" not in p["type"]} - used
                # Output-only or unprobed parameters are kept from the previous version only where
                # they are index types (TopK's I, Shape's T1, Pad's Tind).
                index = {"tensor(int32)", "tensor(int64)"}
                if any(not set(cand["constraints"][p]) <= index for p in outputs_only | (used - set(groups))):
                    left_out.append((key, "a type parameter the one-node model cannot probe"))
                    continue
            plans[key] = (cand, groups)
            add(key, m, ("base",))
            for p, names in groups.items():
                for t in NAMES:
                    mm = copy.deepcopy(m)
                    for i in mm.graph.input:
                        if i.name in names:
                            i.type.tensor_type.elem_type = t
                    add(key, mm, ("group", p, t))
                if len(names) > 1:
                    base = inputs[names[0]].type.tensor_type.elem_type
                    other = [t for t in (1, 10, 11, 16, 7, 6) if t != base and f"tensor({NAMES[t]})" in cand["constraints"][p]]
                    if other:
                        mm = copy.deepcopy(m)
                        for i in mm.graph.input:
                            if i.name == names[0]:
                                i.type.tensor_type.elem_type = other[0]
                        add(key, mm, ("alone", p, other[0]))
        res = pot.create_sessions(jobs, tmp, ort_dir)
    results = {}
    # Kernel lookup and construction come after the loader's type check: the types passed.
    # So does onnxruntime-node's "Unsupported data type", raised when it lists the created
    # session's inputs (bfloat16 and float8 inputs it cannot represent in JavaScript).
    after_check = ("Could not find an implementation", "Failed to find kernel", "Exception during initialization",
                   "Unsupported data type")
    for fn, (key, what) in meta.items():
        err = res[fn].get("error", "")
        refused = "Type Error" in err and f"({key[0]})" in err
        other = bool(err) and not refused and not any(a in err for a in after_check)
        results.setdefault(key, []).append((what, refused, other, err))
    for key, (cand, groups) in plans.items():
        op, version = key
        rs = results[key]
        problems = []
        base = [x for x in rs if x[0] == ("base",)][0]
        if base[1] or base[2]:
            problems.append("the base model does not load: " + base[3][:200])
        for p, names in groups.items():
            want = {gtc.ELEM[t[len("tensor("):-1]] for t in cand["constraints"][p] if t.startswith("tensor(")}
            got = {w[2] for w, refused, other, _ in rs if w[:2] == ("group", p) and not refused and not other}
            odd = {w[2] for w, refused, other, _ in rs if w[:2] == ("group", p) and other} - COMPLEX
            for w, refused, other, err in rs:
                if w[:2] == ("group", p) and other and os.environ.get("OXIR_PROBE_TRACE"):
                    print(f"  {op}-{version} {p} {NAMES[w[2]]}: {err[:300]}")
            if version > 22:
                # The loader's set, in element-type order; complex types and any non-tensor types
                # as before.
                if odd:
                    problems.append(f"{p}: other errors for {sorted(odd)}")
                elif not (want - COMPLEX) <= got:
                    problems.append(f"{p}: ONNX Runtime no longer accepts {sorted((want - COMPLEX) - got)}")
                else:
                    keep = [t for t in cand["constraints"][p] if not t.startswith("tensor(") or
                            gtc.ELEM[t[len("tensor("):-1]] in COMPLEX]
                    cand["constraints"][p] = [f"tensor({NAMES[t]})" for t in sorted(got - COMPLEX)] + keep
            elif (want - COMPLEX) != (got - COMPLEX):
                problems.append(f"{p}: ONNX Runtime accepts {sorted(got - COMPLEX)}, candidate {sorted(want - COMPLEX)}"
                                + (f" (other errors for {sorted(odd)})" if odd else ""))
            for w, refused, other, err in rs:
                if w[:2] == ("alone", p) and not refused:
                    problems.append(f"{p}: {names[0]} alone as {NAMES[w[2]]} is accepted ({err[:120]})")
        if problems:
            left_out.append((key, "; ".join(problems)))
        else:
            if f"{op}@{version}" in beyond_names:
                cand["attributes"] = sorted(beyond_names[f"{op}@{version}"])
            kept.append(cand)
    for (op, version), why in left_out:
        print(f"left out {op}-{version}: {why}")
    print(f"{len(kept)} of {len(versions)} versions agree with ONNX Runtime: "
          f"{', '.join(c['op'] + '-' + str(c['since_version']) for c in kept)}")
    if args.write:
        with open(OUT, "w") as f:
            json.dump(kept, f, indent=1)
            f.write("\n")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
