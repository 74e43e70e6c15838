#!/usr/bin/python3
"""The model examples/builder writes with oxir::Builder, checked by independent implementations:

  * onnx 1.12's checker with full_check (its strict shape inference included) accepts it;
  * ONNX Runtime (npm onnxruntime-node) runs it at N = 1, 3 and 5 with the If taken both ways, and
    every output equals a NumPy transcription of what examples/builder/main.cpp means to build;
  * the output shapes oxir inferred (written into the model) hold for ORT's outputs.

usage: verify_builder.py --example BUILD/bin/builder_example [--cache DIR]
Installs npm onnxruntime-node into DIR/ort when missing (as verify_real.py does). Prints
"SKIPPED: ..." and exits 0 without python3-onnx, numpy, node/npm or the registry.
"""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "infer", "real"))
import verify_real as vr  # noqa: E402  (ensure_ort: installs npm onnxruntime-node into the cache)


def skip(msg):
    print(f"SKIPPED: {msg}")
    sys.exit(0)


try:
    import numpy as np
    import onnx
except Exception as e:  # noqa: BLE001
    skip(f"python3-onnx / numpy unavailable ({e})")


def weights(n, salt):  # as in examples/builder/main.cpp
    return np.array([(((i * 37 + salt) % 101) - 50) / 100.0 for i in range(n)], dtype=np.float32)


def reference(x, flag):
    w1 = weights(128, 3).reshape(8, 16)
    b1 = weights(16, 7)
    gamma = weights(16, 11)
    h = x @ w1 + b1
    h = h * (1.0 / (1.0 + np.exp(-h)))
    mean = h.mean(axis=-1, keepdims=True)
    var = ((h - mean) ** 2).mean(axis=-1, keepdims=True)
    h = (h - mean) / np.sqrt(var + 1e-5) * gamma
    a, b = h[:, :8], h[:, 8:]
    p = a * b
    e = np.exp(p - p.max(axis=-1, keepdims=True))
    s = e / e.sum(axis=-1, keepdims=True)
    y = 2.0 * s if flag else -s
    return {"Y": y, "H": h, "flat": y.reshape(-1)}


def declared_dims(model, n):
    out = {}
    for o in model.graph.output:
        dims = []
        for d in o.type.tensor_type.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            else:  # oxir writes N or an expression of it (here "8*N")
                dims.append(eval(d.dim_param.replace("N", str(n)), {"__builtins__": {}}))
        out[o.name] = dims
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--example", required=True)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    args = ap.parse_args()
    ort_dir = vr.ensure_ort(args.cache)  # skips without node/npm or the registry

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "block.onnx")
        r = subprocess.run([args.example, path], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL: builder_example exited {r.returncode}: {r.stderr}")
            return 1
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
        print("onnx.checker (full_check): ok")
        failures = 0
        rng = np.random.default_rng(7)
        for n in (1, 3, 5):
            for flag in (True, False):
                x = rng.uniform(-2, 2, size=(n, 8)).astype(np.float32)
                spec = {"X": {"shape": [n, 8], "dtype": "float32", "value": [float(v) for v in x.ravel()]},
                        "flag": {"shape": [], "dtype": "bool", "value": [1 if flag else 0]}}
                run = subprocess.run(["node", os.path.join(HERE, "run_values.js"), path, json.dumps(spec)],
                                     capture_output=True, text=True, env=dict(os.environ, OXIR_ORT_DIR=ort_dir))
                if run.returncode != 0:
                    print(f"FAIL: ONNX Runtime: {run.stderr.strip()}")
                    return 1
                got = json.loads(run.stdout)["outputs"]
                want = reference(x, flag)
                dims = declared_dims(model, n)
                for name, ref in want.items():
                    g = got[name]
                    ok = (g["dims"] == list(ref.shape) and dims[name] == g["dims"] and
                          np.allclose(np.array(g["values"], dtype=np.float32).reshape(ref.shape), ref,
                                      rtol=1e-4, atol=1e-5))
                    if not ok:
                        failures += 1
                        print(f"FAIL: N={n} flag={flag} {name}: ORT dims {g['dims']}, oxir dims {dims[name]}, "
                              f"NumPy dims {list(ref.shape)}")
        if failures:
            return 1
        print("ONNX Runtime = NumPy on 3 sizes x 2 branches, 3 outputs each; oxir's output shapes hold: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
