#!/usr/bin/python3
"""`oxir prefix` and `oxir merge` (rewrite/compose.hpp) against onnx 1.12's onnx.compose.

add_prefix, on every libonnx-testdata model (and the torch exports of tests/infer/real and silero
VAD from npm, when their caches exist):
  - where onnx's add_prefix is right (no subgraphs, no quantization annotations, every name a
    node reads or the graph outputs is defined, every value_info names a defined value), oxir's
    prefixed model must equal onnx's, field for field;
  - everywhere, oxir's prefixed model must pass onnx's checker wherever the original does (full
    check, with shape inference, where the original passes it), and every graph input, output and
    initializer must be the original's with the prefix. In models whose subgraphs read outer
    values, onnx leaves those reads unprefixed: its result is counted where it fails its checker;
  - with --keep-inputs --keep-outputs the interface must be unchanged and the model still valid.
merge_models, on random pairs of those models with the same IR version and agreeing opset imports,
connecting one or two outputs of the first to inputs of the second whose declared types agree
(element type, rank, numeric dims), with prefixes "a/" and "b/":
  - oxir's merged graph must have onnx's nodes, inputs, outputs and initializers, and
    onnx's value_info plus the types of the connected outputs (which onnx drops) - unless onnx
    fails (a connected input is also an output: onnx's result then has an output nothing computes,
    and its merge_models raises; or its graph-name bug below names the graph "") or its add_prefix mishandles one of the models (see above), in
    which cases oxir's must still pass the checker. (Graph names are not compared: onnx 1.12's merge_graphs
    reuses its `name` parameter as a loop variable and names the graph after the last input it
    rewired, where oxir joins the two graph names as onnx means to.)
  - oxir's merged model must pass onnx's checker (full check where both originals pass it);
  - pairs connected across an element-type conflict must be refused by oxir; pairs whose declared
    types agree but whose connected output, as oxir's inference types it, does not fit the input
    are refused too, and counted with how many of those onnx's merged model fails its full check.

Prints "SKIPPED: ..." and exits 0 without python3-onnx or the corpus.
usage: verify_compose.py --oxir build/bin/oxir [--corpus DIR] [--seed N] [--pairs N] [--stride N]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from passes_common import model_paths, valid  # noqa: E402

try:
    import onnx
    import onnx.checker
    import onnx.compose
except ImportError:
    print("SKIPPED: python3-onnx is not installed")
    sys.exit(0)

PREFIX = "pre/"



def subgraphs(graph):
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield a.g
            for s in a.graphs:
                yield s


def has_subgraphs(graph):
    return any(True for _ in subgraphs(graph))


def onnx_prefix_is_right(model):
    """onnx's add_prefix renames every edge, but not inside subgraphs, not in annotations, and
    value_info and outputs by name whether defined or not, and with rename_edges it renames only
    names nodes read or write (an unused input keeps its name): only where none of that matters is its
    result the right one."""
    g = model.graph
    if has_subgraphs(g) or len(g.quantization_annotation) > 0:
        return False
    defined = {i.name for i in g.input} | {t.name for t in g.initializer}
    defined |= {s.values.name for s in g.sparse_initializer}
    for n in g.node:
        defined |= {o for o in n.output if o}
    used = {i for n in g.node for i in n.input if i} | {o.name for o in g.output} | {v.name for v in g.value_info}
    if not used <= defined:
        return False
    # With rename_edges it renames what nodes read or write: an input nothing reads keeps its name.
    edges = {x for n in g.node for x in list(n.input) + list(n.output) if x}
    if not ({i.name for i in g.input} | {t.name for t in g.initializer} | {o.name for o in g.output} |
            {v.name for v in g.value_info}) <= edges:
        return False
    # onnx renames a call's op_type whenever it matches a function name, whatever the domain.
    fnames = {f.name for f in model.functions}
    keys = {(f.domain, f.name) for f in model.functions}
    return all((n.domain, n.op_type) in keys for f_nodes in [g.node] + [f.node for f in model.functions]
               for n in f_nodes if n.op_type in fnames)


def without_empty_node_names(model):
    """onnx.compose assigns node names even when empty, which marks an empty name present; oxir
    leaves an absent name absent. The same model either way: compare with the empty ones cleared."""
    m = onnx.ModelProto()
    m.CopyFrom(model)

    def walk(g):
        for n in g.node:
            if not n.name:
                n.ClearField("name")
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)
                for s in a.graphs:
                    walk(s)
    walk(m.graph)
    for f in m.functions:
        for n in f.node:
            if not n.name:
                n.ClearField("name")
    return m


def elem_rank_dims(vi):
    t = vi.type
    if t.WhichOneof("value") != "tensor_type":
        return None
    tt = t.tensor_type
    if not tt.HasField("shape"):
        return None
    dims = tuple(d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim)
    return tt.elem_type, dims


def agree(a, b):
    if a is None or b is None or a[0] != b[0] or len(a[1]) != len(b[1]):
        return False
    return all(x is None or y is None or x == y for x, y in zip(a[1], b[1]))


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxir", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--pairs", type=int, default=700)
    ap.add_argument("--stride", type=int, default=1, help="every Nth model only (the sanitizer build's quicker run)")
    args = ap.parse_args()
    if not os.path.isdir(args.corpus):
        print("SKIPPED: corpus %s not found (Debian's libonnx-testdata)" % args.corpus)
        return 0
    paths = model_paths(args.corpus)[::max(args.stride, 1)]
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="oxir-compose-")
    out_path = os.path.join(work, "out.onnx")
    failures = []
    st = dict(models=0, same=0, sub=0, sub_onnx_invalid=0, other=0, keep=0)
    info = []  # (path, model, full_ok) of the models read
    for path in paths:
        try:
            model = onnx.load(path)
        except Exception:
            continue
        if not valid(model, False):
            continue
        full_ok = valid(model, True)
        st["models"] += 1
        info.append((path, model, full_ok))
        where = os.path.relpath(path, "/")
        r = run([args.oxir, "prefix", path, out_path, PREFIX])
        if r.returncode != 0:
            failures.append("%s: oxir prefix failed: %s" % (where, r.stderr.strip()[:300]))
            continue
        mine = onnx.load(out_path)
        if not valid(mine, full_ok):
            failures.append("%s: oxir's prefixed model fails onnx's checker" % where)
            continue
        g, h = model.graph, mine.graph
        for field in ("input", "output", "initializer"):
            want = [PREFIX + x.name for x in getattr(g, field)]
            got = [x.name for x in getattr(h, field)]
            if want != got:
                failures.append("%s: %s %s, expected %s" % (where, field, got[:5], want[:5]))
        theirs = onnx.compose.add_prefix(model, PREFIX)
        if onnx_prefix_is_right(model):
            if without_empty_node_names(theirs) == without_empty_node_names(mine):
                st["same"] += 1
            else:
                failures.append("%s: oxir's prefixed model differs from onnx's" % where)
        elif has_subgraphs(g):
            st["sub"] += 1
            if not valid(theirs, False):
                st["sub_onnx_invalid"] += 1
        else:
            st["other"] += 1
        # The interface kept.
        r = run([args.oxir, "prefix", path, out_path, PREFIX, "--keep-inputs", "--keep-outputs"])
        if r.returncode != 0:
            failures.append("%s: oxir prefix --keep-inputs --keep-outputs failed: %s" % (where, r.stderr.strip()[:300]))
            continue
        kept = onnx.load(out_path)
        if ([i.name for i in kept.graph.input] != [i.name for i in g.input] or
                [o.name for o in kept.graph.output] != [o.name for o in g.output]):
            failures.append("%s: --keep-inputs --keep-outputs changed the interface" % where)
        elif not valid(kept, full_ok):
            failures.append("%s: the interface-keeping prefixed model fails onnx's checker" % where)
        else:
            st["keep"] += 1

    # merge_models on random pairs.
    def opsets(m):
        return {("" if o.domain == "ai.onnx" else o.domain): o.version for o in m.opset_import}

    by_ir = {}
    for item in info:
        by_ir.setdefault(item[1].ir_version, []).append(item)
    ms = dict(pairs=0, same=0, onnx_failed=0, conflicts=0, prefix_differs=0, inferred_conflicts=0,
              inferred_conflicts_onnx_invalid=0)
    attempts = 0
    while ms["pairs"] < args.pairs and attempts < args.pairs * 50:
        attempts += 1
        p1, m1, full1 = rng.choice(info)
        candidates = by_ir[m1.ir_version]
        p2, m2, full2 = rng.choice(candidates)
        o1, o2 = opsets(m1), opsets(m2)
        if any(o1[d] != o2[d] for d in o1.keys() & o2.keys()):
            continue
        inits2 = {t.name for t in m2.graph.initializer}
        outs = [(o.name, elem_rank_dims(o)) for o in m1.graph.output]
        ins = [(i.name, elem_rank_dims(i)) for i in m2.graph.input if i.name not in inits2]
        matches = [(o, i) for o, ot in outs for i, it in ins if agree(ot, it)]
        if not matches:
            continue
        rng.shuffle(matches)
        io_map, used = [], set()
        for o, i in matches:
            if i not in used and len(io_map) < rng.randint(1, 2):
                io_map.append((o, i))
                used.add(i)
        ms["pairs"] += 1
        where = "%s + %s %s" % (os.path.relpath(p1, "/"), os.path.relpath(p2, "/"), io_map)
        cmd = [args.oxir, "merge", p1, p2, out_path, "--prefix1", "a/", "--prefix2", "b/"]
        for o, i in io_map:
            cmd += ["--connect", o, i]
        r = run(cmd)
        if r.returncode == 1 and "as inference types it" in r.stderr:
            # Declared types agree, inferred ones do not: a merge that would not run.
            ms["inferred_conflicts"] += 1
            if os.environ.get("OXIR_COMPOSE_VERBOSE"):
                print("inferred conflict:", where, r.stderr.strip()[-160:])
            try:
                theirs = onnx.compose.merge_models(m1, m2, io_map, prefix1="a/", prefix2="b/")
                if not valid(theirs, True):
                    ms["inferred_conflicts_onnx_invalid"] += 1
            except Exception:
                ms["inferred_conflicts_onnx_invalid"] += 1
            continue
        if r.returncode != 0:
            failures.append("%s: oxir merge failed: %s" % (where, r.stderr.strip()[:300]))
            continue
        mine = onnx.load(out_path)
        if not valid(mine, full1 and full2):
            failures.append("%s: oxir's merged model fails onnx's checker" % where)
            continue
        comparable = onnx_prefix_is_right(m1) and onnx_prefix_is_right(m2)
        try:
            theirs = onnx.compose.merge_models(m1, m2, io_map, prefix1="a/", prefix2="b/")
        except Exception:
            theirs = None
        if not comparable:
            # onnx's add_prefix mishandles one of the models (subgraphs, an unused input): its
            # merge differs from oxir's, or fails; oxir's is valid (checked above).
            ms["prefix_differs"] += 1
            continue
        if theirs is None:
            ms["onnx_failed"] += 1
            # onnx 1.12 names the merged graph after the last input it rewired (see above): an
            # omitted input there leaves the graph without the name its checker requires.
            last = [i for n in m2.graph.node for i in n.input]
            if not ({i for _, i in io_map} & {o.name for o in m2.graph.output} or (last and last[-1] == "")):
                failures.append("%s: onnx's merge_models fails where oxir's reasons for that do not hold" % where)
            continue
        mine, theirs = without_empty_node_names(mine), without_empty_node_names(theirs)
        mg, tg = mine.graph, theirs.graph
        connected = {"a/" + o for o, _ in io_map}
        extra = [v for v in mg.value_info if v.name in connected and v.name not in {x.name for x in tg.value_info}]
        same = (list(mg.node) == list(tg.node) and list(mg.input) == list(tg.input) and
                list(mg.output) == list(tg.output) and list(mg.initializer) == list(tg.initializer) and
                [v for v in mg.value_info if v not in extra] == list(tg.value_info) and
                len(extra) == len([o for o in m1.graph.output if "a/" + o.name in connected
                                   and o.name not in {v.name for v in m1.graph.value_info}]) and
                sorted(mine.functions, key=str) == sorted(theirs.functions, key=str) and
                mine.ir_version == theirs.ir_version and opsets(mine) == opsets(theirs))
        if same:
            ms["same"] += 1
        else:
            failures.append("%s: oxir's merged model differs from onnx's" % where)

        # The same pair connected across an element-type conflict: oxir refuses.
        bad = [(o, i.name) for o, ot in outs for i in m2.graph.input
               if ot is not None and elem_rank_dims(i) is not None and elem_rank_dims(i)[0] != ot[0]
               and i.name not in inits2]
        if bad:
            o, i = rng.choice(bad)
            r = run([args.oxir, "merge", p1, p2, out_path, "--prefix1", "a/", "--prefix2", "b/", "--connect", o, i])
            if r.returncode != 1 or "cannot feed" not in r.stderr:
                failures.append("%s: oxir did not refuse connecting %s to %s (types differ): %s" %
                                (where, o, i, r.stderr.strip()[:200]))
            else:
                ms["conflicts"] += 1

    print("add_prefix on %d models: oxir's result passes onnx's checker wherever the original does;" % st["models"])
    print("  equal to onnx.compose.add_prefix: %d; with subgraphs (onnx leaves their reads; its result invalid in %d): %d;"
          " other models onnx's add_prefix mishandles (unused inputs, dangling names, annotations): %d" %
          (st["same"], st["sub_onnx_invalid"], st["sub"], st["other"]))
    print("  interface kept with --keep-inputs --keep-outputs, still valid: %d" % st["keep"])
    print("merge_models on %d random pairs: oxir's result passes onnx's checker in all;" % ms["pairs"])
    print("  equal to onnx.compose.merge_models (plus the connected outputs' types): %d; onnx fails"
          " (a connected input that is also an output, or its graph-name bug): %d; onnx's add_prefix mishandles a model"
          " (subgraphs, unused inputs): %d; type conflicts refused: %d" %
          (ms["same"], ms["onnx_failed"], ms["prefix_differs"], ms["conflicts"]))
    print("  refused because the first model's output, as oxir's inference types it, conflicts with the input"
          " it feeds: %d (onnx's merged model fails its full check in %d)" %
          (ms["inferred_conflicts"], ms["inferred_conflicts_onnx_invalid"]))
    for f in failures[:30]:
        print("FAIL:", f)
    if len(failures) > 30:
        print("... and %d more failures" % (len(failures) - 30))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
