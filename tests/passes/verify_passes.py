#!/usr/bin/python3
"""`oxir optimize` on real exporter output, checked by ONNX Runtime.

For every torch export of tests/infer/real/export_models.py (the models of infer_real_models,
exported into the cache when missing) this runs `oxir optimize IN OUT` (Identity nodes
bypassed, static shape computations folded into Constants, dead nodes and initializers
removed), then ONNX Runtime (npm onnxruntime-node, graph optimizations off) runs IN and OUT on
the same random inputs at each of the model's three input-size bindings: every output must be
identical bit for bit. A run both models reject (random inputs a model does not accept) counts
as agreement; one rejected and the other not is a failure.

usage: verify_passes.py --oxir BUILD/bin/oxir [--cache DIR]
Exit status: 0 = every run identical, 1 = some output differs, 2 = setup/tool failure.
Prints "SKIPPED: ..." and exits 0 without torch/onnx, node/npm or the registry.
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "infer", "real"))
import verify_real as vr  # noqa: E402  (ensure_exports, ensure_ort, model_list, skip, ONNX_DTYPES)

SUMMARY = re.compile(r"main graph: (\d+) -> (\d+) nodes; (\d+) Identity nodes bypassed, (\d+) nodes folded "
                     r"into (\d+) Constants, (\d+) unused nodes and (\d+) unused initializers removed")


def specs(path, bindings, fills):
    """One ORT input spec per binding of the model's input dim_params (None if a dim is unbound)."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    out = []
    for b in bindings:
        spec = {}
        for i in m.graph.input:
            if i.name in inits:
                continue
            t = i.type.tensor_type
            shape = []
            for d in t.shape.dim:
                if d.HasField("dim_value"):
                    shape.append(d.dim_value)
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
        import onnx  # noqa: F401
    except Exception as e:  # noqa: BLE001
        vr.skip(f"{sys.executable} lacks torch/onnx ({e})")
    models_dir = vr.ensure_exports(args.cache)
    if not models_dir:
        return 2
    ort_dir = vr.ensure_ort(args.cache)
    models = vr.model_list(models_dir, None)
    totals = [0] * 7
    jobs, owners = [], []
    with tempfile.TemporaryDirectory(prefix="oxir-passes-") as tmp:
        for m in models:
            out = os.path.join(tmp, m["name"] + ".onnx")
            r = subprocess.run([args.oxir, "optimize", m["path"], out], capture_output=True, text=True, timeout=600)
            got = SUMMARY.search(r.stdout)
            if r.returncode != 0 or not got:
                print(f"FAIL: oxir optimize {m['name']}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
                return 1
            counts = [int(x) for x in got.groups()]
            totals = [a + b for a, b in zip(totals, counts)]
            print(f"{m['name']}: {r.stdout.strip()}")
            for k, spec in enumerate(specs(m["path"], m["bindings"], m["fills"]) or []):
                jobs.append({"a": m["path"], "b": out, "spec": spec})
                owners.append(f"{m['name']} binding {k}")
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
          f"{totals[3]} nodes folded into {totals[4]} Constants, {totals[5]} unused nodes and {totals[6]} unused "
          f"initializers removed")
    print(f"ONNX Runtime runs (before vs after): {len(jobs)}; identical {len(jobs) - len(differ) - both}, "
          f"both rejected the inputs {both}, DIFFERENT {len(differ)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
