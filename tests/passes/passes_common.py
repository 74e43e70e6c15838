"""What the differential tests of tests/passes share: the models they walk, and onnx's checker as a
yes/no."""
import os


def model_paths(corpus):
    """Every .onnx file of the corpus, then the torch exports of tests/infer/real and silero VAD
    from npm (If branches) when their caches exist."""
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.endswith(".onnx"))
    for cache in ("~/.cache/oxir/real-models", "~/.cache/oxir/npm/vad-web/package/dist"):
        folder = os.path.expanduser(cache)
        if os.path.isdir(folder):
            paths += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".onnx"))
    return paths


def valid(model, full):
    """Whether onnx's checker accepts `model` (with full, its shape inference too)."""
    import onnx.checker
    try:
        onnx.checker.check_model(model, full_check=full)
        return True
    except Exception:
        return False
