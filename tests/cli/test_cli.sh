#!/usr/bin/env bash
# End-to-end test of the `oxir` CLI: usage errors exit 2, bad models exit 1 naming the file and
# field, info/convert/bench work, and convert round-trips external data byte-exactly.
# Usage: test_cli.sh OXIR_BINARY QUICKSTART_BINARY
set -u
oxir="$1"
quickstart="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() {  # check DESCRIPTION COMMAND...
  local what="$1"
  shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what"; fi
}
expect_exit() {  # expect_exit CODE STDERR_PATTERN COMMAND...
  local code="$1" pattern="$2"
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [[ $rc == "$code" ]] || { echo "exit $rc, expected $code: $*"; cat "$tmp/err"; return 1; }
  grep -q -- "$pattern" "$tmp/err" || { echo "stderr lacks '$pattern': $(cat "$tmp/err")"; return 1; }
}

"$quickstart" "$tmp/q.onnx" >/dev/null || { echo "quickstart failed"; exit 1; }

check "no arguments is a usage error" expect_exit 2 "usage:" "$oxir"
check "unknown command" expect_exit 2 'unknown command "frobnicate"' "$oxir" frobnicate
check "info needs one model" expect_exit 2 "info takes one MODEL" "$oxir" info
check "bad --runs" expect_exit 2 "needs a non-negative integer" "$oxir" bench "$tmp/q.onnx" --runs many
check "unknown option" expect_exit 2 "unknown option --bogus" "$oxir" convert "$tmp/q.onnx" "$tmp/x.onnx" --bogus
check "missing file" expect_exit 1 "$tmp/none.onnx: cannot open" "$oxir" info "$tmp/none.onnx"
head -c 100 "$tmp/q.onnx" >"$tmp/cut.onnx"
check "truncated model names file and field" expect_exit 1 "$tmp/cut.onnx: graph: length" "$oxir" info "$tmp/cut.onnx"
# Streams are read to their end, but checked as they come: /dev/zero never ends, its first byte is
# an invalid key (the 20 s guard turns a read without end into a failure, not a hang).
if [[ -c /dev/zero ]]; then
  check "an endless stream that is no model fails at its first key" \
    expect_exit 1 "/dev/zero: byte 0: field key 0 has field number 0" timeout 20 "$oxir" info /dev/zero
fi
check "a model read from a pipe" bash -c "cat '$tmp/q.onnx' | '$oxir' info /dev/stdin | grep -q 'X: float16\[N,4\]'"

check "info" bash -c "'$oxir' info '$tmp/q.onnx' >'$tmp/info' && grep -q 'ir_version: 10' '$tmp/info' &&
  grep -q 'X: float16\[N,4\]' '$tmp/info' && grep -q 'nodes: 4' '$tmp/info' && grep -q 'inline=30 external=0' '$tmp/info'"
check "bench prints the timing line last" bash -c "'$oxir' bench '$tmp/q.onnx' --runs 2 | tail -n1 |
  grep -Eq '^load_ms=[0-9.]+ parse_ms=[0-9.]+ serialize_ms=[0-9.]+ save_ms=[0-9.]+ infer_ms=[0-9.]+ check_ms=[0-9.]+$'"

check "check needs one model" expect_exit 2 "check takes one MODEL" "$oxir" check
check "check of a valid model" bash -c "'$oxir' check '$tmp/q.onnx' 2>'$tmp/chk.err' | grep -q 'valid (0 errors, 0 warnings)' &&
  [[ ! -s '$tmp/chk.err' ]]"
check "check of a truncated model names the file" expect_exit 1 "$tmp/cut.onnx: graph: length" "$oxir" check "$tmp/cut.onnx"
if /usr/bin/python3 -c "import onnx" 2>/dev/null; then
  # Nodes out of order (a structural error) and a node its operator rejects (found by inference).
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, ["N", 4])
y = h.make_tensor_value_info("y", T.FLOAT, ["N", 4])
nodes = [h.make_node("Relu", ["a"], ["y"]), h.make_node("Abs", ["x"], ["a"])]
save(h.make_model(h.make_graph(nodes, "g", [x], [y]), opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/unsorted.onnx")
bad = [h.make_node("Transpose", ["x"], ["y"], perm=[0, 5])]
save(h.make_model(h.make_graph(bad, "g", [x], [y]), opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/badperm.onnx")
PY
  check "check finds nodes out of order" expect_exit 1 "unsorted.onnx: error: graph.node\\[0\\].input\\[0\\]: (Relu) reads 'a', which a later node defines" \
    "$oxir" check "$tmp/unsorted.onnx"
  check "check reports what inference rejects" expect_exit 1 "badperm.onnx: error: graph.node\\[0\\] (Transpose)" \
    "$oxir" check "$tmp/badperm.onnx"
  check "check --no-infer skips inference" bash -c "'$oxir' check '$tmp/badperm.onnx' --no-infer | grep -q 'valid (0 errors, 0 warnings; inference not run)'"

  # optimize: an Identity bypassed, Reshape's target Concat(Gather(Shape(x), 1), [-1]) folded
  # (x's dim 1 is static), Shape/Gather/Unsqueeze gone; read back by onnx and its checker.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, ["N", 4, 6])
y = h.make_tensor_value_info("y", T.FLOAT, ["M", 4])
inits = [h.make_tensor("one", T.INT64, [], [1]), h.make_tensor("zero", T.INT64, [1], [0]),
         h.make_tensor("m1", T.INT64, [1], [-1])]
nodes = [h.make_node("Identity", ["x"], ["xi"]), h.make_node("Shape", ["xi"], ["s"]),
         h.make_node("Gather", ["s", "one"], ["c"]), h.make_node("Unsqueeze", ["c", "zero"], ["c1"]),
         h.make_node("Concat", ["m1", "c1"], ["t"], axis=0), h.make_node("Reshape", ["xi", "t"], ["y"])]
save(h.make_model(h.make_graph(nodes, "g", [x], [y], inits), opset_imports=[h.make_opsetid("", 17)]),
     sys.argv[1] + "/foldable.onnx")
PY
  check "optimize needs IN and OUT" expect_exit 2 "optimize takes IN and OUT" "$oxir" optimize "$tmp/foldable.onnx"
  check "optimize folds, bypasses and prunes" bash -c "'$oxir' optimize '$tmp/foldable.onnx' '$tmp/opt.onnx' |
    grep -q 'main graph: 6 -> 2 nodes; 1 Identity nodes bypassed, 3 nodes folded into 3 Constants, 0 repeated nodes merged, 3 unused nodes and 3 unused initializers removed'"
  check "the optimized model reads back as Constant + Reshape with the static target" /usr/bin/python3 -c "
import onnx, onnx.numpy_helper as nh, sys
m = onnx.load('$tmp/opt.onnx'); onnx.checker.check_model(m, full_check=True)
ops = [n.op_type for n in m.graph.node]
t = nh.to_array(m.graph.node[0].attribute[0].t).tolist()
sys.exit(0 if ops == ['Constant', 'Reshape'] and t == [-1, 4] and m.graph.node[1].input[0] == 'x' else 1)"
  # optimize folds nodes of constant tensors: Transpose of a weight; an Expand to 4 MiB only
  # with a higher --fold-limit; neither with --no-fold-tensors.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, [3, 2])
y = h.make_tensor_value_info("y", T.FLOAT, [3, 2])
e = h.make_tensor_value_info("e", T.FLOAT, [1024, 1024])
inits = [h.make_tensor("w", T.FLOAT, [2, 3], [1, 2, 3, 4, 5, 6]), h.make_tensor("one", T.FLOAT, [], [1]),
         h.make_tensor("shape", T.INT64, [2], [1024, 1024])]
nodes = [h.make_node("Transpose", ["w"], ["wt"]), h.make_node("Add", ["x", "wt"], ["y"]),
         h.make_node("Expand", ["one", "shape"], ["e"])]
save(h.make_model(h.make_graph(nodes, "g", [x], [y, e], inits), opset_imports=[h.make_opsetid("", 17)]),
     sys.argv[1] + "/weights.onnx")
PY
  check "optimize folds a weight's Transpose, not a 4 MiB Expand" bash -c "'$oxir' optimize '$tmp/weights.onnx' '$tmp/w1.onnx' |
    grep -q '3 -> 3 nodes; 0 Identity nodes bypassed, 1 nodes folded into 1 Constants' &&
    /usr/bin/python3 -c \"import onnx, onnx.numpy_helper as nh, sys; m = onnx.load('$tmp/w1.onnx'); onnx.checker.check_model(m, full_check=True)
n = m.graph.node[0]; sys.exit(0 if n.op_type == 'Constant' and nh.to_array(n.attribute[0].t).tolist() == [[1, 4], [2, 5], [3, 6]] else 1)\""
  check "optimize --fold-limit 4194304 folds the Expand too" bash -c "'$oxir' optimize '$tmp/weights.onnx' '$tmp/w2.onnx' --fold-limit 4194304 |
    grep -q '3 -> 3 nodes; 0 Identity nodes bypassed, 2 nodes folded into 2 Constants, 0 repeated nodes merged, 0 unused nodes and 3 unused initializers'"
  check "optimize --no-fold-tensors folds neither" bash -c "'$oxir' optimize '$tmp/weights.onnx' '$tmp/w3.onnx' --no-fold-tensors |
    grep -q '0 nodes folded into 0 Constants'"
  # optimize turns a Cast to the type its input has and a Reshape to the shape it has into
  # Identities and removes them (not with --no-noop); onnx reads the result back as valid.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
y = h.make_tensor_value_info("y", T.FLOAT, [2, 3])
nodes = [h.make_node("Relu", ["x"], ["r"]), h.make_node("Cast", ["r"], ["c"], to=T.FLOAT),
         h.make_node("Constant", [], ["s"], value=h.make_tensor("v", T.INT64, [2], [2, 3])),
         h.make_node("Reshape", ["c", "s"], ["y"])]
save(h.make_model(h.make_graph(nodes, "g", [x], [y]), opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/noop.onnx")
PY
  check "optimize removes a same-type Cast and a same-shape Reshape" bash -c "'$oxir' optimize '$tmp/noop.onnx' '$tmp/noop1.onnx' |
    grep -q 'replaced 2 nodes that hand their input on unchanged by Identity nodes' &&
    /usr/bin/python3 -c \"import onnx, sys; m = onnx.load('$tmp/noop1.onnx'); onnx.checker.check_model(m, full_check=True)
sys.exit(0 if [(n.op_type, list(n.input), list(n.output)) for n in m.graph.node] == [('Relu', ['x'], ['y'])] else 1)\""
  check "optimize --no-noop keeps them" bash -c "'$oxir' optimize '$tmp/noop.onnx' '$tmp/noop2.onnx' --no-noop > /dev/null &&
    /usr/bin/python3 -c \"import onnx, sys; m = onnx.load('$tmp/noop2.onnx')
sys.exit(0 if [n.op_type for n in m.graph.node] == ['Relu', 'Cast', 'Constant', 'Reshape'] else 1)\""
  # optimize replaces an If whose condition folds to a constant by the branch it takes (not with
  # --no-fold-branches); the result is a valid model.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, [2])
y = h.make_tensor_value_info("y", T.FLOAT, [2])
then_g = h.make_graph([h.make_node("Neg", ["x"], ["t"])], "then", [], [h.make_tensor_value_info("t", T.FLOAT, [2])])
else_g = h.make_graph([h.make_node("Abs", ["x"], ["e"])], "else", [], [h.make_tensor_value_info("e", T.FLOAT, [2])])
nodes = [h.make_node("Shape", ["x"], ["s"]), h.make_node("Constant", [], ["two"], value=h.make_tensor("v", T.INT64, [1], [2])),
         h.make_node("Equal", ["s", "two"], ["eq"]), h.make_node("Squeeze", ["eq"], ["c"], axes=[0]),
         h.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
save(h.make_model(h.make_graph(nodes, "g", [x], [y]), opset_imports=[h.make_opsetid("", 12)]), sys.argv[1] + "/if.onnx")
PY
  check "optimize replaces an If with a constant condition by its branch" bash -c "'$oxir' optimize '$tmp/if.onnx' '$tmp/if1.onnx' |
    grep -q 'replaced 1 If nodes by the branch their constant condition takes' &&
    /usr/bin/python3 -c \"import onnx, sys; m = onnx.load('$tmp/if1.onnx'); onnx.checker.check_model(m, full_check=True)
sys.exit(0 if [(n.op_type, list(n.input), list(n.output)) for n in m.graph.node] == [('Neg', ['x'], ['y'])] else 1)\""
  check "optimize --no-fold-branches keeps the If" bash -c "'$oxir' optimize '$tmp/if.onnx' '$tmp/if2.onnx' --no-fold-branches >/dev/null &&
    /usr/bin/python3 -c \"import onnx, sys; m = onnx.load('$tmp/if2.onnx'); sys.exit(0 if [n.op_type for n in m.graph.node] == ['Constant', 'If'] else 1)\""
  # optimize folds inside subgraphs: the branches of an If on an input; a line counts their nodes.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
k = h.make_tensor_value_info("k", T.BOOL, [])
y = h.make_tensor_value_info("y", T.INT64, [2])
then_g = h.make_graph([h.make_node("Shape", ["x"], ["s"]), h.make_node("Mul", ["s", "s"], ["a"])], "then", [],
                      [h.make_tensor_value_info("a", T.INT64, [2])])
else_g = h.make_graph([h.make_node("Shape", ["x"], ["b"])], "else", [], [h.make_tensor_value_info("b", T.INT64, [2])])
nodes = [h.make_node("If", ["k"], ["y"], then_branch=then_g, else_branch=else_g)]
save(h.make_model(h.make_graph(nodes, "g", [x, k], [y]), opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/ifk.onnx")
PY
  check "optimize folds in If branches" bash -c "'$oxir' optimize '$tmp/ifk.onnx' '$tmp/ifk1.onnx' | grep -q 'subgraphs: 3 -> 2 nodes' &&
    /usr/bin/python3 -c \"import onnx, onnx.numpy_helper as nh, sys; m = onnx.load('$tmp/ifk1.onnx'); onnx.checker.check_model(m, full_check=True)
v = [[(n.op_type, nh.to_array(n.attribute[0].t).tolist()) for n in a.g.node] for a in m.graph.node[0].attribute]
sys.exit(0 if sorted(v) == [[('Constant', [2, 3])], [('Constant', [4, 9])]] else 1)\""
  check "optimize --fold-limit needs a value" expect_exit 2 "--fold-limit needs a value" "$oxir" optimize "$tmp/weights.onnx" "$tmp/w4.onnx" --fold-limit
  # optimize merges repeated computations: Add(Relu(x), Relu(x)) reads one Relu.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, ["N"])
y = h.make_tensor_value_info("y", T.FLOAT, ["N"])
nodes = [h.make_node("Relu", ["x"], ["a"]), h.make_node("Relu", ["x"], ["b"]), h.make_node("Add", ["a", "b"], ["y"])]
save(h.make_model(h.make_graph(nodes, "g", [x], [y]), opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/repeated.onnx")
PY
  check "optimize merges a repeated node" bash -c "'$oxir' optimize '$tmp/repeated.onnx' '$tmp/merged.onnx' | grep -q '3 -> 2 nodes; .* 1 repeated nodes merged' &&
    /usr/bin/python3 -c \"import onnx, sys; m = onnx.load('$tmp/merged.onnx'); onnx.checker.check_model(m, full_check=True); sys.exit(0 if list(m.graph.node[1].input) == ['a', 'a'] else 1)\""
  # optimize sorts a graph whose nodes are out of order; --keep-order leaves it.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import TensorProto as T, helper as h, save
x = h.make_tensor_value_info("x", T.FLOAT, ["N"])
y = h.make_tensor_value_info("y", T.FLOAT, ["N"])
nodes = [h.make_node("Neg", ["a"], ["y"]), h.make_node("Relu", ["x"], ["a"])]
save(h.make_model(h.make_graph(nodes, "g", [x], [y]), opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/unsorted.onnx")
PY
  check "optimize sorts an unsorted graph, which onnx's checker then accepts" bash -c "'$oxir' optimize '$tmp/unsorted.onnx' '$tmp/sorted.onnx' | grep -q 'sorted 1 graphs into topological order' &&
    /usr/bin/python3 -c \"import onnx, sys; m = onnx.load('$tmp/sorted.onnx'); onnx.checker.check_model(m, full_check=True); sys.exit(0 if [n.op_type for n in m.graph.node] == ['Relu', 'Neg'] else 1)\""
  check "optimize --keep-order leaves the order" bash -c "'$oxir' optimize '$tmp/unsorted.onnx' '$tmp/kept.onnx' --keep-order >'$tmp/ko.txt' &&
    ! grep -q topological '$tmp/ko.txt' && cmp -s '$tmp/kept.onnx' '$tmp/unsorted.onnx'"
  # optimize --inline: a model-local function with an attribute reference, called twice.
  /usr/bin/python3 - "$tmp" <<'PY'
import sys
from onnx import AttributeProto, TensorProto as T, helper as h, save
ref = AttributeProto(name="alpha", ref_attr_name="slope", type=AttributeProto.FLOAT)
body = [h.make_node("LeakyRelu", ["x"], ["t"]), h.make_node("Add", ["t", "x"], ["y"])]
body[0].attribute.append(ref)
fn = h.make_function("local", "act", ["x"], ["y"], body, [h.make_opsetid("", 17)], ["slope"])
x = h.make_tensor_value_info("X", T.FLOAT, ["N", 3])
z = h.make_tensor_value_info("Z", T.FLOAT, ["N", 3])
nodes = [h.make_node("act", ["X"], ["Y"], name="a1", domain="local", slope=0.5),
         h.make_node("act", ["Y"], ["Z"], name="a2", domain="local", slope=0.25)]
m = h.make_model(h.make_graph(nodes, "g", [x], [z]), functions=[fn],
                 opset_imports=[h.make_opsetid("", 17), h.make_opsetid("local", 1)])
save(m, sys.argv[1] + "/functions.onnx")
PY
  check "optimize --inline replaces the calls by their bodies" bash -c "'$oxir' optimize '$tmp/functions.onnx' '$tmp/inlined.onnx' --inline |
    grep -q 'inlined 2 function calls (4 nodes); 1 functions removed'"
  check "the inlined model passes onnx's checker with the slopes bound" /usr/bin/python3 -c "
import onnx, sys
m = onnx.load('$tmp/inlined.onnx'); onnx.checker.check_model(m, full_check=True)
ops = [n.op_type for n in m.graph.node]
alphas = [n.attribute[0].f for n in m.graph.node if n.op_type == 'LeakyRelu']
sys.exit(0 if ops == ['LeakyRelu', 'Add'] * 2 and alphas == [0.5, 0.25] and not m.functions and
         m.graph.node[1].output[0] == 'Y' and m.graph.node[2].input == ['Y'] else 1)"
  check "optimize with every step off changes nothing" bash -c "'$oxir' optimize '$tmp/foldable.onnx' '$tmp/same.onnx' --no-fold --no-identity --no-cse --keep-unused --keep-order |
    grep -q 'main graph: 6 -> 6 nodes' && cmp -s '$tmp/same.onnx' '$tmp/foldable.onnx'"
fi

check "infer needs IN and OUT" expect_exit 2 "infer takes IN and OUT" "$oxir" infer "$tmp/q.onnx"
check "infer of a truncated model names the file" expect_exit 1 "$tmp/cut.onnx: graph: length" "$oxir" infer "$tmp/cut.onnx" "$tmp/i.onnx"
check "infer annotates every intermediate value" bash -c "'$oxir' infer '$tmp/q.onnx' '$tmp/inf.onnx' >'$tmp/inf' 2>'$tmp/inf.err' &&
  grep -q ' 0 without a rule, 0 rejected, 0 conflicts' '$tmp/inf' && [[ ! -s '$tmp/inf.err' ]] &&
  '$oxir' info '$tmp/inf.onnx' | grep -q 'value_info: 3'"

check "convert to external data" "$oxir" convert "$tmp/q.onnx" "$tmp/ext.onnx" --external-data w.bin --size-threshold 16
check "external file holds the weights" bash -c "[[ -s '$tmp/w.bin' ]] && '$oxir' info '$tmp/ext.onnx' | grep -q 'inline=6 external=24'"
check "internalize" "$oxir" convert "$tmp/ext.onnx" "$tmp/back.onnx" --internalize
check "external and back is byte-identical" cmp -s "$tmp/q.onnx" "$tmp/back.onnx"

check "--external-data may not leave the model's folder" expect_exit 2 "leaves the model's folder" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/ext2.onnx" --external-data ../w.bin
check "--external-data may not name the model" expect_exit 2 "is the model file itself" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/ext2.onnx" --external-data ext2.onnx
check "--max-file-bytes and --internalize exclude each other" expect_exit 2 "exclude each other" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/ext2.onnx" --max-file-bytes 10 --internalize
# A write that fails names the file it was writing and the reason, and leaves no temporary file.
check "an OUT in a missing folder" expect_exit 1 "$tmp/nowhere/o.onnx: cannot open for writing: No such file or directory" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/nowhere/o.onnx"
mkdir -p "$tmp/wdir/taken.bin"
check "a data file whose name a folder has" expect_exit 1 "^oxir: $tmp/wdir/taken.bin: cannot replace" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/wdir/o.onnx" --external-data taken.bin --size-threshold 16
check "a failed write leaves nothing behind" bash -c "[[ \"\$(ls -A '$tmp/wdir')\" == taken.bin ]]"

# Weights split over several external files, read back by onnx's own loader (an independent
# reader of location/offset/length): every initializer equals the original's.
if /usr/bin/python3 -c "import onnx, numpy" 2>/dev/null; then
  mkdir -p "$tmp/split"
  /usr/bin/python3 - "$tmp/split/src.onnx" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save
rng = np.random.default_rng(7)
arrays = {
    "f32": rng.standard_normal((40, 30)).astype(np.float32),
    "i64": rng.integers(-2**40, 2**40, (300,), dtype=np.int64),
    "f16": rng.standard_normal((17, 9)).astype(np.float16),
    "f64": rng.standard_normal((500,)),
    "u8": rng.integers(0, 255, (1000,), dtype=np.uint8),
    "i8": rng.integers(-128, 127, (33,), dtype=np.int8),
    "flag": rng.integers(0, 2, (70,)).astype(bool),
    "tiny": np.array([1.5, 2.5], np.float32),
}
inits = [numpy_helper.from_array(a, n) for n, a in arrays.items()]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [40, 30])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [40, 30])
g = helper.make_graph([helper.make_node("Add", ["x", "f32"], ["y"])], "g", [x], [y], inits)
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
  check "convert splits the weights over files of at most --max-file-bytes" bash -c "
    '$oxir' convert '$tmp/split/src.onnx' '$tmp/split/m.onnx' --external-data w.bin --size-threshold 64 --max-file-bytes 5000 &&
    [[ -s '$tmp/split/w.bin' && -s '$tmp/split/w.bin.1' && -s '$tmp/split/w.bin.2' ]] &&
    for f in '$tmp'/split/w.bin*; do [[ \$(stat -c %s \"\$f\") -le 5000 ]] || exit 1; done"
  check "onnx loads the split external data and reads every tensor as the original" /usr/bin/python3 - "$tmp/split" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
src = onnx.load(os.path.join(d, "src.onnx"))
out = onnx.load(os.path.join(d, "m.onnx"))  # resolves location/offset/length itself
onnx.checker.check_model(os.path.join(d, "m.onnx"))
raw = onnx.load(os.path.join(d, "m.onnx"), load_external_data=False)
locations = {e.value for t in raw.graph.initializer for e in t.external_data if e.key == "location"}
assert len(locations) >= 3, locations
want = {t.name: numpy_helper.to_array(t) for t in src.graph.initializer}
got = {t.name: numpy_helper.to_array(t) for t in out.graph.initializer}
assert want.keys() == got.keys()
for n in want:
    assert want[n].dtype == got[n].dtype and want[n].shape == got[n].shape and np.array_equal(want[n], got[n]), n
PY
  check "split external data internalizes to the original bytes" bash -c "
    '$oxir' convert '$tmp/split/m.onnx' '$tmp/split/back.onnx' --internalize &&
    /usr/bin/python3 -c \"import onnx,sys; a=onnx.load(sys.argv[1]); b=onnx.load(sys.argv[2]); sys.exit(a.SerializeToString()!=b.SerializeToString())\" '$tmp/split/src.onnx' '$tmp/split/back.onnx'"
  # A command that derives a model from one with external data keeps it external: tensors of
  # 1 KiB and more in OUT.data (f32, i64, f64: 11,200 bytes), the rest inline (1,417 bytes);
  # onnx's loader reads every initializer back equal to the original. Without external data in,
  # nothing goes out.
  check "infer keeps external weights external, in OUT.data" bash -c "
    '$oxir' infer '$tmp/split/m.onnx' '$tmp/split/inf.onnx' >/dev/null && [[ -s '$tmp/split/inf.onnx.data' ]] &&
    '$oxir' info '$tmp/split/inf.onnx' | grep -q 'inline=1417 external=11200'"
  check "onnx reads the inferred model's weights as the original" /usr/bin/python3 - "$tmp/split" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import numpy_helper
d = sys.argv[1]
src = {t.name: numpy_helper.to_array(t) for t in onnx.load(os.path.join(d, "src.onnx")).graph.initializer}
got = {t.name: numpy_helper.to_array(t) for t in onnx.load(os.path.join(d, "inf.onnx")).graph.initializer}
assert src.keys() == got.keys(), (src.keys(), got.keys())
for n in src:
    assert src[n].dtype == got[n].dtype and np.array_equal(src[n], got[n]), n
PY
  check "optimize keeps them external too" bash -c "
    '$oxir' optimize '$tmp/split/m.onnx' '$tmp/split/opt.onnx' >/dev/null && [[ -s '$tmp/split/opt.onnx.data' ]]"
  check "a model without external data is written inline" bash -c "
    '$oxir' infer '$tmp/split/src.onnx' '$tmp/split/inf2.onnx' >/dev/null && [[ ! -e '$tmp/split/inf2.onnx.data' ]] &&
    '$oxir' info '$tmp/split/inf2.onnx' | grep -q 'inline=12617 external=0'"
  # A checksum written by Python's hashlib (SHA-1 of the data file): convert reads the data, so
  # it verifies the checksum; one changed byte in the file makes it fail, naming the tensor.
  /usr/bin/python3 - "$tmp/split" <<'PY'
import hashlib, os, sys
import onnx
d = sys.argv[1]
m = onnx.load(os.path.join(d, "m.onnx"), load_external_data=False)
sums = {}
for t in m.graph.initializer:
    loc = next((e.value for e in t.external_data if e.key == "location"), None)
    if loc is None:
        continue
    if loc not in sums:
        with open(os.path.join(d, loc), "rb") as f:
            sums[loc] = hashlib.sha1(f.read()).hexdigest()
    e = t.external_data.add()
    e.key, e.value = "checksum", sums[loc]
onnx.save(m, os.path.join(d, "sum.onnx"))
PY
  check "convert verifies external data checksums written by hashlib" \
    "$oxir" convert "$tmp/split/sum.onnx" "$tmp/split/sum_in.onnx" --internalize
  printf 'X' | dd of="$tmp/split/w.bin.1" bs=1 seek=10 conv=notrunc status=none
  check "a data file that no longer matches its checksum fails" expect_exit 1 '"i64".external_data: checksum' \
    "$oxir" convert "$tmp/split/sum.onnx" "$tmp/split/sum_in2.onnx" --internalize

fi

# A model protobuf wrote: convert rewrites it byte for byte (field order, packing, presence).
model="$(ls /usr/share/libonnx-testdata/data/pytorch-converted/*/model.onnx 2>/dev/null | head -n1)"
if [[ -n "$model" ]]; then
  check "convert keeps a protobuf-written model byte-identical" bash -c "'$oxir' convert '$model' '$tmp/pt.onnx' && cmp -s '$model' '$tmp/pt.onnx'"
  check "through external data and back as well" bash -c "'$oxir' convert '$model' '$tmp/pt_ext.onnx' --external-data pt.bin --size-threshold 64 &&
    '$oxir' convert '$tmp/pt_ext.onnx' '$tmp/pt_back.onnx' --internalize && cmp -s '$model' '$tmp/pt_back.onnx'"
fi

# The textual syntax (*.onnxtxt): to text and back gives the same model; external data comes
# inline; errors name the file, field and line; options that only a binary OUT follows are refused.
check "convert to text" bash -c "'$oxir' convert '$tmp/q.onnx' '$tmp/q.onnxtxt' &&
  grep -q '^mlp_block (float16\[N, 4\] X) => (float16\[N, 3\] Y)' '$tmp/q.onnxtxt'"
check "text back to binary is byte-identical once the typed encoding is the same" bash -c "
  '$oxir' convert '$tmp/q.onnxtxt' '$tmp/q2.onnx' && '$oxir' convert '$tmp/q2.onnx' '$tmp/q2.onnxtxt' &&
  cmp -s '$tmp/q.onnxtxt' '$tmp/q2.onnxtxt' && '$oxir' convert '$tmp/q2.onnxtxt' '$tmp/q3.onnx' && cmp -s '$tmp/q2.onnx' '$tmp/q3.onnx'"
check "external data comes inline in text" bash -c "'$oxir' convert '$tmp/ext.onnx' '$tmp/ext.onnxtxt' &&
  ! grep -q location '$tmp/ext.onnxtxt' && '$oxir' convert '$tmp/ext.onnxtxt' '$tmp/ext_back.onnx' &&
  '$oxir' info '$tmp/ext_back.onnx' | grep -q 'inline=30 external=0'"
printf 'g (float[2] x) => (float[2] y) {\n  y = Relu (x\n}\n' >"$tmp/bad.onnxtxt"
check "a text error names the file, the field and the line" \
  expect_exit 1 "$tmp/bad.onnxtxt: graph.node\[0\]: line 3, column 1: expected ')'" "$oxir" info "$tmp/bad.onnxtxt"
check "convert of a bad text names the file, the field and the line" \
  expect_exit 1 "$tmp/bad.onnxtxt: graph.node\[0\]: line 3, column 1: expected ')'" "$oxir" convert "$tmp/bad.onnxtxt" "$tmp/bad.onnx"
check "info, check and infer read text, infer writes it" bash -c "'$oxir' info '$tmp/q.onnxtxt' | grep -q 'nodes: 4' &&
  '$oxir' check '$tmp/q.onnxtxt' | grep -q 'valid (0 errors' && '$oxir' infer '$tmp/q.onnxtxt' '$tmp/qi.onnxtxt' >/dev/null &&
  grep -q 'float16\[N, 3\] XW' '$tmp/qi.onnxtxt'"
check "a textual OUT refuses --external-data" expect_exit 2 "keeps every tensor inline" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/x.onnxtxt" --external-data w2.bin
check "--lossy needs a textual OUT" expect_exit 2 "--lossy applies to a textual OUT" \
  "$oxir" convert "$tmp/q.onnx" "$tmp/x.onnx" --lossy

# extract: the sub-model between values, usage and cut errors.
check "extract needs an --output" expect_exit 2 "at least one --output" "$oxir" extract "$tmp/q.onnx" "$tmp/e.onnx"
check "extract of an unknown value names it" expect_exit 1 "outputs\[0\]: 'nope' is not a value" \
  "$oxir" extract "$tmp/q.onnx" "$tmp/e.onnx" --output nope
check "extract a middle cut" bash -c "'$oxir' extract '$tmp/q.onnx' '$tmp/e.onnxtxt' --input XW --output Y >'$tmp/e.out' &&
  grep -q 'extracted 3 of 4 nodes' '$tmp/e.out' && grep -q '^mlp_block (float16\[N, 3\] XW) => (float16\[N, 3\] Y)' '$tmp/e.onnxtxt' &&
  '$oxir' check '$tmp/e.onnxtxt' | grep -q 'valid (0 errors'"

# prefix and merge: composing models.
check "prefix takes three positionals" expect_exit 2 "prefix takes IN, OUT and PREFIX" "$oxir" prefix "$tmp/q.onnx" "$tmp/p.onnx"
check "prefix renames the interface, --keep-inputs keeps the inputs" bash -c "
  '$oxir' prefix '$tmp/q.onnx' '$tmp/p.onnxtxt' m1/ && grep -q '^mlp_block (float16\[N, 4\] \"m1/X\")' '$tmp/p.onnxtxt' &&
  '$oxir' prefix '$tmp/q.onnx' '$tmp/p2.onnxtxt' m1/ --keep-inputs && grep -q '^mlp_block (float16\[N, 4\] X) => (float16\[N, 3\] \"m1/Y\")' '$tmp/p2.onnxtxt' &&
  '$oxir' check '$tmp/p.onnxtxt' | grep -q 'valid (0 errors'"
check "prefix --dim-params renames the symbolic dims too" bash -c "
  '$oxir' prefix '$tmp/q.onnx' '$tmp/p3.onnxtxt' m1_ --dim-params && grep -q '^mlp_block (float16\[m1_N, 4\] m1_X)' '$tmp/p3.onnxtxt'"
cat >"$tmp/head.onnxtxt" <<'TXT'
<ir_version: 9, opset_import: ["" : 21]>
head (float16[N, 3] u, float16[N, 4] X) => (float16[N, 3] v) { v = Relu (u) }
TXT
check "merge needs A, B and OUT" expect_exit 2 "merge takes A, B and OUT" "$oxir" merge "$tmp/q.onnx" "$tmp/m.onnx"
check "merge refuses a seam whose dims differ" expect_exit 1 "io_map\[0\]: 'Y' cannot feed 'X': dimension 1 is 3 and 4" \
  "$oxir" merge "$tmp/q.onnx" "$tmp/q.onnx" "$tmp/m.onnx" --prefix2 b/ --connect Y X
check "merge refuses shared names" expect_exit 1 "shares 1 value name with the first ('X'); give the models prefixes" \
  "$oxir" merge "$tmp/q.onnx" "$tmp/head.onnxtxt" "$tmp/m.onnx" --connect Y u
check "merge connects an output to an input" bash -c "'$oxir' merge '$tmp/q.onnx' '$tmp/head.onnxtxt' '$tmp/m.onnxtxt' --connect Y u --prefix2 h. >'$tmp/m.out' &&
  grep -q 'merged 4 + 1 nodes into 5; 2 inputs, 1 outputs' '$tmp/m.out' && grep -q '\"h.v\" = Relu (Y)' '$tmp/m.onnxtxt' &&
  '$oxir' check '$tmp/m.onnxtxt' | grep -q 'valid (0 errors'"
check "merge --prefix-dim-params keeps the two models' sizes apart" bash -c "
  '$oxir' merge '$tmp/q.onnx' '$tmp/head.onnxtxt' '$tmp/m2.onnxtxt' --prefix1 a_ --prefix2 b_ --prefix-dim-params &&
  grep -q '(float16\[a_N, 4\] a_X, float16\[b_N, 3\] b_u, float16\[b_N, 4\] b_X)' '$tmp/m2.onnxtxt'"

# upgrade: to a newer opset.
cat >"$tmp/old.onnxtxt" <<'TXT'
<ir_version: 4, opset_import: ["" : 9]>
old (float[4, 6] x) => (float[2, 6] y) { y = Slice <starts = [1], ends = [3], axes = [0]> (x) }
TXT
check "upgrade needs --opset" expect_exit 2 "upgrade needs --opset N" "$oxir" upgrade "$tmp/old.onnxtxt" "$tmp/new.onnxtxt"
check "upgrade refuses a downgrade" expect_exit 1 "downgrade_opset reaches 8" \
  "$oxir" upgrade "$tmp/old.onnxtxt" "$tmp/new.onnxtxt" --opset 8
check "upgrade moves Slice's attributes into inputs" bash -c "'$oxir' upgrade '$tmp/old.onnxtxt' '$tmp/new.onnxtxt' --opset 13 >'$tmp/u.out' &&
  grep -q 'opset 9 -> 13: 1 nodes rewritten, 3 added; ir_version 4 -> 7' '$tmp/u.out' && grep -q 'opset_import: \[\"\" : 13\]' '$tmp/new.onnxtxt' &&
  grep -q 'y = Slice (x, y_starts, y_ends, y_axes)' '$tmp/new.onnxtxt' && '$oxir' check '$tmp/new.onnxtxt' | grep -q 'valid (0 errors'"
check "downgrade refuses an opset below 7" expect_exit 1 "downgrading to opset 6 is not supported" \
  "$oxir" downgrade "$tmp/new.onnxtxt" "$tmp/back.onnxtxt" --opset 6
check "downgrade makes Slice's constant inputs attributes again" bash -c "'$oxir' downgrade '$tmp/new.onnxtxt' '$tmp/back.onnxtxt' --opset 9 >'$tmp/d.out' &&
  grep -q 'opset 13 -> 9: 1 nodes rewritten, 0 added; ir_version 7 -> 4' '$tmp/d.out' && grep -q '<ir_version: 4,' '$tmp/back.onnxtxt' &&
  grep -q 'y = Slice <starts = \[1\], ends = \[3\], axes = \[0\]> (x)' '$tmp/back.onnxtxt' && '$oxir' check '$tmp/back.onnxtxt' | grep -q 'valid (0 errors'"

echo "cli: $passed passed, $failed failed"
[[ $failed == 0 ]]
