#!/usr/bin/python3
"""Finds the type sets of operators new after opset 21 that ONNX Runtime's loader accepts, for
scripts/data/onnx_schemas_probed.json (python3-onnx 1.12 has no schema for them, and no stored
copy of onnx's changelog reaches them).

    /usr/bin/python3 scripts/probe_ort_types.py [--cache ~/.cache/oxir]

Takes single-operator models written by tests/infer/newops/gen_models.py, turns each input of the
operator into a graph input, and for each group of inputs that share a type parameter tries every
element type (all inputs of the group together) in ONNX Runtime (npm onnxruntime-node, installed
into the cache as for the inference tests; sessions are only created, never run). A type is
rejected when the loader says the operator's own parameter does not allow it; errors of the
operator's function body or of a missing kernel mean the operator's schema accepted it. Prints,
per operator and group, the accepted element types.
"""

import argparse
import collections
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "infer", "real"))
import verify_real as vr  # noqa: E402  (ensure_ort)

NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
         9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
         16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
         21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2", 26: "int2"}

# gen_models.py case -> (operator, opset override or None, groups of operator input indices that
# share a type parameter, extra inputs to append: (index, name, elem type, dims)).
CASES = [
    ("Swish24", None, [[0]], []),
    ("RMSNormalization23", None, [[0], [1]], []),
    ("RotaryEmbedding23_3d", None, [[0, 1, 2], [3]], []),
    ("TensorScatter24", None, [[0, 1], [2]], []),
    ("Attention24_mask_causal", 23, [[0, 1], [2], [3]], []),
    ("Attention23_present", None, [[0, 1, 4], [2, 5]], []),
    ("Attention24_mask_causal", None, [[0, 1], [2], [3], [6]], [(6, "nps", 7, ["B"])]),
    ("LinearAttention27_gated_delta_past", None, [[0, 1, 2, 4, 5], [3]], []),
    ("CausalConvWithState27_bias_past_silu", None, [[0, 1, 2, 3]], []),
]


def create_sessions(jobs, tmp, ort_dir):
    """Creates an ONNX Runtime session for each job ({"name", "model", "runs": []}) in one node
    process (tests/infer/newops/run_ort_batch.js); returns {name: {} or {"error": message}}."""
    jp = os.path.join(tmp, "jobs.json")
    with open(jp, "w") as f:
        json.dump(jobs, f)
    r = subprocess.run(["node", os.path.join(ROOT, "tests", "infer", "newops", "run_ort_batch.js"), jp],
                       capture_output=True, text=True, check=True,
                       # opset 27 loads only with this set (ONNX Runtime 1.30 calls it "under development")
                       env=dict(os.environ, OXIR_ORT_DIR=ort_dir, ALLOW_RELEASED_ONNX_OPSET_ONLY="0"))
    return json.loads(r.stdout)


def main():
    import onnx
    from onnx import helper
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    args = ap.parse_args()
    ort_dir = vr.ensure_ort(args.cache)
    with tempfile.TemporaryDirectory(prefix="oxir-probe-") as tmp:
        gen = os.path.join(tmp, "gen")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "infer", "newops", "gen_models.py"), gen],
                       check=True, capture_output=True, env=dict(os.environ, OXIR_PROGRAMS="0"))
        jobs, meta = [], {}
        for case, opset, groups, extra in CASES:
            m = onnx.load(os.path.join(gen, case + ".onnx"))
            if opset:
                for o in m.opset_import:
                    if o.domain in ("", "ai.onnx"):
                        o.version = opset
            g = m.graph
            node = g.node[-1]
            for idx, name, elem, dims in extra:
                while len(node.input) < idx:
                    node.input.append("")
                node.input.append(name)
                g.input.append(helper.make_tensor_value_info(name, elem, dims))
            inits = {i.name: i for i in g.initializer}
            for nm in node.input:
                if nm in inits:
                    t = inits[nm]
                    g.input.append(helper.make_tensor_value_info(nm, t.data_type, list(t.dims)))
                    g.initializer.remove(t)
            label = f"{node.op_type}-{opset or max(o.version for o in m.opset_import if o.domain in ('', 'ai.onnx'))}"
            for grp in groups:
                names = [node.input[k] for k in grp if k < len(node.input) and node.input[k]]
                for t in NAMES:
                    mm = copy.deepcopy(m)
                    for i in mm.graph.input:
                        if i.name in names:
                            i.type.tensor_type.elem_type = t
                    fn = os.path.join(tmp, f"{len(jobs)}.onnx")
                    onnx.save(mm, fn)
                    jobs.append({"name": fn, "model": fn, "runs": []})
                    meta[fn] = (label, node.op_type, tuple(grp), tuple(names), t)
        res = create_sessions(jobs, tmp, ort_dir)
    accepted = collections.defaultdict(list)
    for fn, (label, op, grp, names, t) in meta.items():
        err = res[fn].get("error", "")
        own = f"of operator ({op})" in err or any(f"input parameter ({n})" in err for n in names)
        if not own:
            accepted[(label, grp, names)].append(NAMES[t])
    for (label, grp, names), types in accepted.items():
        print(f"{label} inputs {list(grp)} {list(names)}: {', '.join(types)}")


if __name__ == "__main__":
    main()
