#!/usr/bin/python3
"""oxir::check against onnx 1.12's checker (onnx.checker.check_model).

Every libonnx-testdata model as shipped, and every fourth one with each structural mutation
below applied (one at a time), is checked by both. The verdicts (passes / fails) must agree,
except for the mutations where they differ by design:

  onnx_only  operator-schema rules, which oxir leaves to infer_shapes (unknown operators and
             attributes, a required output left empty) and onnx's own IR-version ceiling;
  oxir_only  rules onnx 1.12 does not check: graph outputs nothing defines, attribute references
             outside a function body.

usage: verify_check.py --batch build/bin/check_batch [--every N] [-v]
Prints "SKIPPED: ..." and exits 0 without Debian's python3-onnx or the corpus.
"""
import argparse, copy, os, subprocess, sys, tempfile

CORPUS = "/usr/share/libonnx-testdata/data"
try:
    import onnx
    from onnx import checker, helper as h, TensorProto as T
except Exception as e:  # noqa: BLE001
    print(f"SKIPPED: python3-onnx unavailable ({e})")
    sys.exit(0)


def first_attr_node(g):
    return next((n for n in g.node if len(n.attribute)), None)


def subgraph_of(g):
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                return a.g
    return None


def outer_name(m):
    return m.graph.input[0].name if m.graph.input else (m.graph.initializer[0].name if m.graph.initializer else None)


def need(x):
    if not x:
        raise LookupError("not applicable")
    return x


def remove_input(c, name):
    c.graph.input.remove(next(i for i in c.graph.input if i.name == name))


# name -> (expectation, mutation). Expectations: "agree", "onnx_only", "oxir_only".
MUTATIONS = {
    "no_ir_version": ("agree", lambda c: c.ClearField("ir_version")),
    "no_opset_import": ("agree", lambda c: c.ClearField("opset_import")),
    "opset_imported_twice_same_version": ("agree", lambda c: c.opset_import.append(copy.deepcopy(c.opset_import[0]))),
    "default_opset_version_0": ("agree", lambda c: [setattr(o, "version", 0) for o in c.opset_import if o.domain in ("", "ai.onnx")]),
    "graph_name_empty": ("agree", lambda c: setattr(c.graph, "name", "")),
    "input_no_type": ("agree", lambda c: need(c.graph.input)[0].ClearField("type")),
    "input_no_shape": ("agree", lambda c: need(c.graph.input)[0].type.tensor_type.ClearField("shape")),
    "output_no_type": ("agree", lambda c: c.graph.output[0].ClearField("type")),
    "output_no_shape": ("agree", lambda c: c.graph.output[0].type.tensor_type.ClearField("shape")),
    "op_type_empty": ("agree", lambda c: setattr(c.graph.node[0], "op_type", "")),
    "domain_not_imported": ("agree", lambda c: setattr(c.graph.node[0], "domain", "com.example.none")),
    "custom_domain_imported": ("agree", lambda c: (setattr(c.graph.node[0], "domain", "com.example"),
                                                   c.opset_import.append(h.make_opsetid("com.example", 1)))),
    "input_undefined": ("agree", lambda c: need([n for n in c.graph.node if n.input])[0].input.__setitem__(0, "__nowhere")),
    "input_defined_later": ("agree", lambda c: (c.graph.node.insert(0, h.make_node("Relu", ["__late"], ["__r0"])),
                                                c.graph.node.append(h.make_node("Relu", [need(outer_name(c))], ["__late"])))),
    "nodes_reversed": ("agree", lambda c: (need(len(c.graph.node) > 1), c.graph.node.reverse()) if any(
        i in {o for n in c.graph.node for o in n.output} for n in c.graph.node for i in n.input) else need(False)),
    "graph_input_twice": ("agree", lambda c: c.graph.input.append(copy.deepcopy(need(c.graph.input)[0]))),
    "node_output_is_graph_input": ("agree", lambda c: c.graph.node[-1].output.__setitem__(0, need(c.graph.input)[0].name)),
    "node_output_twice": ("agree", lambda c: c.graph.node.append(h.make_node(
        "Identity", [need(outer_name(c))], [need([o for n in c.graph.node for o in n.output if o])[0]]))),
    "node_without_outputs": ("agree", lambda c: c.graph.node.append(h.make_node("Relu", [need(outer_name(c))], []))),
    "dangling_node": ("agree", lambda c: c.graph.node.append(h.make_node("Relu", ["__nowhere"], ["__r1"]))),
    "node_names_repeated": ("agree", lambda c: [setattr(n, "name", "same") for n in c.graph.node]),
    "attribute_twice": ("agree", lambda c: need(first_attr_node(c.graph)).attribute.append(copy.deepcopy(first_attr_node(c.graph).attribute[0]))),
    "attribute_name_empty": ("agree", lambda c: setattr(need(first_attr_node(c.graph)).attribute[0], "name", "")),
    "attribute_type_undefined": ("agree", lambda c: setattr(need(first_attr_node(c.graph)).attribute[0], "type", 0)),
    "attribute_type_wrong": ("agree", lambda c: (lambda a: setattr(a, "type", 1 if a.type != 1 else 2))(need(first_attr_node(c.graph)).attribute[0])),
    "initializer_type_undefined": ("agree", lambda c: setattr(need(c.graph.initializer)[0], "data_type", 0)),
    "initializer_twice": ("agree", lambda c: c.graph.initializer.append(copy.deepcopy(need(c.graph.initializer)[0]))),
    "initializer_name_empty": ("agree", lambda c: setattr(need(c.graph.initializer)[0], "name", "")),
    "initializer_not_input_ir3": ("agree", lambda c: (setattr(c, "ir_version", 3), remove_input(c, need(c.graph.initializer)[0].name))),
    "initializer_not_input_ir4": ("agree", lambda c: (setattr(c, "ir_version", 4), remove_input(c, need(c.graph.initializer)[0].name))),
    "value_info_untyped": ("agree", lambda c: c.graph.value_info.append(onnx.ValueInfoProto(name="__vi"))),
    "graph_output_twice": ("agree", lambda c: c.graph.output.append(copy.deepcopy(c.graph.output[0]))),
    "subgraph_name_empty": ("agree", lambda c: setattr(need(subgraph_of(c.graph)), "name", "")),
    "subgraph_input_undefined": ("agree", lambda c: need([n for n in need(subgraph_of(c.graph)).node if n.input])[0].input.__setitem__(0, "__nowhere")),
    "subgraph_output_redefines_outer": ("agree", lambda c: need(subgraph_of(c.graph)).node.append(
        h.make_node("Identity", [need(outer_name(c))], [need(outer_name(c))]))),
    "subgraph_reads_outer": ("agree", lambda c: need(subgraph_of(c.graph)).node.append(
        h.make_node("Identity", [need(outer_name(c))], ["__copy"]))),
    "unknown_operator": ("onnx_only", lambda c: setattr(need([n for n in c.graph.node if n.domain in ("", "ai.onnx")])[0],
                                                        "op_type", "NoSuchOperator")),
    "unknown_attribute": ("onnx_only", lambda c: c.graph.node[0].attribute.append(h.make_attribute("zz_no_such_attribute", 1))),
    "ir_version_99": ("onnx_only", lambda c: setattr(c, "ir_version", 99)),
    "graph_output_undefined": ("oxir_only", lambda c: setattr(c.graph.output[0], "name", "__nowhere")),
    "attribute_reference_in_graph": ("oxir_only", lambda c: setattr(need(first_attr_node(c.graph)).attribute[0], "ref_attr_name", "x")),
}


def onnx_verdict(m):
    try:
        checker.check_model(m)
        return "ok", ""
    except Exception as e:  # noqa: BLE001
        return "FAIL", str(e).split("\n")[0][:200]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", required=True)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(CORPUS):
        print(f"SKIPPED: {CORPUS} not found (Debian's libonnx-testdata)")
        return 0
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(CORPUS) for f in fs if f.endswith(".onnx"))
    cases = []  # (path on disk, model name, mutation, expectation, onnx verdict, onnx message)
    with tempfile.TemporaryDirectory(prefix="oxir-check-") as tmp:
        for k, path in enumerate(files):
            m = onnx.load(path)
            v, msg = onnx_verdict(m)
            cases.append((path, path, "as_shipped", "agree", v, msg))
            if k % a.every:
                continue
            for name, (expect, f) in MUTATIONS.items():
                c = copy.deepcopy(m)
                try:
                    f(c)
                except (LookupError, IndexError, StopIteration, AttributeError):
                    continue
                out = os.path.join(tmp, f"{k}_{name}.onnx")
                with open(out, "wb") as fh:
                    fh.write(c.SerializeToString())
                v, msg = onnx_verdict(c)
                cases.append((out, path, name, expect, v, msg))
        proc = subprocess.run([a.batch, "--stdin"], input="\n".join(c[0] for c in cases), capture_output=True, text=True,
                              check=True)
    ours = {}
    for line in proc.stdout.splitlines():
        parts = line.split("\t")
        ours[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    per = {}
    bad = []
    for path, model, name, expect, v, msg in cases:
        ov, omsg = ours[path]
        if ov == "LOADFAIL":
            bad.append((name, model, v, msg, ov, omsg))
            continue
        if expect == "agree":
            good = ov == v
        elif expect == "onnx_only":
            good = v == "FAIL" and ov == "ok"
        else:
            good = v == "ok" and ov == "FAIL"
        s = per.setdefault(name, [0, 0, 0])
        s[0] += 1
        s[1] += good
        s[2] += ov == "FAIL"
        if not good:
            bad.append((name, model, v, msg, ov, omsg))
    print(f"{'case':36s} {'models':>7s} {'as expected':>12s} {'oxir fails':>11s}  expectation")
    for name, (n, g, f) in per.items():
        exp = "agree" if name == "as_shipped" else MUTATIONS[name][0]
        print(f"{name:36s} {n:7d} {g:12d} {f:11d}  {exp}")
    for name, model, v, msg, ov, omsg in bad[:40]:
        print(f"UNEXPECTED {name} on {model}:\n  onnx {v} {msg}\n  oxir {ov} {omsg[:300]}")
    print(f"\n{len(cases)} models checked by both; {len(bad)} unexpected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
