#!/usr/bin/python3
"""`oxir extract` (rewrite/extract.hpp) against onnx 1.12's onnx.utils.Extractor.

On every libonnx-testdata model (and the torch exports of tests/infer/real and silero VAD from
npm, when their caches exist), random cuts are extracted by both (four times as many in models
whose subgraphs read values from outside):
  - the graph inputs with 1-3 random node outputs as outputs, and the same with 1-2 random node
    outputs added to the inputs: both tools must keep the same nodes (in order), initializers,
    inputs, outputs and functions, except where a subgraph reads a value from outside, which
    onnx's extractor does not follow (it then keeps too few nodes or initializers; oxir's result
    must pass onnx's checker where onnx's does not), and below IR version 4, where oxir also lists
    the initializers it keeps among the inputs, as those versions require (onnx's result then
    fails its checker);
  - 1-2 random node outputs alone as inputs: where oxir refuses the cut as incomplete, onnx's
    result must fail onnx's checker (it reads a value nothing defines); where oxir accepts it, the
    two must agree as above.
A cut whose input is another output of a node the outputs need (one output of a Split) is refused
by oxir; onnx's result then defines that value twice and must fail its checker.
Every sub-model oxir writes must pass onnx's checker (full check, with its shape inference, for
models whose original passes it).

Prints "SKIPPED: ..." and exits 0 without python3-onnx or the corpus.
onnx's answers are kept in <cache>/oracle/onnx_extract.json (see verify_real.OracleCache).
usage: verify_extract.py --oxir build/bin/oxir [--corpus DIR] [--seed N] [--cache DIR]
"""
import argparse
import inspect
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "infer", "real"))
from passes_common import model_paths, valid  # noqa: E402
import verify_real as vr  # noqa: E402  (OracleCache)

try:
    import onnx
    import onnx.checker
    import onnx.utils
except ImportError:
    print("SKIPPED: python3-onnx is not installed")
    sys.exit(0)


def captures(graph):
    """Names the subgraphs of `graph`'s nodes read from outside themselves."""
    out = set()

    def walk(g, outer_defined):
        defined = {i.name for i in g.input} | {t.name for t in g.initializer}
        for n in g.node:
            defined |= set(n.output)
        for n in g.node:
            for a in n.attribute:
                subs = ([a.g] if a.type == onnx.AttributeProto.GRAPH else []) + list(a.graphs)
                for s in subs:
                    inner = walk(s, defined)
                    out.update(x for x in inner if x not in defined)
        used = set()
        for n in g.node:
            used.update(x for x in n.input if x)
        used.update(o.name for o in g.output)
        return used - defined

    for n in graph.node:
        for a in n.attribute:
            subs = ([a.g] if a.type == onnx.AttributeProto.GRAPH else []) + list(a.graphs)
            for s in subs:
                out |= walk(s, set())
    return out


def outline(m):
    """The parts of a (sub-)model the comparison looks at, as plain data."""
    return dict(nodes=[list(n.output) for n in m.graph.node], inits=[t.name for t in m.graph.initializer],
                inputs=[i.name for i in m.graph.input], outputs=[o.name for o in m.graph.output],
                functions=sorted(f.name for f in m.functions))


def extractor_answer(model, ins, outs):
    """The outline of onnx.utils.Extractor's sub-model for the cut (ins, outs) and whether it is
    valid (kept in the oracle cache: onnx's extractor is quadratic and takes most of this test's
    time); None when the extractor fails."""
    try:
        theirs = onnx.utils.Extractor(model).extract_model(ins, outs)
    except Exception:
        return None  # onnx knows no type for an interface value, say
    return dict(outline(theirs), valid=valid(theirs, False))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"), help="for the oracle's answers")
    args = ap.parse_args()
    if not os.path.isdir(args.corpus):
        print("SKIPPED: corpus %s not found (Debian's libonnx-testdata)" % args.corpus)
        return 0
    paths = model_paths(args.corpus)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="oxir-extract-")
    # The extractor's answers are kept across runs, keyed by the model's bytes and the cut: CI's
    # sanitizer pass then only runs oxir.
    cache = vr.OracleCache(args.cache, "onnx_extract", onnx.__version__, inspect.getsource(extractor_answer),
                           inspect.getsource(outline), inspect.getsource(valid))
    stats = dict(cuts=0, same=0, ir3=0, outer=0, refused_invalid=0, refused=0, onnx_failed=0, checked=0)
    failures = []
    for path in paths:
        try:
            model = onnx.load(path)
        except Exception:
            continue
        g = model.graph
        if len(g.node) < 2 or len(g.node) > 600:
            continue  # onnx's extractor is quadratic
        inits = {t.name for t in g.initializer}
        graph_inputs = [i.name for i in g.input if i.name not in inits]
        node_outs = [o for n in g.node for o in n.output if o]
        if not node_outs:
            continue
        full_ok = valid(model, True)
        outer = captures(g)
        cuts = []
        for kind in ("inputs", "inputs+", "inner") * (4 if outer else 1):
            outs = rng.sample(node_outs, min(len(node_outs), rng.randint(1, 3)))
            if kind == "inputs":
                ins = list(graph_inputs)
            elif kind == "inputs+":
                ins = list(graph_inputs) + rng.sample(node_outs, min(len(node_outs), rng.randint(1, 2)))
            else:
                ins = rng.sample(node_outs, min(len(node_outs), rng.randint(1, 2)))
            ins = list(dict.fromkeys(ins))
            outs = [o for o in dict.fromkeys(outs) if o not in ins]
            if outs:
                cuts.append((kind, ins, outs))
        with open(path, "rb") as f:
            model_bytes = f.read()
        for kind, ins, outs in cuts:
            stats["cuts"] += 1
            out_path = os.path.join(work, "x.onnx")
            cmd = [args.oxir, "extract", path, out_path]
            for i in ins:
                cmd += ["--input", i]
            for o in outs:
                cmd += ["--output", o]
            if not ins:
                continue
            r = subprocess.run(cmd, capture_output=True, text=True)
            key = cache.key_of_bytes(model_bytes, ins, outs)
            theirs = cache.get(key)
            if theirs is None:
                theirs = extractor_answer(model, ins, outs)
                cache.put(key, theirs if theirs is not None else False)
            elif theirs is False:
                theirs = None
            if theirs is None:
                stats["onnx_failed"] += 1
            where = "%s %s in=%s out=%s" % (os.path.relpath(path, "/"), kind, ins, outs)
            if r.returncode != 0:
                stats["refused"] += 1
                if ("not among the inputs" not in r.stderr and "no type is known" not in r.stderr and
                        "produces it too" not in r.stderr):
                    failures.append("%s: oxir failed: %s" % (where, r.stderr.strip()[:300]))
                elif "no type is known" not in r.stderr:
                    if theirs is not None and theirs["valid"]:
                        failures.append("%s: oxir refuses a cut onnx extracts validly" % where)
                    else:
                        stats["refused_invalid"] += 1
                continue
            mine = onnx.load(out_path)
            if not valid(mine, full_ok):
                failures.append("%s: oxir's sub-model fails onnx's checker" % where)
                continue
            stats["checked"] += 1
            if theirs is None:
                continue

            def shape(a, inputs=None):
                return ([tuple(n) for n in a["nodes"]], a["inits"], inputs if inputs is not None else a["inputs"],
                        a["outputs"], a["functions"])

            ours = outline(mine)

            # Below IR version 4 initializers must be graph inputs too: oxir lists the ones it
            # keeps, onnx does not (and its sub-model fails its checker).
            listed = set(ins)
            if model.ir_version < 4:
                extra = [t.name for t in mine.graph.initializer if t.name not in listed]
                ir3 = theirs["inputs"] + extra
            else:
                ir3 = None
            if shape(ours) == shape(theirs):
                stats["same"] += 1
            elif ir3 is not None and shape(ours) == shape(theirs, ir3) and not theirs["valid"]:
                stats["ir3"] += 1
            elif outer:
                # onnx's extractor does not follow what subgraphs read from outside: it keeps a
                # subset of oxir's nodes and initializers, and its sub-model is invalid.
                mine_kept = set(tuple(n) for n in ours["nodes"]) | set(ours["inits"])
                theirs_kept = set(tuple(n) for n in theirs["nodes"]) | set(theirs["inits"])
                if theirs_kept < mine_kept and not theirs["valid"]:
                    stats["outer"] += 1
                else:
                    failures.append("%s: oxir and onnx differ (a model with outer-scope reads)" % where)
            else:
                failures.append("%s: oxir and onnx differ:\n    oxir %s\n    onnx %s" % (where, shape(mine), shape(theirs)))
    print("%d cuts of %d models: oxir's sub-model passes onnx's checker in all %d it extracted;" %
          (stats["cuts"], len(paths), stats["checked"]))
    print("  same nodes, initializers, inputs, outputs and functions as onnx.utils.Extractor: %d; "
          "oxir keeps more nodes or initializers where a subgraph reads outer values (onnx's result invalid): %d" %
          (stats["same"], stats["outer"]))
    print("  IR version < 4, where oxir also lists the initializers kept as inputs (onnx's result invalid): %d" %
          stats["ir3"])
    print("  incomplete or node-splitting cuts oxir refuses: %d (onnx's result fails its checker in %d)" %
          (stats["refused"], stats["refused_invalid"]))
    print("  cuts onnx's extractor fails on (no type for an interface value): %d" % stats["onnx_failed"])
    print("  onnx's extractor:", cache.stats())
    cache.save()
    for f in failures[:30]:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
