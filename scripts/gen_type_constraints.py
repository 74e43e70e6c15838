#!/usr/bin/python3
"""Writes include/oxir/infer/type_constraints_data.hpp: the type signature (formal inputs and
outputs, type constraints) of every version of every standard operator, as data for the
type-constraint check of the inference engine (include/oxir/infer/type_constraints.hpp).

Sources (facts, not code):
  - Debian's python3-onnx 1.12 (`onnx.defs.get_all_schemas_with_history()`): every operator
    version up to opset 17 (ai.onnx), 3 (ai.onnx.ml) and 1 (ai.onnx.preview.training);
  - scripts/data/onnx_schemas_newer.json: the versions introduced after that, transcribed from
    onnx's docs/Changelog.md (the same fields: inputs, outputs, options, constraints), up to
    opset 21 and ai.onnx.ml 4: the table is complete up to there (kTypeTableNewest);
  - scripts/data/onnx_schemas_probed.json: operators new after opset 21 (Attention, RMSNormalization,
    RotaryEmbedding, Swish, TensorScatter). Their formal parameters are those of onnx's operator
    documentation; each type set is what ONNX Runtime 1.30's loader accepts for that parameter
    (scripts/probe_ort_types.py). These rows do not move kTypeTableNewest: other operators may
    have changed in those opsets, so models of opsets 22+ are still checked in widened mode,
    except for the versions kUnchangedThrough names;
  - scripts/data/onnx_schemas_22_27.json: versions of opsets 22-27 derived from the previous
    version and confirmed by ONNX Runtime 1.30's loader (scripts/probe_ort_new_versions.py): 41
    of the 44 versions of opset 22 (bfloat16 added to the float type sets), and Flatten, Pad,
    Reshape, Shape, Size, Squeeze, Transpose, Unsqueeze at 23-25, TopK-24 and Range-27 (new
    element types);
  - scripts/data/onnx_attributes_probed.json: the attribute names of the versions after opset 17
    (and ai.onnx.ml 3), as ONNX Runtime 1.30's loader answers them (scripts/probe_ort_attributes.py);
  - scripts/data/onnx_attributes_beyond.json: every operator's attribute names at each opset after
    the table's newest, up to opset 25 (probe_ort_attributes.py --beyond), for the
    second table (kAttributeNamesBeyond): which versions came after opset 21 is not known here,
    but which attribute names each opset's version defines is;
  - scripts/data/onnx_versions_probed.json: the version ONNX Runtime 1.30 resolves for each
    operator at each opset (scripts/probe_ort_versions.py), for the third table
    (kUnchangedThrough): up to which opset after the table's newest an operator's newest version
    up to it, or a version newer than it, is still the one in effect, so that models of those
    opsets are checked exactly;
  - scripts/data/ort_contrib_schemas.json: the input signatures of ONNX Runtime's contrib operators
    (domain com.microsoft, version 1) that oxir has rules for, as ONNX Runtime 1.30's loader
    checks them (scripts/probe_ort_contrib_types.py). Their outputs and attribute names are not
    described; an input position the probe never saw allows any type;
  - scripts/data/onnx_schemas_experimental.json: the experimental operators ONNX 1.5 removed
    (Affine, Crop, ImageScaler, ...: version 1, deprecated from 10) as ONNX Runtime 1.30 still
    defines them (its deprecated-operator schemas), and ConstantFill as onnx 1.4 defined it.

Run with Debian's interpreter:  /usr/bin/python3 scripts/gen_type_constraints.py
The output is committed; CI does not run this script.

Encoding of one signature string (parsed once by type_constraints.hpp):
    INPUTS ">" OUTPUTS "|" CONSTRAINTS
  INPUTS/OUTPUTS: space-separated formal parameters, each a constraint name or "=" followed by a
  type set (a literal type such as tensor(int64)), then an option: "" single, "?" optional,
  "*" variadic homogeneous, "+" variadic heterogeneous. A parameter without a type (contrib
  inputs never probed) allows every type.
  CONSTRAINTS: comma-separated NAME "=" TYPESET.
  TYPESET: one or more of  t<hex> (tensor element types, bit k = DataType k),  s<hex>
  (seq(tensor)),  o<hex> (optional(tensor)),  q<hex> (optional(seq(tensor))),  x (some type the
  check does not model: maps, sequences of maps, sparse tensors; values of those kinds pass).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "include", "oxir", "infer", "type_constraints_data.hpp")
NEWER = os.path.join(HERE, "data", "onnx_schemas_newer.json")
PROBED = os.path.join(HERE, "data", "onnx_schemas_probed.json")
NEWER_PROBED = os.path.join(HERE, "data", "onnx_schemas_22_27.json")
EXPERIMENTAL = os.path.join(HERE, "data", "onnx_schemas_experimental.json")
ATTRS_PROBED = os.path.join(HERE, "data", "onnx_attributes_probed.json")
ATTRS_BEYOND = os.path.join(HERE, "data", "onnx_attributes_beyond.json")
VERSIONS_PROBED = os.path.join(HERE, "data", "onnx_versions_probed.json")
CONTRIB = os.path.join(HERE, "data", "ort_contrib_schemas.json")
# Versions whose attribute names the probe cannot see and the changelog says did not change: they
# keep the previous version's names. ONNX Runtime turns Constant nodes into initializers before
# it checks attributes; Constant-19 and -21 only widened the types.
SAME_NAMES_AS_PREVIOUS = {("Constant", 19), ("Constant", 21)}
# The same for the per-opset names after the table: Constant-23, -24 and -25 only widened the
# types (onnx's changelog; 1.20's release notes for 25).
SAME_NAMES_BEYOND = {"Constant": range(22, 26)}
# The newest opset of each domain whose names the per-opset table extends to through
# onnx_versions_probed.json (past the probed names: ONNX Runtime 1.30 knows ai.onnx 26 and 27).
NAMES_EXTEND_TO = {0: 27, 1: 5, 2: 1, 3: 1}

ELEM = {"float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "string": 8,
        "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13, "complex64": 14, "complex128": 15,
        "bfloat16": 16, "float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20,
        "uint4": 21, "int4": 22, "float4e2m1": 23, "float8e8m0": 24, "uint2": 25, "int2": 26}
DOMAINS = {"": 0, "ai.onnx": 0, "ai.onnx.ml": 1, "ai.onnx.preview.training": 2, "com.microsoft": 3}
ANY_TYPE = "t7fffffes7fffffeo7fffffeq7fffffex"  # every element type in every container, and the rest


def classify(t):
    """('t'|'s'|'o'|'q', elem bit) or ('x', None) for a type string such as seq(tensor(float))."""
    t = t.replace(" ", "")
    for kind, pat in (("t", r"tensor\((\w+)\)"), ("s", r"seq\(tensor\((\w+)\)\)"),
                      ("o", r"optional\(tensor\((\w+)\)\)"), ("q", r"optional\(seq\(tensor\((\w+)\)\)\)")):
        m = re.fullmatch(pat, t)
        if m:
            if m.group(1) not in ELEM:
                raise SystemExit(f"unknown element type in {t!r}")
            return kind, ELEM[m.group(1)]
    if re.fullmatch(r"(seq\()?map\(\w+,\w+\)\)?|sparse_tensor\(\w+\)", t):
        return "x", None
    raise SystemExit(f"unknown type string {t!r}")


def typeset(types):
    masks = {}
    other = False
    for t in types:
        kind, bit = classify(t)
        if kind == "x":
            other = True
        else:
            masks[kind] = masks.get(kind, 0) | (1 << bit)
    s = "".join(f"{k}{masks[k]:x}" for k in "tsoq" if k in masks)
    return s + ("x" if other else "")


def is_literal(t):
    return "(" in t


def param(p):
    """p: dict(type, option, homogeneous) -> token."""
    if p["type"] is None:
        ref = "=" + ANY_TYPE
    else:
        ref = "=" + typeset([p["type"]]) if is_literal(p["type"]) else p["type"]
    opt = {"single": "", "optional": "?"}.get(p["option"])
    if opt is None:
        opt = "*" if p["homogeneous"] else "+"
    return ref + opt


def signature(inputs, outputs, constraints):
    names = set(constraints)
    for p in inputs + outputs:
        if p["type"] is None:
            continue
        if not is_literal(p["type"]) and p["type"] not in names:
            raise SystemExit(f"type {p['type']} has no constraint")
        if "," in p["type"] or " " in p["type"] or "|" in p["type"] or ">" in p["type"]:
            raise SystemExit(f"unencodable name {p['type']}")
    cons = ",".join(f"{n}={typeset(ts)}" for n, ts in constraints.items())
    return " ".join(param(p) for p in inputs) + ">" + " ".join(param(p) for p in outputs) + "|" + cons


def from_onnx():
    from onnx import defs
    opt_name = {defs.OpSchema.FormalParameterOption.Single: "single",
                defs.OpSchema.FormalParameterOption.Optional: "optional",
                defs.OpSchema.FormalParameterOption.Variadic: "variadic"}
    rows = []
    for s in defs.get_all_schemas_with_history():
        if s.domain not in DOMAINS:
            continue

        def params(ps):
            return [{"type": p.typeStr, "option": opt_name[p.option], "homogeneous": bool(p.isHomogeneous)}
                    for p in ps]
        cons = {tc.type_param_str: list(tc.allowed_type_strs) for tc in s.type_constraints}
        rows.append((DOMAINS[s.domain], s.name, s.since_version, bool(s.deprecated),
                     params(s.inputs), params(s.outputs), cons, sorted(s.attributes)))
    return rows


def from_newer(path=NEWER):
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for e in json.load(f):
            if e.get("deprecated"):
                rows.append((DOMAINS[e["domain"]], e["op"], int(e["since_version"]), True, [], [], {}, None))
                continue
            cons = {k: list(v) for k, v in e["constraints"].items()}
            attrs = sorted(e["attributes"]) if "attributes" in e else None
            rows.append((DOMAINS[e["domain"]], e["op"], int(e["since_version"]), False,
                         e["inputs"], e["outputs"], cons, attrs))
    return rows


def main():
    import onnx
    old = from_onnx()
    newer = from_newer()
    probed = from_newer(PROBED) + from_newer(NEWER_PROBED)
    experimental = from_newer(EXPERIMENTAL)
    contrib = from_newer(CONTRIB)
    have = {(d, n, v) for d, n, v, *_ in old}
    rows = old + [r for r in newer + probed + experimental + contrib if (r[0], r[1], r[2]) not in have]
    rows.sort(key=lambda r: (r[1], r[0], r[2]))
    newest = {0: 17, 1: 3, 2: 1, 3: 1}
    for d, n, v, *_ in newer:
        newest[d] = max(newest[d], v)
    with open(ATTRS_PROBED) as f:
        attrs_probed = json.load(f)
    domain_names = {0: "", 1: "@ai.onnx.ml", 2: "@ai.onnx.preview.training", 3: "@com.microsoft"}
    lines = []
    prev = {}
    for d, name, since, deprecated, ins, outs, cons, attrs in rows:
        if attrs is None and not deprecated:
            key = f"{name}-{since}{domain_names[d]}"
            if key in attrs_probed:
                attrs = sorted(attrs_probed[key])
            elif (name, since) in SAME_NAMES_AS_PREVIOUS and d == 0:
                attrs = prev[(d, name)]
        prev[(d, name)] = None if deprecated else attrs  # after the loop: each operator's newest names
        sig = "" if deprecated else signature(ins, outs, cons)
        names = "nullptr" if attrs is None or deprecated else '"' + " ".join(attrs) + '"'
        lines.append(f'    {{"{name}", {since}, {d}, "{sig}", {names}}},')
    with open(ATTRS_BEYOND) as f:
        beyond = json.load(f)
    domain_index = {"": 0, "ai.onnx.ml": 1, "ai.onnx.preview.training": 2}
    by_op = {}
    for key, names in beyond.items():
        op, opset, *dom = key.split("@")
        by_op.setdefault((domain_index[dom[0] if dom else ""], op), []).append((int(opset), sorted(names)))
    for op, opsets in SAME_NAMES_BEYOND.items():
        for o in opsets:
            by_op.setdefault((0, op), []).append((o, prev[(0, op)]))
    # Past the probed names (ONNX Runtime knows opsets 26 and 27, ONNX 1.21 and 1.22): an operator
    # keeps its names of the last probed opset wherever ONNX Runtime resolves the same version as
    # there; from where it gave no answer, or a different version, its names are not known.
    with open(VERSIONS_PROBED) as f:
        resolved = json.load(f)
    for (d, op), versions in by_op.items():
        last = max(o for o, _ in versions)
        at = resolved.get(op + domain_names[d], {})
        names = dict(versions)[last]
        for o in range(last + 1, NAMES_EXTEND_TO[d] + 1):
            same = names is not None and at.get(str(last)) is not None and at.get(str(last)) == at.get(str(o))
            names = names if same else None
            versions.append((o, names))
    horizon = dict(newest)
    for (d, op), versions in by_op.items():
        horizon[d] = max([horizon[d]] + [o for o, _ in versions])
    beyond_lines = []
    for (d, op), versions in sorted(by_op.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        at = dict(versions)
        last = None
        for opset in range(newest[d] + 1, horizon[d] + 1):
            names = at.get(opset)
            if names != last:
                text = "nullptr" if names is None else '"' + " ".join(names) + '"'
                beyond_lines.append(f'    {{"{op}", {opset}, {d}, {text}}},')
                last = names
    # Up to which opset after the table's newest a version is still the one ONNX Runtime resolves
    # (every opset in between answered, all with that version): the newest version of the table's
    # opsets, from the opset after them, and every version newer than them (probed signatures),
    # from its own opset.
    newest_row = {}
    for d, name, since, deprecated, *_ in rows:
        if since <= newest[d] and ((d, name) not in newest_row or since > newest_row[(d, name)][0]):
            newest_row[(d, name)] = (since, deprecated)
    unchanged_lines = []
    for d, name, since, deprecated, *_ in sorted(rows, key=lambda r: (r[1], r[0], r[2])):
        if deprecated or (since <= newest[d] and newest_row.get((d, name), (None,))[0] != since):
            continue
        at = resolved.get(name + domain_names[d], {})
        first = max(since, newest[d] + 1)
        o = first
        # An operator's first version is the one in effect at the opset that introduced it,
        # whether ONNX Runtime answered there or not (it inlines function-defined operators such
        # as LinearAttention-27 before its schema check leaves a trace).
        if since >= first and not any(r[1] == name and r[0] == d and r[2] < since for r in rows):
            o = first + 1
        while at.get(str(o)) == since:
            o += 1
        if o > first:
            unchanged_lines.append(f'    {{"{name}", {d}, {since}, {o - 1}}},')
    with open(OUT, "w") as f:
        f.write("#pragma once\n")
        f.write("// Generated by scripts/gen_type_constraints.py from python3-onnx "
                f"{onnx.__version__}'s schemas and scripts/data/onnx_schemas_newer.json. Do not edit.\n")
        f.write("// One row per operator version: op, since_version, domain (0 ai.onnx, 1 ai.onnx.ml,\n")
        f.write("// 2 ai.onnx.preview.training, 3 com.microsoft), signature (format in the script; \"\" = deprecated),\n")
        f.write("// attribute names (onnx 1.12's schemas, the experimental operators, ONNX Runtime's loader for\n")
        f.write("// the newer versions; nullptr where not known).\n\n")
        f.write("#include <cstdint>\n\nnamespace oxir::infer::detail {\n\n")
        f.write("struct TypeSignatureRow {\n  const char* op;\n  std::uint16_t since;\n  std::uint8_t domain;\n"
                "  const char* signature;\n"
                "  const char* attributes;  ///< the version's attribute names, space-separated; nullptr: not known\n"
                "};\n\n")
        f.write("/// The newest version of each domain the table knows (ai.onnx, ai.onnx.ml, training, com.microsoft).\n")
        f.write("inline constexpr std::int64_t kTypeTableNewest[4] = {"
                f"{newest[0]}, {newest[1]}, {newest[2]}, {newest[3]}}};\n\n")
        f.write("inline constexpr TypeSignatureRow kTypeSignatures[] = {\n")
        f.write("\n".join(lines) + "\n};\n\n")
        f.write("/// Attribute names after kTypeTableNewest, per opset (ONNX Runtime's loader): a row holds from\n"
                "/// opset `from` until the operator's next row; nullptr: not known there (the loader does not\n"
                "/// define the operator at that opset). Operators without rows are not checked.\n")
        f.write("struct AttributeNamesRow {\n  const char* op;\n  std::uint16_t from;\n  std::uint8_t domain;\n"
                "  const char* attributes;\n};\n\n")
        f.write("/// The newest opset of each domain kAttributeNamesBeyond covers.\n")
        f.write("inline constexpr std::int64_t kAttributeNamesHorizon[4] = {"
                f"{horizon[0]}, {horizon[1]}, {horizon[2]}, {horizon[3]}}};\n\n")
        f.write("inline constexpr AttributeNamesRow kAttributeNamesBeyond[] = {\n")
        f.write("\n".join(beyond_lines) + "\n};\n\n")
        f.write("/// Versions above that ONNX Runtime 1.30 still resolves at every opset after kTypeTableNewest\n"
                "/// (or after their own, for versions newer than it) up to `through` (scripts/probe_ort_versions.py):\n"
                "/// models importing those opsets are checked against that version exactly. Versions without a row\n"
                "/// are not known there.\n")
        f.write("struct UnchangedRow {\n  const char* op;\n  std::uint8_t domain;\n  std::uint16_t since;\n"
                "  std::uint16_t through;\n};\n\n")
        f.write("inline constexpr UnchangedRow kUnchangedThrough[] = {\n")
        f.write("\n".join(unchanged_lines) + "\n};\n\n}  // namespace oxir::infer::detail\n")
    print(f"{len(rows)} operator versions ({len(old)} from onnx {onnx.__version__}, "
          f"{len(rows) - len(old)} newer) -> {OUT}; newest {newest}")


if __name__ == "__main__":
    sys.exit(main())
