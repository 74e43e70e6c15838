#!/usr/bin/python3
"""Differential test of oxir's shape/type inference against ONNX Runtime on single-operator models
of opset 18+ operator versions (and rules so far only unit-tested), see gen_models.py.

    /usr/bin/python3 tests/infer/newops/verify_newops.py --infer-dump BUILD/.../infer_dump
                                                          [--cache DIR] [--only CASE]... [--verbose]

For each case: strips the output shapes (infer_dump does), runs oxir inference, runs ONNX Runtime
(run_ort_batch.js, npm onnxruntime-node, one process for all cases) at 3 bindings of the input
dim_params and checks every graph output:
  elem type: must equal ORT's output type (0 = unknown type counts as undetermined)
  dims:      number / expression of input dim_params -> must equal ORT's size at every binding;
             unk__N, unknown dim or no shape -> undetermined; anything else is WRONG.
  read back: the inferred model written, read again and inferred with its value_info kept must
             give the same output dims and no conflict (infer_dump --read-back); else WRONG.
Cases ORT loads but has no kernel for (GPU-only contrib operators) are checked against ORT's
load-time shape inference instead, which runs before it looks for a kernel: at each binding the
graph inputs get that binding's sizes and, for every output dim oxir determines (value v), two
probe models append Slice (the other axes to their first element) -> Unsqueeze -> Concat with a
constant whose dim is v, then v+1. ORT must load the first up to its missing kernel (so it agrees with v, the rank
and the element type) and refuse the second for its shapes (so it knows the dim: Concat does not
broadcast); a refused first probe is WRONG, a second one loaded means ORT leaves the dim open
(counted as unverified, not exact). An output with a dim ORT sized and oxir's probe loaded has its
element type confirmed too (Concat's inputs share one type).
Other cases ORT cannot load or run are listed as skipped (not failures).
Exit status: 0 = nothing wrong (or SKIPPED), 1 = some dim/type wrong, 2 = setup failure.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "real"))
import verify_real as vr  # noqa: E402  (ensure_ort, evaluate, skip...)

ONNX_DTYPES = dict(vr.ONNX_DTYPES)
ONNX_DTYPES.update({8: "string", 12: "uint32"})
ORT_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "string": 8,
             "bool": 9, "float16": 10, "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16,
             "float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20, "uint4": 21,
             "int4": 22, "float4e2m1": 23}


def infer(infer_dump, path):
    r = vr.run([infer_dump, path, "--read-back"], timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"infer_dump failed: {r.stderr.strip()[-1500:]}")
    return json.loads(r.stdout)


def specs(case, dump):
    runs = []
    for b in case["bindings"]:
        spec = {}
        for name, dims in dump["inputs"].items():
            if dims is None:
                raise RuntimeError(f"input {name} has no shape")
            shape = [d if isinstance(d, int) else b[d] for d in dims]
            s = {"shape": shape, "dtype": ONNX_DTYPES.get(dump["input_types"].get(name), "float32")}
            s.update(case["fills"].get(name, {}))
            spec[name] = s
        runs.append(spec)
    return runs


def compare(case, dump, ort):
    res = collections.Counter()
    msgs = []
    bindings = case["bindings"]
    occurrences = collections.defaultdict(list)  # made-up symbol -> where it is printed (vr.unequal_symbols)
    for out, odims in dump["outputs"].items():
        got = [r["outputs"][out] for r in ort["runs"]]
        # Element type.
        otype = dump["output_types"].get(out, 0)
        ort_type = ORT_TYPES.get(got[0]["type"])
        if otype == 0:
            res["type_unknown"] += 1
            msgs.append(f"undetermined type of {out} (ORT {got[0]['type']})")
        elif ort_type is None:
            msgs.append(f"note: ORT type {got[0]['type']!r} of {out} not mapped; oxir says {otype}")
        elif otype != ort_type:
            res["type_wrong"] += 1
            msgs.append(f"WRONG type of {out}: oxir {otype}, ORT {got[0]['type']} ({ort_type})")
        else:
            res["type_exact"] += 1
        # Dims.
        shapes = [g["dims"] for g in got]
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise RuntimeError(f"ORT gives {out} different ranks: {shapes}")
        if odims is None:
            res["undetermined"] += rank
            msgs.append(f"undetermined {out}: no shape (ORT {shapes})")
            continue
        if len(odims) != rank:
            res["wrong"] += max(rank, len(odims))
            msgs.append(f"WRONG {out}: oxir rank {len(odims)} {vr.fmt(odims)}, ORT {shapes}")
            continue
        for k, d in enumerate(odims):
            actual = [s[k] for s in shapes]
            if vr.is_undetermined_symbol(d):
                occurrences[d].append((f"{out}[{k}]", actual))
            if d is None or vr.is_undetermined_symbol(d):
                res["undetermined"] += 1
                msgs.append(f"undetermined {out}[{k}] = {d if d is not None else '?'} (ORT {actual})")
                continue
            if isinstance(d, int):
                vals = [d] * len(actual)
            else:
                try:
                    vals = [vr.evaluate(d, b) for b in bindings]
                except vr.ExprError as e:
                    res["wrong"] += 1
                    msgs.append(f"WRONG {out}[{k}] = {d!r}: {e} (ORT {actual})")
                    continue
            if all(v == a for v, a in zip(vals, actual)):
                res["exact"] += 1
            else:
                res["wrong"] += 1
                msgs.append(f"WRONG {out}[{k}] = {d!r} -> {[str(v) for v in vals]}, ORT {actual} at {bindings}")
    unequal = vr.unequal_symbols(occurrences)
    res["wrong"] += len(unequal)
    msgs += [f"WRONG: {m}" for m in unequal]
    return res, msgs


NO_KERNEL = ("Could not find an implementation", "Kernel not found")


def no_kernel(err):
    return err is not None and any(k in err for k in NO_KERNEL)


def load_probes(case, dump, tmp):
    """The probe models of a case ORT has no kernel for (see the docstring): [(job, key)], key =
    (output, dim index, binding index, expected value, True for the v probe)."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    from onnx import mapping
    base = onnx.load(case["path"])
    if not any(o.domain in ("", "ai.onnx") and o.version >= 13 for o in base.opset_import):
        return []
    probes = []
    for bi, b in enumerate(case["bindings"]):
        for out, odims in dump["outputs"].items():
            elem = dump["output_types"].get(out, 0)
            if odims is None or not odims or elem in (0, 8):  # no shape, scalar, unknown type, string
                continue
            rank = len(odims)
            ones = []  # per axis: the size the Slice below leaves, min(1, oxir's size) (1 when unknown)
            for d in odims:
                try:
                    e = d if isinstance(d, int) else (None if d is None or vr.is_undetermined_symbol(d)
                                                      else vr.evaluate(d, b))
                except vr.ExprError:
                    e = None
                ones.append(0 if e == 0 else 1)
            for j, d in enumerate(odims):
                if d is None or vr.is_undetermined_symbol(d):
                    continue
                try:
                    v = d if isinstance(d, int) else vr.evaluate(d, b)
                except vr.ExprError:
                    continue
                if v != int(v) or v < 0:
                    continue  # not a size at this binding: the normal comparison would call it wrong
                v = int(v)
                for expect_v in (True, False):
                    m = onnx.ModelProto()
                    m.CopyFrom(base)
                    g = m.graph
                    for i in g.input:
                        for dim in i.type.tensor_type.shape.dim:
                            if dim.HasField("dim_param"):
                                dim.dim_value = b[dim.dim_param]
                    tag = f"p{j}"
                    cur = out
                    if rank > 1:
                        others = [a for a in range(rank) if a != j]
                        for nm, val in (("axes", others), ("starts", [0] * len(others)), ("ends", [1] * len(others))):
                            g.initializer.append(numpy_helper.from_array(np.array(val, np.int64), f"{tag}_{nm}"))
                        g.node.append(helper.make_node("Slice", [out, f"{tag}_starts", f"{tag}_ends", f"{tag}_axes"],
                                                       [f"{tag}_r"]))
                        cur = f"{tag}_r"
                    g.initializer.append(numpy_helper.from_array(np.array([0], np.int64), f"{tag}_zero"))
                    g.node.append(helper.make_node("Unsqueeze", [cur, f"{tag}_zero"], [f"{tag}_u"]))
                    shape = [1] + ones
                    shape[j + 1] = v if expect_v else v + 1
                    const = np.zeros(shape, mapping.TENSOR_TYPE_TO_NP_TYPE[elem])
                    g.initializer.append(numpy_helper.from_array(const, f"{tag}_c"))
                    g.node.append(helper.make_node("Concat", [f"{tag}_u", f"{tag}_c"], [f"{tag}_y"], axis=0))
                    g.output.append(helper.make_empty_tensor_value_info(f"{tag}_y"))
                    name = f"{case['name']}__{out}_{j}_{bi}_{int(expect_v)}"
                    path = os.path.join(tmp, name + ".onnx")
                    onnx.save(m, path)
                    probes.append(({"name": name, "model": path, "runs": []}, (out, j, bi, v, expect_v)))
    return probes


def judge_probes(probes, ort):
    """Counts and messages of a case's load probes (see load_probes)."""
    res = collections.Counter()
    msgs = []
    by_dim = collections.defaultdict(dict)
    for job, (out, j, bi, v, expect_v) in probes:
        err = ort[job["name"]].get("error")
        by_dim[(out, j, bi, v)][expect_v] = no_kernel(err) or err is None, err
    typed = {}  # output -> its element type agreed (a probe ORT sized and loaded: Concat's inputs share T)
    for (out, j, bi, v), r in sorted(by_dim.items()):
        (ok_v, err_v), (ok_next, _) = r[True], r[False]
        if not ok_v:
            res["wrong"] += 1
            typed[out] = False
            msgs.append(f"WRONG {out}[{j}] = {v} at binding {bi}: ONNX Runtime's shape inference refuses it: {err_v[:300]}")
        elif ok_next:
            res["unverified"] += 1
            msgs.append(f"unverified {out}[{j}] = {v} at binding {bi}: ONNX Runtime's shape inference leaves it open")
        else:
            res["exact"] += 1
            typed.setdefault(out, True)
    res["type_exact"] += sum(typed.values())
    return res, msgs


def read_back_wrong(res, dump):
    """What oxir's read-back of its own output found (vr.read_back_problems), counted as wrong
    dims in `res`; the messages to print."""
    problems = vr.read_back_problems(dump)
    res["wrong"] += len(problems)
    return [f"WRONG {p}" for p in problems]


def run_batch(jobs, tmp, ort_dir):
    """Runs run_ort_batch.js on `jobs` (written into tmp); its parsed answer, or None after
    printing why it failed."""
    jp = os.path.join(tmp, "jobs.json")
    with open(jp, "w") as f:
        json.dump(jobs, f)
    # Opset 27 (ONNX 1.22) is "under development" to ONNX Runtime 1.30, which loads it only with
    # this set; it changes nothing for older opsets.
    env = dict(os.environ, OXIR_ORT_DIR=ort_dir, ALLOW_RELEASED_ONNX_OPSET_ONLY="0")
    r = vr.run(["node", os.path.join(HERE, "run_ort_batch.js"), jp], env=env, timeout=900)
    if r.returncode != 0:
        print(f"error: run_ort_batch.js failed: {r.stderr.strip()[-2000:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infer-dump", required=True, help="the infer_dump executable")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"), help="cache root (default ~/.cache/oxir)")
    ap.add_argument("--only", action="append", help="check only this case (repeatable)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every case's shapes and diagnostics")
    args = ap.parse_args()

    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
    except Exception as e:
        vr.skip(f"{sys.executable} lacks onnx/numpy ({e.__class__.__name__}: {e})")
    if not os.access(args.infer_dump, os.X_OK):
        print(f"error: {args.infer_dump} is not an executable", file=sys.stderr)
        return 2

    models_dir = os.path.join(args.cache, "newops-models")
    r = vr.run([sys.executable, os.path.join(HERE, "gen_models.py"), models_dir], timeout=300)
    print(r.stdout, end="")
    if r.returncode != 0:
        print(f"error: gen_models.py failed:\n{r.stderr[-3000:]}", file=sys.stderr)
        return 2
    ort_dir = vr.ensure_ort(args.cache)

    with open(os.path.join(models_dir, "cases.json")) as f:
        cases = json.load(f)
    if args.only:
        cases = [c for c in cases if c["name"] in args.only]
    for c in cases:
        c["path"] = os.path.join(models_dir, c["model"])

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        dumps = dict(zip([c["name"] for c in cases], ex.map(lambda c: infer(args.infer_dump, c["path"]), cases)))

    jobs = [{"name": c["name"], "model": c["path"], "runs": specs(c, dumps[c["name"]])} for c in cases]
    with tempfile.TemporaryDirectory(prefix="oxir-newops-") as tmp:
        ort_all = run_batch(jobs, tmp, ort_dir)
    if ort_all is None:
        return 2

    # Cases with no kernel in ONNX Runtime: its load-time shape inference is the oracle.
    load_checked = {}
    nk = [c for c in cases if no_kernel(ort_all[c["name"]].get("error"))]
    if nk:
        with tempfile.TemporaryDirectory(prefix="oxir-newops-load-") as tmp:
            probes = {c["name"]: load_probes(c, dumps[c["name"]], tmp) for c in nk}
            probe_ort = run_batch([job for p in probes.values() for job, _ in p], tmp, ort_dir)
        if probe_ort is None:
            return 2
        for c in nk:
            if probes[c["name"]]:
                load_checked[c["name"]] = judge_probes(probes[c["name"]], probe_ort)

    total = collections.Counter()
    skipped = []
    failed = False
    for c in cases:
        name, dump, ort = c["name"], dumps[c["name"]], ort_all[c["name"]]
        err = ort.get("error") or next((x["error"] for x in ort.get("runs", []) if "error" in x), None)
        if name in load_checked:
            res, msgs = load_checked[name]
            msgs = msgs + read_back_wrong(res, dump)
            total.update(res)
            total["load_cases"] += 1
            bad = res["wrong"]
            if bad or msgs or args.verbose:
                status = "WRONG" if bad else ("partly unverified" if msgs else "ok")
                print(f"\n=== {name}: {status} (no kernel; against ONNX Runtime's load-time shape inference: "
                      f"exact {res['exact']} / unverified {res['unverified']} / WRONG {res['wrong']})")
                for m in msgs:
                    print(f"  {m}")
                if args.verbose:
                    for out, d in dump["outputs"].items():
                        print(f"  {out}: oxir {vr.fmt(d)} type {dump['output_types'].get(out)}")
            continue
        if err:
            skipped.append((name, err, c.get("random", False)))
            continue
        try:
            res, msgs = compare(c, dump, ort)
        except RuntimeError as e:
            print(f"  ERROR {name}: {e}")
            failed = True
            continue
        msgs += read_back_wrong(res, dump)
        total.update(res)
        total["cases"] += 1
        total["random"] += bool(c.get("random"))
        bad = res["wrong"] or res["type_wrong"]
        if bad or msgs or args.verbose:
            status = "WRONG" if bad else ("partly undetermined" if msgs else "ok")
            print(f"\n=== {name}: {status}  (exact {res['exact']} / undetermined {res['undetermined']} / "
                  f"WRONG {res['wrong']}; types {res['type_exact']} / {res['type_unknown']} / {res['type_wrong']})")
            for m in msgs:
                print(f"  {m}")
            if bad or args.verbose:
                for out, d in dump["outputs"].items():
                    print(f"  {out}: oxir {vr.fmt(d)} type {dump['output_types'].get(out)}  ORT "
                          f"{[x['outputs'][out]['dims'] for x in ort['runs']]} {ort['runs'][0]['outputs'][out]['type']}")
                for d in dump["diagnostics"][:6]:
                    print(f"  diag: {d}")

    listed = [x for x in skipped if not x[2] or args.verbose]
    n_random = sum(1 for x in skipped if x[2])
    if skipped:
        print(f"\n=== {len(skipped)} case(s) skipped: ONNX Runtime cannot load or run them "
              f"({n_random} random combinations, invalid at some binding" + ("" if args.verbose else ", not listed") + ")")
        for name, err, _ in listed:
            print(f"  {name}: {err[:300]}")
    print(f"\n=== summary: {total['cases'] + total['load_cases']} cases checked ({total['random']} random), {len(skipped)} skipped "
          f"({n_random} random)")
    if total["load_cases"]:
        print(f"  ({total['load_cases']} of them without a kernel in ONNX Runtime, checked against its load-time "
              f"shape inference: {total['unverified']} dims it leaves open, counted in neither column)")
    print(f"  output dims:  exact {total['exact']} / undetermined {total['undetermined']} / WRONG {total['wrong']}")
    print(f"  output types: exact {total['type_exact']} / undetermined {total['type_unknown']} / "
          f"WRONG {total['type_wrong']}")
    if failed:
        return 2
    if total["wrong"] or total["type_wrong"]:
        print("FAILED: some inferred dims or types disagree with ONNX Runtime")
        return 1
    print("OK: no inferred dim or type disagrees with ONNX Runtime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
