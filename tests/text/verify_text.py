#!/usr/bin/python3
"""oxir's textual syntax (io/text.hpp) against onnx 1.12's parser (Debian's python3-onnx).

1. Every libonnx-testdata model is written as text by oxir (to_text); each text must read back
   into an equal model in oxir (text_batch checks that).
2. Every such text that onnx 1.12's parser accepts (1.12 predates quoted names and node labels,
   which about a sixth of the corpus needs) is read by both parsers: the two serializations must
   be byte-identical, and onnx's reading must equal the original model (so oxir's writer is
   checked by an independent reader too).
3. Hand-written texts: those 1.12 accepts must give byte-identical models in both parsers; texts
   both must reject; and texts only oxir reads (newer syntax, oxir's extensions), which 1.12
   rejects.

Prints "SKIPPED: ..." and exits 0 without python3-onnx or the corpus.
usage: verify_text.py --batch build/bin/text_batch [--corpus DIR] [--keep DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import onnx
    import onnx.parser
except ImportError:
    print("SKIPPED: python3-onnx is not installed")
    sys.exit(0)

HEADER = '<ir_version: 8, opset_import: ["" : 17]>\n'

# Accepted by onnx 1.12 and by oxir, with the same result.
BOTH = {
    "attrs": HEADER + 'g (float[N] x) => (float[N] y) {\n  y = Op <i = -3, f = 2.5, e = 1e-3, E = 2E+2, '
    's = "str", ints = [1, -2, 3], floats = [1.5, 2.0], strs = ["a", "b"], t = float[2] name = {1, 2.5}, '
    't2 = int64 {7}, t3 = float[2] {1, 2}, neg = -0.5, '
    'big = 9223372036854775807, small = -9223372036854775808> (x)\n}',
    "if": HEADER + 'g (bool c, float[2] x) => (float[2] y) {\n  y = If (c) <then_branch = t () => (float[2] z) '
    '{ z = Neg (x) }, else_branch = e () => (float[2] z) { z = Abs (x) }>\n}',
    "types": HEADER + 'g (float a, float[] b, int64[?, N, 3] c, bfloat16[1] h, float16[2] i, uint64[1] k, '
    'complex64[1] l, int64[-1] n, string s, bool[N, M] t) => () {}',
    "initializers": HEADER + 'g (float[2] x, float[2] w = {1, 2}) => (float[2] y) <float[2] t, '
    'int64[1] shape = {2}, double[2] d = {0.1, -1e-300}, uint8[2] u = {0, 255}, int8[1] i8 = {-128}, '
    'bool[2] bb = {1, 0}, string[2] ss = {"a", "b c"}, uint32[1] u32 = {4294967295}, '
    'uint64[1] u64 = {18446744073709551615}, int16[1] i16 = {-32768}, uint16[1] u16 = {65535}, '
    'int32[1] i32 = {-2147483648}, int64[1] i64 = {-9223372036854775808}, float w2 = {3.5}, '
    'float[0] z = {}, float[2, 2] m = {1e10, -3.25e-5, 7, 0.1}> {\n  t = Add (x, w)\n  y = Reshape (t, shape)\n}',
    "nodes": '<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>\ng (float[2] x) => (float[2] y) {\n'
    '  a, b = com.microsoft.Op <k = 1> (x, x)\n  c = Op (x)\n  = Print (a)\n  y = Identity (c) # comment\n'
    '  d = Op (c) <k = 2>\n}',
    "functions": '<ir_version: 9, opset_import: ["" : 18, "local" : 1], producer_name: "p", '
    'producer_version: "v", domain: "d", model_version: 3, doc_string: "ds">\n'
    'g (float[N] x) => (float[N] y) {\n  y = local.Scale <alpha = 2.0> (x)\n}\n'
    '<domain: "local", opset_import: ["" : 18], doc_string: "scales">\n'
    'Scale <alpha, gamma> (x, bias) => (out)\n{\n  a = Constant <value_float: float = @alpha> ()\n'
    '  t = Mul (x, a)\n  out = Add (t, bias)\n}\n'
    '<domain: "local", opset_import: ["" : 18]>\nOther (x) => (x2) { x2 = Identity (x) }',
    "metadata": '<ir_version: 8, opset_import: ["" : 17], metadata_props: ["a": "1", "b": "2"]>\ng () => () {}',
    "loop": HEADER + 'g (int64 n, bool c, float[1] y0) => (float[1] y) {\n  y = Loop (n, c, y0) <body = b '
    '(int64 i, bool ci, float[1] yi) => (bool co, float[1] yo) {\n    co = Identity (ci)\n'
    '    one = Constant <value = float[1] {1}> ()\n    yo = Add (yi, one)\n  }>\n}',
    "bare": 'g () => () {}',
}

# onnx 1.12 rejects these; oxir reads them (newer syntax, or oxir's extensions in docs/io.md).
OXIR_ONLY = {
    "quoted": HEADER + 'g (float[2] "a b") => (float[2] y) { y = Relu ("a b") }',
    "empty_name": HEADER + 'g (float[2] x) => (float[2] y) { y, "" = Op ("", x) }',
    "label": HEADER + 'g (float[2] x) => (float[2] y) { [n1] y = Relu (x) }',
    "escape": HEADER + 'g (float[2] x) => (float[2] y) { y = Op <s = "a\\"b"> (x) }',
    "infnan": HEADER + 'g (float[2] x) => (float[2] y) { y = Op <a = inf, b = -nan> (x) }',
    "external": HEADER + 'g (float[2] x) => (float[2] y) <float[2] w = ["location": "w.bin", "offset": "0"]> '
    '{ y = Add (x, w) }',
    "overload": HEADER + 'g (float[2] x) => (float[2] y) { y = local.F:o1 (x) }',
    "opaque": HEADER + 'g (opaque(com.x, t) x) => () {}',
    "seq_input": HEADER + 'g (seq(float[2]) d, map(string, seq(int64)) e, optional(float) f, '
    'sparse_tensor(float[4, 4]) s) => () {}',
    "leading_empty": HEADER + 'g (float[2] x) => (float[2] y) { y = Op (, x) }',
    "fn_defaults": '<ir_version: 9, opset_import: ["" : 18, "local" : 1]>\ng (float[N] x) => (float[N] y) '
    '{ y = local.F (x) }\n<domain: "local", opset_import: ["" : 18]>\nF <beta: float = 1.0> (x) => (y) '
    '{ y = Identity (x) }',
    "fn_typed": '<ir_version: 9, opset_import: ["" : 18]>\ng () => () {}\n<domain: "local">\n'
    'F (float[N] x) => (float[N] y) <float[N] t> { t = Neg (x) y = Neg (t) }',
    "empty_lists": HEADER + 'g (float[2] x) => (float[2] y) { y = Op <ef: floats = [], ei: ints = []> (x) }',
    "type_list": HEADER + 'g (float[2] x) => (float[2] y) { y = Op <tps = [seq(float), int64]> (x) }',
    "float16_values": HEADER + 'g () => () <float16[2] h = {15360, 1.5}, bfloat16[1] b = {-2.0}, '
    'complex64[1] c = {1, 2}, float8e4m3fn[1] f8 = {56}, int4[3] i4 = {-8, 7, 1}> {}',
    "quoted_attr": HEADER + 'g (float[2] x) => (float[2] y) { y = Op <"a::b" = 1> (x) }',
}

# Both must reject these.
INVALID = {
    "unclosed_inputs": HEADER + 'g (float[2] x) => (float[2] y) { y = Relu (x }',
    "no_arrow": HEADER + 'g (float[2] x) (float[2] y) { y = Relu (x) }',
    "bad_type": HEADER + 'g (Float[2] x) => () {}',
    "bad_attr_type": HEADER + 'g (x) => (y) { y = Op <a: integer = 1> (x) }',
    "missing_brace": HEADER + 'g (x) => (y) { y = Op (x)',
    "bad_header": '<ir_version 8> g () => () {}',
    "unknown_key": '<irversion: 8> g () => () {}',
    "int_for_string": '<producer_name: 3> g () => () {}',
    "attr_no_value": HEADER + 'g (x) => (y) { y = Op <a => (x) }',
    "empty_typed_singleton": HEADER + 'g (x) => (y) { y = Op <a: int = []> (x) }',
    "symbolic_tensor": HEADER + 'g () => () <float[N] w = {1}> {}',
    "unknown_rank_tensor": HEADER + 'g () => () <float[] w = {1}> {}',
    "number_then_name": HEADER + 'g (x) => (y) { y = Op <a = 12ab> (x) }',
}

# onnx 1.12 reads these differently from today's onnx parser, whose reading oxir follows; `check`
# is what oxir's model must show (loaded back with onnx).
NEWER = {
    # A type alone is a TYPE_PROTO attribute (1.12: an empty TENSOR).
    "type_attr": (HEADER + 'g (x) => (y) { y = Op <tp = float[N]> (x) }',
                  lambda m: m.graph.node[0].attribute[0].type == onnx.AttributeProto.TYPE_PROTO),
    # `: float` makes an integer a float (1.12 ignores the annotation).
    "float_annotation": (HEADER + 'g (x) => (y) { y = Op <fi: float = 3> (x) }',
                         lambda m: m.graph.node[0].attribute[0].type == onnx.AttributeProto.FLOAT
                         and m.graph.node[0].attribute[0].f == 3.0),
    # A trailing comma adds no input (1.12: an empty one).
    "trailing_comma": (HEADER + 'g (x) => (y) { y = Op (x, ) }', lambda m: list(m.graph.node[0].input) == ["x"]),
    # Lists of tensors and graphs are kept (1.12 drops their elements).
    "tensor_list": (HEADER + 'g (x) => (y) { y = Op <ts = [float[1] {1}, int32[1] {2}]> (x) }',
                    lambda m: len(m.graph.node[0].attribute[0].tensors) == 2),
    "graph_list": (HEADER + 'g (x) => (y) { y = Op <gs = [a () => () {}, b () => () {}]> (x) }',
                   lambda m: len(m.graph.node[0].attribute[0].graphs) == 2),
    # Integers among floats are floats (1.12 splits them into ints and floats of a FLOATS attribute).
    "mixed_list": (HEADER + 'g (x) => (y) { y = Op <m = [1, 2.5]> (x) }',
                   lambda m: list(m.graph.node[0].attribute[0].floats) == [1.0, 2.5]
                   and not m.graph.node[0].attribute[0].ints),
}

# onnx 1.12 accepts these but makes invalid models; oxir refuses them.
STRICTER = {
    "dot_op": HEADER + 'g (x) => (y) { y = com. (x) }',
    "too_few_values": HEADER + 'g () => () <float[2] w = {1}> {}',
    "too_many_values": HEADER + 'g () => () <float[1] w = {1, 2}> {}',
    "uint8_range": HEADER + 'g () => () <uint8[1] w = {256}> {}',
    "bool_range": HEADER + 'g () => () <bool[1] w = {2}> {}',
}


def onnx_bytes(text):
    try:
        return onnx.parser.parse_model(text).SerializeToString(), None
    except Exception as e:  # onnx raises ParseError (its message as bytes), or a C++ exception text
        msg = e.args[0] if e.args else str(e)
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        return None, str(msg).strip().split("\n")[-1][:100]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", required=True)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--keep", help="folder to keep the texts and models in")
    args = ap.parse_args()
    if not os.path.isdir(args.corpus):
        print("SKIPPED: corpus %s not found (Debian's libonnx-testdata)" % args.corpus)
        return 0
    work = args.keep or tempfile.mkdtemp(prefix="oxir-text-")
    os.makedirs(work, exist_ok=True)
    failures = []
    try:
        # ---- 1. the corpus through oxir's writer and both parsers ----
        models = sorted(os.path.join(d, f) for d, _, fs in os.walk(args.corpus) for f in fs if f.endswith(".onnx"))
        corpus_dir = os.path.join(work, "corpus")
        os.makedirs(corpus_dir, exist_ok=True)
        with open(os.path.join(work, "models.txt"), "w") as f:
            f.write("\n".join(models) + "\n")
        r = subprocess.run([args.batch, "to-text", corpus_dir, os.path.join(work, "models.txt")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("oxir round trip: " + r.stdout.strip()[:2000])
        refused = [i for i in range(len(models)) if os.path.exists(os.path.join(corpus_dir, "%d.err" % i))]
        for i in refused:
            with open(os.path.join(corpus_dir, "%d.err" % i)) as f:
                failures.append("to_text refused %s: %s" % (models[i], f.read()[:300]))
        onnx_ok, onnx_rejected, pairs = 0, {}, []
        for i, path in enumerate(models):
            txt = os.path.join(corpus_dir, "%d.onnxtxt" % i)
            if not os.path.exists(txt):
                continue
            with open(txt) as f:
                text = f.read()
            data, err = onnx_bytes(text)
            if data is None:
                onnx_rejected[err] = onnx_rejected.get(err, 0) + 1
                continue
            onnx_ok += 1
            with open(os.path.join(corpus_dir, "%d.onnx-parsed.onnx" % i), "wb") as f:
                f.write(data)
            pairs.append("%s %s" % (path, os.path.join(corpus_dir, "%d.onnx-parsed.onnx" % i)))
        subprocess.run([args.batch, "parse", corpus_dir], check=True)
        identical = 0
        for i in range(len(models)):
            a = os.path.join(corpus_dir, "%d.onnx-parsed.onnx" % i)
            if not os.path.exists(a):
                continue
            b = os.path.join(corpus_dir, "%d.oxir.onnx" % i)
            if not os.path.exists(b):
                failures.append("oxir rejects the text of %s that onnx reads" % models[i])
                continue
            with open(a, "rb") as fa, open(b, "rb") as fb:
                if fa.read() == fb.read():
                    identical += 1
                else:
                    failures.append("oxir and onnx read the text of %s differently" % models[i])
        with open(os.path.join(work, "pairs.txt"), "w") as f:
            f.write("\n".join(pairs) + "\n")
        r = subprocess.run([args.batch, "same", os.path.join(work, "pairs.txt")], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("onnx's reading of oxir's text differs from the model: " + r.stdout.strip()[:2000])
        print("corpus: %d models, %d written as text by oxir and read back equal (%d refused)" %
              (len(models), len(models) - len(refused), len(refused)))
        print("  onnx 1.12 reads %d of the texts: %d byte-identical to oxir's reading, and onnx's reading "
              "equals the original model for %s of them" %
              (onnx_ok, identical, "all" if r.returncode == 0 else "not all"))
        print("  onnx 1.12 rejects %d (syntax newer than 1.12: quoted names, node labels, empty names):" %
              sum(onnx_rejected.values()))
        for err, n in sorted(onnx_rejected.items(), key=lambda kv: -kv[1])[:6]:
            print("    %4d  %s" % (n, err))
        if onnx_ok < 0.8 * len(models):
            failures.append("onnx 1.12 reads only %d of %d texts" % (onnx_ok, len(models)))

        # ---- 2. hand-written texts ----
        hand = os.path.join(work, "hand")
        os.makedirs(hand, exist_ok=True)
        for group in (BOTH, OXIR_ONLY, INVALID, STRICTER, {k: v[0] for k, v in NEWER.items()}):
            for name, text in group.items():
                with open(os.path.join(hand, name + ".onnxtxt"), "w") as f:
                    f.write(text)
        subprocess.run([args.batch, "parse", hand], check=True)

        def oxir_result(name):
            ok = os.path.join(hand, name + ".oxir.onnx")
            if os.path.exists(ok):
                with open(ok, "rb") as f:
                    return f.read(), None
            with open(os.path.join(hand, name + ".oxir.err")) as f:
                return None, f.read()

        for name, text in BOTH.items():
            want, err = onnx_bytes(text)
            got, oerr = oxir_result(name)
            if want is None:
                failures.append("onnx rejects BOTH case %s: %s" % (name, err))
            elif got is None:
                failures.append("oxir rejects %s: %s" % (name, oerr))
            elif got != want:
                failures.append("%s: oxir and onnx differ" % name)
        for name, text in OXIR_ONLY.items():
            got, oerr = oxir_result(name)
            if got is None:
                failures.append("oxir rejects %s: %s" % (name, oerr))
            if onnx_bytes(text)[0] is not None:
                failures.append("onnx 1.12 reads OXIR_ONLY case %s: move it to BOTH" % name)
        for name, text in INVALID.items():
            got, _ = oxir_result(name)
            if got is not None:
                failures.append("oxir accepts invalid %s" % name)
            if onnx_bytes(text)[0] is not None:
                failures.append("onnx accepts invalid %s" % name)
        for name, text in STRICTER.items():
            got, _ = oxir_result(name)
            if got is not None:
                failures.append("oxir accepts invalid %s" % name)
            if onnx_bytes(text)[0] is None:
                failures.append("onnx 1.12 rejects STRICTER case %s: move it to INVALID" % name)
        for name, (text, check) in NEWER.items():
            got, oerr = oxir_result(name)
            if got is None:
                failures.append("oxir rejects %s: %s" % (name, oerr))
                continue
            m = onnx.ModelProto()
            m.ParseFromString(got)
            if not check(m):
                failures.append("%s: oxir's model is not what today's onnx parser gives" % name)
            if onnx_bytes(text)[0] == got:
                failures.append("%s: onnx 1.12 now reads it as oxir does: move it to BOTH" % name)
        print("hand-written: %d read identically by both, %d read by oxir only (onnx 1.12 rejects them), "
              "%d rejected by both, %d rejected by oxir only (1.12 makes invalid models of them), %d read as "
              "today's onnx parser does (1.12 differs)" % (len(BOTH), len(OXIR_ONLY), len(INVALID), len(STRICTER),
                                                          len(NEWER)))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for f in failures[:40]:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
