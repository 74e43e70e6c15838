#!/usr/bin/python3
"""Finds the attribute names of the operator versions newer than python3-onnx 1.12 knows (the
type table's rows after opset 17 and ai.onnx.ml 3), for scripts/data/onnx_attributes_probed.json.

    /usr/bin/python3 scripts/probe_ort_attributes.py [--cache ~/.cache/oxir] [--out FILE]

For each such version, builds one single-node model per candidate name: the node has one input
per formal input and one output per formal output (the signature in the generated table), and
the candidate as an int attribute. ONNX Runtime's loader (npm onnxruntime-node; sessions are only
created) checks a node's attribute names against the version's schema before anything else it
could object to here, and says "Unrecognized attribute: NAME" exactly when the version does not
define NAME. Every other answer (a type mismatch, a missing required attribute, a failed type
inference, success) means the name is defined.

The candidates are every attribute name any operator version in the table has (onnx 1.12's
schemas, the experimental operators), plus the names the versions after opset 17 introduced
(NEW_NAMES below, from onnx's docs/Changelog.md). A control name no version defines must
come back unrecognized; a version where it does not (the loader refused the node for another
reason first) is left out.
"""

import argparse
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

TABLE = os.path.join(ROOT, "include", "oxir", "infer", "type_constraints_data.hpp")
CONTRIB = os.path.join(HERE, "data", "ort_contrib_schemas.json")
# Opsets probed by --beyond: after the table's newest, up to opset 25 (ONNX 1.20, whose release
# notes list the operators it changed: types only). ONNX Runtime 1.30 also knows opset 26, but
# nothing here says whether ONNX 1.21 added attribute names no candidate list has.
BEYOND = {0: (22, 25), 1: (5, 5)}
ONNX_112_NEWEST = {0: 17, 1: 3, 2: 1}
CONTROL = "oxir_no_such_attribute"  # must come back unrecognized, or the version's probe says nothing
DOMAIN_NAMES = {0: "", 1: "ai.onnx.ml", 2: "ai.onnx.preview.training"}
DOMAIN_INDEX = {"": 0, "com.microsoft": 3}  # the domains of ort_contrib_schemas.json

# Attribute names introduced after opset 17 (onnx's changelog), so that they are candidates even
# where no older operator version has them.
NEW_NAMES = """
antialias keep_aspect_ratio_policy num_outputs saturate round_mode block_size output_dtype precision
stash_type num_groups approximate detect_negative detect_positive pixel_format pattern delimiter
maxsplit is_causal kv_num_heads q_num_heads qk_matmul_output_mode scale softcap softmax_precision
interleaved num_heads rotary_embedding_dim offset_group inverse onesided align_corners padding_mode
default_tensor keys_tensor values_tensor keys_floats keys_int64s keys_strings values_floats
values_int64s values_strings default_float default_int64 default_string axis axes mode alpha
dilations pads strides kernel_shape group ceil_mode count_include_pad p epsilon to value
value_float value_floats value_int value_ints value_string value_strings sparse_value then_branch
else_branch body num_scan_inputs scan_input_axes scan_input_directions scan_output_axes
scan_output_directions allowzero start end perm coordinate_transformation_mode cubic_coeff_a
exclude_outside extrapolation_value nearest_mode reduction keepdims noop_with_empty_axes
""".split()


def parse_table():
    """Rows (op, since, domain, signature, attributes or None) of the generated table's standard
    operators: not ONNX Runtime's contrib operators (domain 3, com.microsoft, and those it defines
    in the default domain), which scripts/probe_ort_contrib_types.py probes."""
    with open(CONTRIB) as f:
        contrib = {(DOMAIN_INDEX[e["domain"]], e["op"]) for e in json.load(f)}
    rows = []
    pat = re.compile(r'\{"(\w+)", (\d+), (\d), "([^"]*)", (nullptr|"[^"]*")\}')
    with open(TABLE) as f:
        for line in f:
            m = pat.search(line)
            if m and (int(m.group(3)), m.group(1)) not in contrib and int(m.group(3)) in DOMAIN_NAMES:
                attrs = None if m.group(5) == "nullptr" else m.group(5).strip('"')
                rows.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), attrs))
    return rows


def formal_counts(signature):
    """(inputs, outputs) to give a node: one per formal parameter, variadic ones once."""
    params = signature.split("|")[0]
    ins, outs = params.split(">")
    return len(ins.split()), len(outs.split())


def run_split(script, items, parts, tmp, ort_dir):
    """Runs `node script JOBS.json` on `parts` slices of `items` at once (each slice a JSON list in
    tmp) and merges the JSON objects they print."""
    procs = []
    for k in range(parts):
        jp = os.path.join(tmp, f"jobs{k}.json")
        with open(jp, "w") as f:
            json.dump(items[k::parts], f)
        procs.append(subprocess.Popen(["node", script, jp], stdout=subprocess.PIPE, text=True,
                                      # ONNX Runtime 1.30 loads opset 27 (ONNX 1.22, "under
                                      # development" to it) only with this set.
                                      env=dict(os.environ, OXIR_ORT_DIR=ort_dir,
                                               ALLOW_RELEASED_ONNX_OPSET_ONLY="0")))
    res = {}
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"{os.path.basename(script)} failed")
        res.update(json.loads(out))
    return res


def main():
    import onnx
    from onnx import helper, TensorProto
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    ap.add_argument("--out", help="default: scripts/data/onnx_attributes_probed.json, or "
                    "onnx_attributes_beyond.json with --beyond")
    ap.add_argument("--beyond", action="store_true",
                    help="probe every operator of the table at the opsets after the table's newest "
                    f"(ai.onnx {BEYOND[0][0]}-{BEYOND[0][1]}, ai.onnx.ml {BEYOND[1][0]}-{BEYOND[1][1]}): "
                    "keys are OP@OPSET[@DOMAIN]")
    ap.add_argument("--jobs", type=int, default=2, help="ONNX Runtime processes in parallel")
    args = ap.parse_args()
    args.out = args.out or os.path.join(
        HERE, "data", "onnx_attributes_beyond.json" if args.beyond else "onnx_attributes_probed.json")
    rows = parse_table()
    pool = set(NEW_NAMES)
    for r in rows:
        if r[4]:
            pool.update(r[4].split())
    pool = sorted(pool) + [CONTROL]
    if args.beyond:
        versions = {}
        for r in rows:
            versions.setdefault((r[2], r[0]), []).append(r)
        todo = []
        for (domain, op), vs in sorted(versions.items()):
            if domain not in BEYOND or not vs[-1][3]:
                continue
            lo, hi = BEYOND[domain]
            for o in range(lo, hi + 1):
                # the formal parameters of the newest version the table has at that opset
                sig = max((r for r in vs if r[1] <= o), key=lambda r: r[1], default=vs[-1])[3]
                todo.append((op, o, domain, sig, None))
    else:
        # the versions after python3-onnx 1.12's newest (whatever names the table has for them now)
        todo = [r for r in rows if r[1] > ONNX_112_NEWEST[r[2]] and r[3]]
    ort_dir = vr.ensure_ort(args.cache)
    jobs, meta = [], {}
    with tempfile.TemporaryDirectory(prefix="oxir-probe-attr-") as tmp:
        for op, since, domain, sig, _ in todo:
            n_in, n_out = formal_counts(sig)
            for name in pool:
                ins = [f"x{i}" for i in range(n_in)]
                outs = [f"y{i}" for i in range(n_out)]
                node = helper.make_node(op, ins, outs, domain=DOMAIN_NAMES[domain])
                node.attribute.append(helper.make_attribute(name, 1))
                graph = helper.make_graph(
                    [node], "probe", [helper.make_tensor_value_info(x, TensorProto.FLOAT, None) for x in ins],
                    [helper.make_tensor_value_info(y, TensorProto.FLOAT, None) for y in outs])
                opsets = [helper.make_opsetid(DOMAIN_NAMES[domain], since)]
                if domain != 0:
                    opsets.append(helper.make_opsetid("", 21))

                model = helper.make_model(graph, opset_imports=opsets)
                model.ir_version = 10
                fn = os.path.join(tmp, f"{len(jobs)}.onnx")
                onnx.save(model, fn)
                jobs.append({"name": fn, "model": fn, "runs": []})
                meta[fn] = (op, since, domain, name)
        res = run_split(os.path.join(ROOT, "tests", "infer", "newops", "run_ort_batch.js"), jobs, args.jobs, tmp,
                        ort_dir)
    found = {}
    unsupported = set()
    for fn, (op, since, domain, name) in meta.items():
        key = (f"{op}@{since}" if args.beyond else f"{op}-{since}") + (f"@{DOMAIN_NAMES[domain]}" if domain else "")
        err = res[fn].get("error", "")
        found.setdefault(key, [])
        if "Unrecognized attribute" in err:
            continue
        if name == CONTROL:
            unsupported.add(key)
            print(f"{key}: the control name was not refused: {err[:300]}")
            continue
        found[key].append(name)
    for key in sorted(found):
        if key in unsupported:
            print(f"{key}: ONNX Runtime does not know this version; left out")
        else:
            print(f"{key}: {' '.join(found[key]) or '(none)'}")
    out = {k: v for k, v in sorted(found.items()) if k not in unsupported}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(out)} versions written to {args.out}; {len(unsupported)} unknown to ONNX Runtime")


if __name__ == "__main__":
    main()
