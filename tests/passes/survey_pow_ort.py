#!/usr/bin/python3
"""Why fold_constants leaves Pow alone: ONNX Runtime's Pow against the correctly rounded result.

Run by hand (not a ctest): python3 survey_pow_ort.py [--count N] [--seed S]
Needs numpy and onnx (Debian python3-onnx) and onnxruntime-node (the cache that the other
scripts here use, or OXIR_ORT_DIR). For float, double and float16, N random positive finite
inputs (random bit patterns below infinity) go through Pow with the exponent as a scalar and as
a tensor of the input's shape, ONNX Runtime's graph optimizations off. The reference is the
correctly rounded power, by exact rational arithmetic (integer square roots for the exponents
0.5, -0.5 and 1.5), checked first against the IEEE operations numpy does in the type itself
(x * x, 1 / x, sqrt(x): correctly rounded by definition) for the exponents 2, -1 and 0.5.
Compares every
--every'th input (exact arithmetic is slow); prints, per type and exponent, how many outputs
differ from the reference, and one example.
"""
import argparse
import fractions
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

EXPONENTS = [2.0, 0.5, -1.0, -0.5, 3.0, 1.0, 0.0, -2.0, 1.5]
TYPES = {"float": (TensorProto.FLOAT, np.float32, np.uint32, 0x7F800000),
         "double": (TensorProto.DOUBLE, np.float64, np.uint64, 0x7FF0000000000000),
         "float16": (TensorProto.FLOAT16, np.float16, np.uint16, 0x7C00)}

RUN_JS = r"""
const fs = require('fs');
const {loadOrt} = require(process.argv[2]);
const ort = loadOrt();
(async () => {
  for (const job of JSON.parse(fs.readFileSync(process.argv[3]))) {
    const buf = fs.readFileSync(job.input);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
    const data = {float32: () => new Float32Array(ab), float64: () => new Float64Array(ab),
                  float16: () => new Uint16Array(ab)}[job.type]();
    const s = await ort.InferenceSession.create(job.model, {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1});
    const r = await s.run({X: new ort.Tensor(job.type, data, [data.length])});
    const z = r.Z.data;
    fs.writeFileSync(job.output, Buffer.from(z.buffer, z.byteOffset, z.byteLength));
  }
})().catch(e => { console.error(e.message); process.exit(1); });
"""


# (precision p in bits, least normal exponent, largest finite value) of the formats compared
FORMATS = {"float": (24, -126, float(np.finfo(np.float32).max)), "double": (53, -1022, float(np.finfo(np.float64).max)),
           "float16": (11, -14, 65504.0)}


def round_to(v, fmt):
    """The Fraction v > 0 rounded to nearest (ties to even) in format fmt, as a Python float (inf
    past the format's range)."""
    p, emin, top = FORMATS[fmt]
    e = v.numerator.bit_length() - v.denominator.bit_length()  # 2^e <= v < 2^(e+2)
    if fractions.Fraction(2) ** e > v:
        e -= 1
    if fractions.Fraction(2) ** (e + 1) <= v:
        e += 1
    quantum = fractions.Fraction(2) ** (max(e, emin) - (p - 1))  # spacing of the format near v
    n, rem = divmod(v, quantum)
    if rem * 2 > quantum or (rem * 2 == quantum and n % 2 == 1):
        n += 1
    r = n * quantum
    if r > top:
        return math.inf
    return float(r)  # exact: r has at most p significant bits


def power(x, e, fmt):
    """x ** e correctly rounded to fmt, for a positive finite x and one of EXPONENTS."""
    q = fractions.Fraction(float(x))
    if e == int(e):
        return round_to(q ** int(e), fmt)
    # sqrt(q) to about 200 bits: isqrt of q scaled by 4^k. The rounding of the true power cannot
    # change: it is irrational unless q is a square (then the root is exact), and its distance to
    # a rounding boundary of a 53-bit format is far above 2^-190 relative.
    k = max(0, 200 + (q.denominator.bit_length() - q.numerator.bit_length()) // 2)
    root = fractions.Fraction(math.isqrt(q.numerator * 4 ** k // q.denominator), 2 ** k)
    if root * root != q:
        root += fractions.Fraction(1, 2 ** (k + 1))
    return round_to(root if e == 0.5 else 1 / root if e == -0.5 else q * root, fmt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1 << 20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--every", type=int, default=16, help="compare every Nth input (default 16)")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as work:
        jobs, cases = [], []
        for tname, (et, npt, ut, top) in TYPES.items():
            x = rng.integers(1, top, args.count, dtype=ut).view(npt)  # positive, finite, nonzero
            xin = os.path.join(work, tname + ".bin")
            x.tofile(xin)
            for e in EXPONENTS:
                for form in ("scalar", "tensor"):
                    y = np.array(e, npt) if form == "scalar" else np.full([args.count], e, npt)
                    g = helper.make_graph([helper.make_node("Pow", ["X", "Y"], ["Z"])], "pow",
                                          [helper.make_tensor_value_info("X", et, [args.count])],
                                          [helper.make_tensor_value_info("Z", et, [args.count])],
                                          [numpy_helper.from_array(y, "Y")])
                    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
                    m.ir_version = 8
                    stem = os.path.join(work, "%s_%g_%s" % (tname, e, form))
                    onnx.save(m, stem + ".onnx")
                    jobs.append({"model": stem + ".onnx", "input": xin, "output": stem + ".out",
                                 "type": {"float": "float32", "double": "float64"}.get(tname, tname)})
                    cases.append((tname, e, form, x, stem + ".out"))
        js = os.path.join(work, "run.js")
        with open(js, "w") as f:
            f.write(RUN_JS)
        import json
        with open(os.path.join(work, "jobs.json"), "w") as f:
            json.dump(jobs, f)
        r = subprocess.run(["node", js, os.path.join(here, "..", "infer", "real", "run_ort.js"),
                            os.path.join(work, "jobs.json")], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("ONNX Runtime run failed: " + r.stderr.strip()[-2000:])
        n = len(range(0, args.count, args.every))
        print("Pow in ONNX Runtime vs the correctly rounded result: %d random positive finite inputs each" % n)
        print("%-8s %9s %-7s %9s  %s" % ("type", "exponent", "form", "differ", "example (x, runtime, correct)"))
        for tname, e, form, x, out in cases:
            _, npt, ut, _ = TYPES[tname]
            z = np.fromfile(out, npt)
            idx = np.arange(0, len(x), args.every)  # exact arithmetic is slow: a sample
            ref = np.array([power(v, e, tname) for v in x[idx]], np.float64).astype(npt)
            ieee = {2.0: lambda a: a * a, -1.0: lambda a: npt(1) / a, 0.5: np.sqrt}.get(e)
            if ieee is not None:
                with np.errstate(all="ignore"):
                    check = ieee(x[idx])
                if (check.view(ut) != ref.view(ut)).any():
                    sys.exit("the reference is wrong: %s ** %g" % (tname, e))
            got = z[idx]
            bad = np.flatnonzero(got.view(ut) != ref.view(ut))
            example = "" if not len(bad) else "%r, %r, %r" % (x[idx[bad[0]]], got[bad[0]], ref[bad[0]])
            print("%-8s %9g %-7s %9d  %s" % (tname, e, form, len(bad), example))


if __name__ == "__main__":
    main()
