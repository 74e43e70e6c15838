#!/usr/bin/python3
"""Writes the ONNX backend node tests (libonnx-testdata data/node) converted to other opsets by
onnx's own version converter, for scoring oxir's inference on older and newer operator versions
than the ones the tests were written in (infer_score --corpus OUT_DIR).

The backend tests use each operator in the version current when they were written. Converting
them down (to opsets 7, 9, 10, 11, 12) writes the same computation with the older forms: Upsample
instead of Resize, Slice/Squeeze/Unsqueeze/ReduceSum/Split/Pad with attributes instead of inputs,
older BatchNormalization, Clip with min/max attributes, and so on; converting up (13, 15) writes the
input forms for tests recorded earlier. The declared graph outputs stay those of the original test
(the converter keeps them), so they remain the truth to score against.

Run with Debian's interpreter (onnx 1.12):

    /usr/bin/python3 tests/infer/converted/convert_backend.py [--corpus DIR] OUT_DIR \
        [--infer-score EXE [--min-exact PCT]]

With --infer-score, then scores the converted models with infer_score (run-time inputs bound to
their test data, as infer_backend_score_bound does: the most dims determined, so the most checked)
and exits with its status: it fails on a wrong dim, a rejected model or fewer exact dims than
--min-exact percent.

Each conversion runs in a child process: the converter crashes (SIGSEGV) on some models. A model
the converter rejects or leaves at its own opset is skipped (and marked, not tried again). Writes OUT_DIR/<test>__op<N>/model.onnx
with a link test_data_set_0 to the original's test data (for infer_score --bind-inputs). Models
already written by an earlier run with the same onnx version are kept.
"""

import argparse
import glob
import os
import subprocess
import sys

TARGETS = (7, 9, 10, 11, 12, 13, 15)


def default_opset(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="/usr/share/libonnx-testdata/data/node")
    ap.add_argument("out")
    ap.add_argument("--infer-score", help="infer_score executable: score the converted models")
    ap.add_argument("--min-exact", default="97", help="infer_score --min-exact (default 97)")
    args = ap.parse_args()
    try:
        import onnx
        from onnx import version_converter
    except Exception as e:  # noqa: BLE001
        print(f"SKIPPED: {sys.executable} lacks onnx ({e})")
        return 0

    stamp = os.path.join(args.out, "onnx_version")
    if os.path.exists(stamp) and open(stamp).read().strip() != onnx.__version__:
        for d in glob.glob(os.path.join(args.out, "_failed", "*")):
            os.remove(d)
        for d in glob.glob(os.path.join(args.out, "*__op*")):
            for f in ("model.onnx", "test_data_set_0"):
                p = os.path.join(d, f)
                if os.path.islink(p) or os.path.isfile(p):
                    os.remove(p)
    os.makedirs(args.out, exist_ok=True)
    with open(stamp, "w") as f:
        f.write(onnx.__version__ + "\n")

    written = kept = rejected = crashed = 0
    for src in sorted(glob.glob(os.path.join(args.corpus, "*", "model.onnx"))):
        test_dir = os.path.dirname(src)
        name = os.path.basename(test_dir)
        model = onnx.load(src)
        own = default_opset(model)
        for target in TARGETS:
            if own is None or target == own:
                continue
            out_dir = os.path.join(args.out, f"{name}__op{target}")
            out = os.path.join(out_dir, "model.onnx")
            failed_mark = os.path.join(args.out, "_failed", f"{name}__op{target}")
            if os.path.isfile(out):
                kept += 1
                continue
            if os.path.isfile(failed_mark):  # rejected or crashed in an earlier run
                rejected += 1
                continue
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    converted = version_converter.convert_version(model, target)
                    if default_opset(converted) == target:
                        os.makedirs(out_dir, exist_ok=True)
                        onnx.save(converted, out + ".tmp")
                        os.replace(out + ".tmp", out)
                        code = 0
                except Exception:  # noqa: BLE001
                    pass
                os._exit(code)
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
                crashed += os.WIFSIGNALED(status)
                rejected += not os.WIFSIGNALED(status)
                os.makedirs(os.path.dirname(failed_mark), exist_ok=True)
                open(failed_mark, "w").close()
            else:
                written += 1
                data = os.path.join(test_dir, "test_data_set_0")
                link = os.path.join(out_dir, "test_data_set_0")
                if os.path.isdir(data) and not os.path.lexists(link):
                    os.symlink(data, link)
    print(f"converted models: {written} written, {kept} kept from an earlier run; "
          f"{rejected + crashed} conversions skipped: the converter rejected them or crashed "
          f"({crashed} crashes in this run)", flush=True)
    if not args.infer_score:
        return 0
    if written + kept == 0:
        print("FAILED: no converted model to score")
        return 1
    cmd = [args.infer_score, "--corpus", args.out, "--no-timing", "--bind-inputs", "64", "--min-exact",
           args.min_exact, "--max-wrong", "0", "--max-rejected", "0"]
    print(" ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
