#!/usr/bin/python3
"""Differential test of oxir's type-constraint check (include/oxir/infer/type_constraints.hpp)
against two independent implementations: onnx 1.12's shape inference with check_type=True
(Debian's python3-onnx; opsets up to 17) and ONNX Runtime's model loader (npm onnxruntime-node,
every opset it knows).

Models: the ONNX backend node tests (libonnx-testdata data/node) and the opset 18+ cases of
tests/infer/newops/gen_models.py. Each is checked as it is and in variants where one graph input
gets another element type (3 per input, chosen by a seeded generator from the 16 types every opset
knows); graph-output types and value_info are cleared so that only the operators' constraints
decide. Each variant is then:
  - "type"  for onnx when it fails with "has unsupported type" / "has inconsistent type", and for
            ORT when loading fails with "Type Error";
  - "ok"    when onnx's check passes, or ORT loads it (or resolves it and then lacks a kernel: "Could
            not find an implementation" comes after the type check);
  - "other" for any other failure (not counted).
oxir flags a variant when infer_shapes reports a type-constraint diagnostic, or a conflict between
an inferred and a declared element type (inside subgraphs, whose declarations are kept).

Fails when oxir flags a variant that no oracle calls "type" while one calls it "ok" (a false claim),
or misses more variants than allowed that onnx calls "type", or that ORT calls "type" at an opset
the table covers (18-21). Other misses are listed: operators newer than the table (Attention...),
agreement of inputs beyond opset 21 (not checked: a later version may have split a parameter), and
ORT's own newer schemas (it rejects Erf on int32 that onnx 1.12's Erf-13 allows).
Prints "SKIPPED: ..." and exits 0 without onnx, node/npm or the network.
"""
import argparse
import collections
import inspect
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "real"))
import verify_real as vr  # noqa: E402  (skip, run, ensure_ort)

TABLE_NEWEST = 21  # kTypeTableNewest of ai.onnx in type_constraints_data.hpp
CLASSIC = list(range(1, 17))  # FLOAT .. BFLOAT16: element types of every opset
ORT_JS = r"""
const ort = require(require('path').join(process.env.OXIR_ORT_DIR, 'node_modules', 'onnxruntime-node'));
const files = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
// One thread: a session's default thread pools cost ~13 ms each to create, 20x the load itself.
// Run with ALLOW_RELEASED_ONNX_OPSET_ONLY=0, so that opset 27 loads (this line is also part of the
// cached verdicts' key: those from before it were given without it).
const opts = {intraOpNumThreads: 1, interOpNumThreads: 1};
(async () => {
  const out = {};
  for (const f of files) {
    try { await ort.InferenceSession.create(f, opts); out[f] = 'ok'; }
    catch (e) {
      const m = String(e);
      out[f] = /Type Error/.test(m) ? 'type' : /Could not find an implementation/.test(m) ? 'ok' : 'other: ' + m.slice(0, 200);
    }
  }
  console.log(JSON.stringify(out));
})();
"""


def default_opset(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 0


def make_variants(src, out_dir, tag, rng, onnx, opsets):
    """Writes the model with output types and value_info cleared, and its input-type variants."""
    try:
        m = onnx.load(src)
    except Exception:
        return []
    opset = default_opset(m)
    inits = {t.name for t in m.graph.initializer}
    del m.graph.value_info[:]
    for o in m.graph.output:
        o.ClearField("type")
    made = []

    def save(model, suffix):
        path = os.path.join(out_dir, f"{tag}{suffix}.onnx")
        onnx.save(model, path)
        made.append(path)
        opsets[path] = opset

    save(m, "")
    for i, inp in enumerate(m.graph.input):
        if inp.name in inits or not inp.type.HasField("tensor_type"):
            continue
        cur = inp.type.tensor_type.elem_type
        for t in rng.sample([t for t in CLASSIC if t != cur], 3):
            inp.type.tensor_type.elem_type = t
            save(m, f"_in{i}_t{t}")
        inp.type.tensor_type.elem_type = cur
    return made


def onnx_verdict(path, onnx):
    m = onnx.load(path)
    local = {f.domain for f in m.functions}  # model-local functions: onnx 1.12 infers through them
    if not 1 <= default_opset(m) <= 17 or any(o.domain not in ("", "ai.onnx") and o.domain not in local
                                               for o in m.opset_import):
        return None
    try:
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
        return "ok"
    except Exception as e:
        s = str(e)
        return "type" if "has unsupported type" in s or "has inconsistent type" in s else "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", required=True, help="the type_errors_batch executable")
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"))
    ap.add_argument("--max-missed-onnx", type=int, default=2,
                    help="type errors onnx reports that oxir may miss (default 2: MeanVarianceNormalization-13's "
                         "function body adds a float epsilon, so onnx and ORT reject it for double and bfloat16)")
    ap.add_argument("--max-missed-ort", type=int, default=2,
                    help="type errors ORT reports at opsets 18-21 that oxir may miss (default 2: ReduceLogSum-18 "
                         "allows uint32/uint64, but ORT runs it as its function body, whose Log does not)")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    try:
        import numpy  # noqa: F401
        import onnx
    except Exception as e:
        vr.skip(f"{sys.executable} lacks onnx/numpy ({e.__class__.__name__}: {e})")
    if not os.path.isdir(args.corpus):
        vr.skip(f"{args.corpus} not found (Debian libonnx-testdata)")
    ort_dir = vr.ensure_ort(args.cache)

    t0 = time.monotonic()
    rng = random.Random(20261125)
    with tempfile.TemporaryDirectory(prefix="oxir-types-") as tmp:
        newops = os.path.join(tmp, "newops")
        r = vr.run([sys.executable, os.path.join(HERE, "..", "newops", "gen_models.py"), newops], timeout=300)
        if r.returncode != 0:
            print(f"error: gen_models.py failed:\n{r.stderr[-3000:]}", file=sys.stderr)
            return 2
        sources = [(os.path.join(args.corpus, d, "model.onnx"), "node_" + d) for d in sorted(os.listdir(args.corpus))]
        sources += [(os.path.join(newops, f), "new_" + f[:-5]) for f in sorted(os.listdir(newops)) if f.endswith(".onnx")]
        vdir = os.path.join(tmp, "variants")
        os.makedirs(vdir)
        files, opsets = [], {}
        for src, tag in sources:
            if os.path.exists(src):
                files += make_variants(src, vdir, tag, rng, onnx, opsets)
        print(f"{len(sources)} models, {len(files)} variants ({time.monotonic() - t0:.0f} s)")
        t0 = time.monotonic()

        r = subprocess.run([args.batch], input="\n".join(files) + "\n", capture_output=True, text=True, timeout=1200)
        if r.returncode != 0:
            print(f"error: {args.batch} failed: {r.stderr[-2000:]}", file=sys.stderr)
            return 2
        oxir = {}
        for line in r.stdout.splitlines():
            path, n, msg = line.split("\t", 2)
            oxir[path] = (n, msg)
        print(f"oxir: {time.monotonic() - t0:.0f} s")
        t0 = time.monotonic()

        # The oracles' verdicts are kept across runs (verify_real.OracleCache), keyed by each
        # variant's bytes: a second run (CI's sanitizer pass) only asks about new variants.
        ort_cache = vr.OracleCache(args.cache, "ort_load", vr.ort_version(ort_dir), ORT_JS)
        onnx_cache = vr.OracleCache(args.cache, "onnx_types", onnx.__version__, inspect.getsource(onnx_verdict))
        # Each variant's bytes are read once for both caches' keys.
        ort_keys, onnx_keys = {}, {}
        for f in files:
            with open(f, "rb") as fh:
                data = fh.read()
            ort_keys[f] = ort_cache.key_of_bytes(data)
            onnx_keys[f] = onnx_cache.key_of_bytes(data)
        ort = {f: ort_cache.get(k) for f, k in ort_keys.items()}
        ask = [f for f, v in ort.items() if v is None]
        if ask:
            listing = os.path.join(tmp, "files.json")
            with open(listing, "w") as f:
                json.dump(ask, f)
            js = os.path.join(tmp, "load.js")
            with open(js, "w") as f:
                f.write(ORT_JS)
            r = subprocess.run(["node", js, listing], capture_output=True, text=True, timeout=1800,
                               env=dict(os.environ, OXIR_ORT_DIR=ort_dir,
                                        # opset 27 (ONNX 1.22) loads only with this set
                                        ALLOW_RELEASED_ONNX_OPSET_ONLY="0"))
            if r.returncode != 0:
                print(f"error: ORT loader failed: {r.stderr[-2000:]}", file=sys.stderr)
                return 2
            for f, v in json.loads(r.stdout.strip().splitlines()[-1]).items():
                ort[f] = v
                ort_cache.put(ort_keys[f], v)
        print(f"ORT: {time.monotonic() - t0:.0f} s ({ort_cache.stats()})")
        t0 = time.monotonic()
        onx = {}
        for f in files:
            k = onnx_keys[f]
            v = onnx_cache.get(k)
            if v is None:
                v = onnx_verdict(f, onnx)
                onnx_cache.put(k, v or "")
            onx[f] = v or None
        print(f"onnx: {time.monotonic() - t0:.0f} s ({onnx_cache.stats()})")
        ort_cache.save()
        onnx_cache.save()

    table = collections.Counter()
    false_claims, load_errors = [], []
    missed = {"onnx": [], "ort_table": [], "ort_other": []}
    for f in files:
        n, msg = oxir.get(f, ("missing", ""))
        if n in ("load-error", "missing"):
            load_errors.append((f, msg))
            continue
        flagged = int(n) > 0
        verdicts = {"onnx": onx[f], "ort": ort.get(f, "other")}
        verdicts = {k: ("other" if v and v.startswith("other") else v) for k, v in verdicts.items()}
        for k, v in verdicts.items():
            if v:
                table[(k, v, flagged)] += 1
        said = set(v for v in verdicts.values() if v)
        name = os.path.basename(f)
        if args.verbose and flagged and verdicts["onnx"] == "ok":
            print(f"  onnx-ok-but-flagged {name}: {msg[:200]}")
        if flagged and "type" not in said and "ok" in said:
            false_claims.append(f"{name}: {msg} (onnx {verdicts['onnx']}, ORT {verdicts['ort']})")
        if not flagged and "type" in said:
            kind = ("onnx" if verdicts["onnx"] == "type" else
                    "ort_table" if 18 <= opsets[f] <= TABLE_NEWEST and not name.startswith("new_ml_") else "ort_other")
            missed[kind].append(f"{name} (onnx {verdicts['onnx']}, ORT {verdicts['ort']})")

    print(f"{'oracle':6} {'verdict':8} {'oxir flags':>11} {'oxir passes':>12}")
    for k in ("onnx", "ort"):
        for v in ("type", "ok", "other"):
            print(f"{k:6} {v:8} {table[(k, v, True)]:>11} {table[(k, v, False)]:>12}")
    for f, msg in load_errors:
        print(f"  LOAD ERROR {os.path.basename(f)}: {msg}")
    for x in false_claims:
        print(f"  FALSE CLAIM {x}")
    for kind, what in (("onnx", "onnx calls a type error"),
                       ("ort_table", f"ORT calls a type error, opset 18-{TABLE_NEWEST}"),
                       ("ort_other", "ORT calls a type error elsewhere (newer versions, ORT's own schemas)")):
        print(f"missed where {what}: {len(missed[kind])}")
        for x in missed[kind][: None if args.verbose or kind != "ort_other" else 10]:
            print(f"  missed {x}")
    print(f"summary: {len(files)} variants; {len(false_claims)} false claims, missed {len(missed['onnx'])} "
          f"(onnx) / {len(missed['ort_table'])} (ORT, opset 18-{TABLE_NEWEST}) / {len(missed['ort_other'])} "
          f"(ORT, other), {len(load_errors)} load errors")
    if (load_errors or false_claims or len(missed["onnx"]) > args.max_missed_onnx or
            len(missed["ort_table"]) > args.max_missed_ort):
        print("FAILED")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
