// Control flow: If, Loop, Scan, SequenceMap, outer-scope values, and functions per call site.
// Uses a registry with the control rules plus simple rules defined here, so that these tests do
// not depend on other operator families.
#include <doctest/doctest.h>

#include <initializer_list>

#include "infer_test_util.hpp"

namespace oxir_unit_test_infer_control {

using namespace oxir;
using namespace oxir::infer;
using namespace oxir_test;

namespace {
void r_identity(InferContext& c) {
  c.set_output(0, c.input_type(0));
  if (auto v = c.input_value(0)) c.set_output_value(0, *v);
}
void r_add(InferContext& c) {
  if (!c.input_shape(0) || !c.input_shape(1)) return c.set_output(0, ValueType::tensor(c.input_elem(0)));
  c.set_output(0, c.input_elem(0), c.broadcast(*c.input_shape(0), *c.input_shape(1)));
}
void r_concat0(InferContext& c) {  // Concat on axis 0 of rank-1 tensors
  DimExpr n = 0;
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    if (!c.input_shape(i) || c.input_shape(i)->size() != 1) return c.set_output(0, ValueType::tensor(c.input_elem(0)));
    n += (*c.input_shape(i))[0];
  }
  c.set_output(0, c.input_elem(0), {n});
}
void r_true(InferContext& c) {  // a constant true
  c.set_output(0, DataType::BOOL, {});
  c.set_output_value(0, {DimExpr(1)});
}
InferReport run(Model& m, InferOptions o = {}) {
  OpRegistry reg;
  ops::register_control_ops(reg);
  reg.add("", "Identity", &r_identity);
  reg.add("", "Add", &r_add);
  reg.add("", "Concat", &r_concat0);
  reg.add("", "True", &r_true);
  Engine e(m, o, reg);
  return e.run();
}
/// prefix followed by the number n ("y12"); built with += (GCC 12 reports a false -Wrestrict
/// for "y" + std::to_string(n) once inlined into a long test function).
std::string numbered(const char* prefix, int n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}
/// Appends untyped outputs named `names` to `g`.
void add_outputs(Graph& g, std::initializer_list<const char*> names) {
  for (const char* o : names) {
    ValueInfo v;
    v.name = o;
    g.outputs.push_back(v);
  }
}
Graph branch(std::vector<Node> nodes, std::vector<std::string> outs) {
  Graph g;
  g.nodes = std::move(nodes);
  for (auto& o : outs) {
    ValueInfo v;
    v.name = o;
    g.outputs.push_back(v);
  }
  return g;
}
}  // namespace

TEST_CASE("If: equal dims kept, differing dims become a new symbol, differing ranks unknown") {
  Node n("If", {"c"}, {"y", "z", "w"});
  n.set_attribute(Attribute("then_branch", branch({Node("Identity", {"a"}, {"t1"}), Node("Identity", {"a"}, {"t2"}),
                                                   Node("Identity", {"a"}, {"t3"})},
                                                  {"t1", "t2", "t3"})));
  n.set_attribute(Attribute("else_branch", branch({Node("Add", {"a", "a"}, {"e1"}), Node("Identity", {"b"}, {"e2"}),
                                                   Node("Identity", {"v"}, {"e3"})},
                                                  {"e1", "e2", "e3"})));
  auto m = make_model({n}, {{"c", DataType::BOOL, {}}, {"a", DataType::FLOAT, {"N", "S"}},
                            {"b", DataType::FLOAT, {"N", "T"}}, {"v", DataType::FLOAT, {"N"}}});
  auto rep = run(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "y") == "FLOAT[N,S]");
  CHECK(type_of(m, "z") == "FLOAT[N,unk__0]");  // S in one branch, T in the other
  CHECK(type_of(m, "w") == "FLOAT[*]");
  // Values inside the branches were annotated, in the branch graphs.
  const auto& eb = m.graph.nodes[0].find_attribute("else_branch")->as_graph();
  CHECK(type_of(eb, "e1") == "FLOAT[N,S]");  // outer-scope value seen inside
  // The branches' own outputs are typed too.
  CHECK(type_str(*eb.outputs[1].type) == "FLOAT[N,T]");
}

TEST_CASE("If: mismatched element types and branch output counts are diagnosed") {
  Node n("If", {"c"}, {"y"});
  n.set_attribute(Attribute("then_branch", branch({Node("Identity", {"a"}, {"t1"})}, {"t1"})));
  n.set_attribute(Attribute("else_branch", branch({Node("Identity", {"i"}, {"e1"})}, {"e1"})));
  auto m = make_model({n}, {{"c", DataType::BOOL, {}}, {"a", DataType::FLOAT, {"N"}}, {"i", DataType::INT64, {"N"}}});
  auto rep = run(m);
  CHECK(rep.nodes_failed == 1);
  Node k("If", {"c"}, {"y", "z"});
  k.set_attribute(Attribute("then_branch", branch({Node("Identity", {"a"}, {"t1"})}, {"t1"})));
  k.set_attribute(Attribute("else_branch", branch({Node("Identity", {"a"}, {"e1"})}, {"e1"})));
  auto m2 = make_model({k}, {{"c", DataType::BOOL, {}}, {"a", DataType::FLOAT, {"N"}}});
  CHECK(run(m2).nodes_failed == 1);
  CHECK_THROWS_AS(run(m2, InferOptions{.strict = true}), Error);
}

TEST_CASE("Loop: carried values reach a fixed point; scan outputs stack per iteration") {
  // body(i, cond, acc[K], x[N]) -> (cond', acc' = concat(acc, one), x' = x, scan = x)
  Graph body;
  body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}),
                 ValueInfo{}, ValueInfo{}};
  body.inputs[2].name = "acc";
  body.inputs[3].name = "x";
  body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("Concat", {"acc", "one"}, {"acc2"}),
                Node("Identity", {"x"}, {"x2"}), Node("Add", {"x", "x"}, {"s"})};
  add_outputs(body, {"cout", "acc2", "x2", "s"});
  Node loop("Loop", {"M", "", "acc0", "x0"}, {"acc_f", "x_f", "scan"});
  loop.set_attribute(Attribute("body", body));
  auto m = make_model({Node("Identity", {"Ms"}, {"M"}), loop},
                      {{"Ms", DataType::INT64, {}}, {"acc0", DataType::FLOAT, {"K"}}, {"x0", DataType::FLOAT, {"N"}},
                       {"one", DataType::FLOAT, {"1"}}});
  auto rep = run(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "x_f") == "FLOAT[N]");      // unchanged by the body
  const std::string acc = type_of(m, "acc_f");  // grows each iteration: not K
  CHECK(acc.rfind("FLOAT[unk__", 0) == 0);
  // The trip count is M's value, but M's value is not known here: a new symbol.
  const std::string scan = type_of(m, "scan");
  CHECK(scan.rfind("FLOAT[unk__", 0) == 0);
  CHECK(scan.substr(scan.find(',')) == ",N]");
  const auto& b = m.graph.nodes[1].find_attribute("body")->as_graph();
  CHECK(type_str(*b.inputs[3].type) == "FLOAT[N]");
  CHECK(type_str(*b.inputs[2].type) != "FLOAT[K]");  // the carried size varies: not claimed to be K
}

TEST_CASE("Loop: a for-loop with constant-true condition has M iterations") {
  Graph body;
  body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}})};
  body.nodes = {Node("True", {}, {"cout"}), Node("Identity", {"x"}, {"s"})};
  add_outputs(body, {"cout", "s"});
  Node loop("Loop", {"M", ""}, {"scan"});
  loop.set_attribute(Attribute("body", body));
  auto m = make_model({loop}, {{"x", DataType::FLOAT, {"N", "3"}}}, {ints("M", {5}, true)});
  run(m);
  CHECK(type_of(m, "scan") == "FLOAT[5,N,3]");
}

TEST_CASE("Loop: a body that declares the iteration number and condition as [1] gets them as [1]") {
  // torch declares them so, and ONNX Runtime then feeds one-element 1-D tensors (it reads the
  // body's declared rank); a scalar would contradict the declaration and everything built on it.
  auto make = [](std::vector<std::string> iter_dims) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, iter_dims}), value_info_of({"cin", DataType::BOOL, iter_dims})};
    body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("Identity", {"i"}, {"i2"}), Node("Add", {"i", "i"}, {"s"})};
    add_outputs(body, {"cout", "s"});
    Node loop("Loop", {"M", "c"}, {"scan"});
    loop.set_attribute(Attribute("body", body));
    return make_model({loop}, {{"M", DataType::INT64, {"1"}}, {"c", DataType::BOOL, {"1"}}});
  };
  auto one_d = make({"1"});
  auto rep = run(one_d);
  CHECK(rep.diagnostics.empty());
  const auto& b = one_d.graph.nodes[0].find_attribute("body")->as_graph();
  REQUIRE(b.value_info.size() >= 1);
  for (const auto& v : b.value_info)
    if (v.name == "i2") CHECK(type_str(*v.type) == "INT64[1]");
  CHECK(type_of(one_d, "scan").substr(type_of(one_d, "scan").find(',')) == ",1]");
  // Declared as scalars: scalars.
  auto scalar = make({});
  CHECK(run(scalar).diagnostics.empty());
  CHECK(type_of(scalar, "scan").find(',') == std::string::npos);
  // Declared with rank 2: neither form ONNX allows, a conflict.
  auto bad = make({"1", "1"});
  CHECK_FALSE(run(bad).diagnostics.empty());
}

TEST_CASE("Loop: a sequence appended to every iteration ends with init + k * M elements") {
  // torch.jit.script: out = []; for t in range(x.shape[0]): out.append(x[t]); torch.stack(out)
  // body(i, cin, sq) -> (cin, SequenceInsert(sq, Gather(x, i)) `inserts` times)
  auto model = [](int inserts, bool known_m, bool empty_init) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "sq";
    body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("Gather", {"x", "i"}, {"xi"})};
    std::string cur = "sq";
    for (int k = 0; k < inserts; ++k) {
      std::string next = cur;
      next += 'x';  // sq, sqx, sqxx, ...
      body.nodes.emplace_back("SequenceInsert", std::vector<std::string>{cur, "xi"}, std::vector<std::string>{next});
      cur = next;
    }
    add_outputs(body, {"cout", cur.c_str()});
    Node loop("Loop", {known_m ? "T" : "Tin", "", "sq0"}, {"sq_f"});
    loop.set_attribute(Attribute("body", body));
    Node init = empty_init ? Node("SequenceEmpty", {}, {"sq0"}) : Node("SequenceConstruct", {"first"}, {"sq0"});
    Node stack("ConcatFromSequence", {"sq_f"}, {"y"});
    stack.set_attribute(Attribute("axis", 0));
    stack.set_attribute(Attribute("new_axis", 1));
    Node gather("Gather", {"s", "zero"}, {"T"});
    auto m = make_model({Node("Shape", {"x"}, {"s"}), gather, init, loop, stack},
                        {{"x", DataType::FLOAT, {"T", "B", "4"}}, {"first", DataType::FLOAT, {"B", "4"}},
                         {"Tin", DataType::INT64, {}}},
                        {ints("zero", {0}, true)}, 17);
    infer_shapes(m);
    return type_of(m, "y");
  };
  CHECK(model(1, true, true) == "FLOAT[T,B,4]");
  CHECK(model(2, true, true) == "FLOAT[2*T,B,4]");
  CHECK(model(1, true, false) == "FLOAT[T+1,B,4]");
  CHECK(model(0, true, false) == "FLOAT[1,B,4]");
  // The trip count unknown: the length is not claimed.
  CHECK(model(1, false, true).rfind("FLOAT[unk__", 0) == 0);
}

TEST_CASE("Loop: a tensor the body concatenates to every iteration ends with init + k * M") {
  // A greedy decoding loop: for t in range(T): tokens = concat(tokens, step) along axis 1.
  // `step` is what the body appends each iteration; `cond` how the body computes its condition.
  enum class Step { One, Two, Outer, Itself, Iteration };
  auto model = [](Step step, bool const_cond) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "tok";
    body.nodes = {const_cond ? Node("Identity", {"cin"}, {"cout"}) : Node("Greater", {"i", "lim"}, {"cout"})};
    std::string piece;
    switch (step) {
      case Step::One: piece = "one"; break;
      case Step::Two: piece = "two"; break;
      case Step::Outer: piece = "h"; break;  // [B, H]: H does not change between iterations
      case Step::Itself: piece = "tok"; break;  // doubles: not a fixed step
      case Step::Iteration: {  // [B, i]: a step that grows with the iteration number
        body.nodes.emplace_back("Unsqueeze", std::vector<std::string>{"i", "ax0"}, std::vector<std::string>{"iv"});
        body.nodes.emplace_back("Concat", std::vector<std::string>{"sb", "iv"}, std::vector<std::string>{"shp"});
        body.nodes.back().set_attribute(Attribute("axis", 0));
        body.nodes.emplace_back("ConstantOfShape", std::vector<std::string>{"shp"}, std::vector<std::string>{"zi"});
        body.nodes.emplace_back("Cast", std::vector<std::string>{"zi"}, std::vector<std::string>{"z"});
        body.nodes.back().set_attribute(Attribute("to", static_cast<std::int64_t>(DataType::INT64)));
        piece = "z";
        break;
      }
    }
    Node cat("Concat", {"tok", piece}, {"tok2"});
    cat.set_attribute(Attribute("axis", 1));
    body.nodes.push_back(cat);
    add_outputs(body, {"cout", "tok2"});
    Node loop("Loop", {"T", "", "tok0"}, {"tok_f"});
    loop.set_attribute(Attribute("body", body));
    Node gather("Gather", {"s", "zero"}, {"T"});
    Node sb("Shape", {"one"}, {"sb"});  // [B]
    sb.set_attribute(Attribute("end", std::int64_t{1}));
    auto m = make_model({Node("Shape", {"x"}, {"s"}), gather, sb, loop},
                        {{"x", DataType::FLOAT, {"T", "4"}}, {"tok0", DataType::INT64, {"B", "S"}},
                         {"one", DataType::INT64, {"B", "1"}}, {"two", DataType::INT64, {"B", "2"}},
                         {"h", DataType::INT64, {"B", "H"}}, {"lim", DataType::INT64, {}}},
                        {ints("zero", {0}, true), ints("ax0", {0})}, 17);
    auto rep = infer_shapes(m);
    CHECK_FALSE(rep.has_errors());
    return type_of(m, "tok_f");
  };
  // Terms print with symbols in the order the model introduces them (T, B, S, H).
  CHECK(model(Step::One, true) == "INT64[B,T+S]");
  CHECK(model(Step::Two, true) == "INT64[B,2*T+S]");
  CHECK(model(Step::Outer, true) == "INT64[B,T*H+S]");  // H does not change between iterations
  // Not a fixed step, or not a known number of iterations: the size is not claimed.
  CHECK(model(Step::Itself, true).rfind("INT64[B,unk__", 0) == 0);
  CHECK(model(Step::Iteration, true).rfind("INT64[B,unk__", 0) == 0);
  CHECK(model(Step::One, false).rfind("INT64[B,unk__", 0) == 0);
}

TEST_CASE("Scan (opset 9+): sequence length from the scan axis; states keep their shape") {
  Graph body;
  body.inputs = {ValueInfo{}, ValueInfo{}};
  body.inputs[0].name = "st";
  body.inputs[1].name = "xi";
  body.nodes = {Node("Add", {"st", "xi"}, {"st2"}), Node("Identity", {"xi"}, {"yo"})};
  add_outputs(body, {"st2", "yo"});
  Node scan("Scan", {"s0", "x"}, {"sf", "y"});
  scan.set_attribute(Attribute("body", body));
  scan.set_attribute(Attribute("num_scan_inputs", std::int64_t{1}));
  scan.set_attribute(Attribute("scan_input_axes", std::vector<std::int64_t>{1}));
  scan.set_attribute(Attribute("scan_output_axes", std::vector<std::int64_t>{-1}));
  auto m = make_model({scan}, {{"s0", DataType::FLOAT, {"D"}}, {"x", DataType::FLOAT, {"D", "T"}}});
  auto rep = run(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "sf") == "FLOAT[D]");
  CHECK(type_of(m, "y") == "FLOAT[D,T]");  // slices [D] stacked on the last axis
}

TEST_CASE("Model-local functions are inferred per call site with attribute binding") {
  Model m = make_model({Node("Twice", {"a"}, {"y"}, "call1", "local"), Node("Twice", {"b"}, {"z"}, "call2", "local")},
                       {{"a", DataType::FLOAT, {"N"}}, {"b", DataType::INT64, {"2", "M"}}});
  m.set_opset_version("local", 1);
  Function f;
  f.name = "Twice";
  f.domain = "local";
  f.inputs = {"x"};
  f.outputs = {"o"};
  f.nodes = {Node("Add", {"x", "x"}, {"t"}), Node("Identity", {"t"}, {"o"})};
  f.opset_imports = m.opset_imports;
  m.functions.push_back(f);
  auto rep = run(m);
  CHECK(rep.diagnostics.empty());
  CHECK(type_of(m, "y") == "FLOAT[N]");
  CHECK(type_of(m, "z") == "INT64[2,M]");
  CHECK(m.functions[0].value_info.empty());  // bodies are not annotated per call site
}

TEST_CASE("Function bodies on request: annotated with what holds at every call site") {
  auto make = [] {
    Model m = make_model({Node("Twice", {"a"}, {"y"}, "call1", "local"), Node("Twice", {"b"}, {"z"}, "call2", "local")},
                         {{"a", DataType::FLOAT, {"N", "4"}}, {"b", DataType::FLOAT, {"N", "5"}}});
    m.set_opset_version("local", 1);
    Function f;
    f.name = "Twice";
    f.domain = "local";
    f.inputs = {"x"};
    f.outputs = {"o"};
    f.nodes = {Node("Add", {"x", "x"}, {"t"}), Node("Identity", {"t"}, {"o"})};
    f.opset_imports = m.opset_imports;
    m.functions.push_back(f);
    return m;
  };
  auto m = make();
  run(m, InferOptions{.annotate_functions = true});
  REQUIRE(m.functions[0].value_info.size() == 1);  // t (o is the function's output)
  const std::string t = type_str(*m.functions[0].value_info[0].type);
  CHECK(t.rfind("FLOAT[N,unk__", 0) == 0);  // N at both calls; 4 vs 5 differ
  auto one = make();
  one.graph.nodes.pop_back();
  run(one, InferOptions{.annotate_functions = true});
  CHECK(type_str(*one.functions[0].value_info.at(0).type) == "FLOAT[N,4]");
}

TEST_CASE("Loops nested 40 deep whose carried values change: bounded work, not 2^40 body runs") {
  // Each level's carried value starts as the outer input v[K] and grows by one element per
  // iteration, so every Loop needs two passes to reach its fixed point, and each pass re-runs the
  // Loops nested in its body. Without the shared budget of extra body runs this never finishes
  // (tests/fuzz/regressions/nested_loops_2pow_depth.onnx is the same shape, found while fuzzing).
  const int depth = 40;
  Graph inner;
  for (int d = depth - 1; d >= 0; --d) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "x";
    body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("Concat", {"x", "one"}, {"y"})};
    std::vector<std::string> outs = {"cout", "y"};
    if (d + 1 < depth) {
      Node l("Loop", {"", "", "v"}, {"z"});
      l.set_attribute(Attribute("body", std::move(inner)));
      body.nodes.push_back(std::move(l));
      outs.push_back("z");
    }
    for (const auto& o : outs) {
      ValueInfo vi;
      vi.name = o;
      body.outputs.push_back(vi);
    }
    inner = std::move(body);
  }
  Node loop("Loop", {"", "", "v"}, {"out", "scan"});
  loop.set_attribute(Attribute("body", std::move(inner)));
  auto m = make_model({loop}, {{"v", DataType::FLOAT, {"K"}}, {"one", DataType::FLOAT, {"1"}}});
  auto rep = run(m);
  CHECK(rep.nodes < 50000);  // (1 + budget + depth) runs of each body at most: ~17,000 node visits
  CHECK(type_of(m, "out").rfind("FLOAT", 0) == 0);
  CHECK(type_of(m, "out") != "FLOAT[K]");  // it grows: never claimed to keep the initial size

  // A single level keeps its precise fixed point.
  Graph body;
  body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
  body.inputs[2].name = "x";
  body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("Concat", {"x", "one"}, {"y"})};
  add_outputs(body, {"cout", "y"});
  Node one_loop("Loop", {"", "", "v"}, {"out"});
  one_loop.set_attribute(Attribute("body", std::move(body)));
  auto m1 = make_model({one_loop}, {{"v", DataType::FLOAT, {"K"}}, {"one", DataType::FLOAT, {"1"}}});
  run(m1);
  CHECK(type_of(m1, "out").rfind("FLOAT[unk__", 0) == 0);  // rank kept, size a new symbol
}

TEST_CASE("Subgraphs nested thousands deep: a diagnostic, not a stack overflow") {
  Graph inner = branch({Node("Identity", {"x"}, {"y0"})}, {"y0"});
  const int depth = 3000;
  for (int d = 1; d < depth; ++d) {
    Node n("If", {"c"}, {numbered("y", d)});
    n.set_attribute(Attribute("then_branch", std::move(inner)));
    n.set_attribute(Attribute("else_branch", branch({Node("Identity", {"x"}, {numbered("z", d)})}, {numbered("z", d)})));
    inner = branch({}, {numbered("y", d)});
    inner.nodes.push_back(std::move(n));
  }
  Model m = make_model({}, {{"x", DataType::FLOAT, {"N"}}, {"c", DataType::BOOL, {}}});
  m.graph = std::move(inner);
  m.graph.inputs = {value_info_of({"x", DataType::FLOAT, {"N"}}), value_info_of({"c", DataType::BOOL, {}})};
  // Written out of order at the top, so that the dependency walk is exercised too.
  m.graph.nodes.insert(m.graph.nodes.begin(), Node("Identity", {numbered("y", depth - 1)}, {"w"}));
  auto rep = run(m);
  CHECK(rep.nodes_failed >= 1);
  bool named = false;
  for (const auto& d : rep.diagnostics) named = named || d.message.find("nested deeper") != std::string::npos;
  CHECK(named);
  CHECK(type_of(m, "w").rfind("FLOAT", 0) == 0);  // the element type survives the unknown branch
}

namespace {
/// x[N] -> f0 -> y, where local function f<d> calls f<d+1> twice in a row and f<depth> is one
/// `leaf` node: 2^depth body inferences without a budget.
Model fanout_model(int depth, const char* leaf, DataType elem) {
  Model m = make_model({Node("f0", {"x"}, {"y"}, "call", "local")}, {{"x", elem, {"N"}}});
  m.set_opset_version("local", 1);
  for (int d = 0; d <= depth; ++d) {
    Function f;
    f.name = "f" + std::to_string(d);
    f.domain = "local";
    f.inputs = {"a"};
    f.outputs = {"c"};
    if (d == depth) {
      f.nodes = {Node(leaf, {"a"}, {"c"})};
    } else {
      const std::string next = "f" + std::to_string(d + 1);
      f.nodes = {Node(next, {"a"}, {"b"}, "", "local"), Node(next, {"b"}, {"c"}, "", "local")};
    }
    f.opset_imports = m.opset_imports;
    m.functions.push_back(f);
  }
  return m;
}
}  // namespace

TEST_CASE("Functions that call each other several times: a budget of body inferences, not 2^depth") {
  // f0 calls f1 twice, f1 calls f2 twice, … f29 calls f30 (an Identity) twice: 2^30 body
  // inferences without a budget (tests/fuzz/regressions/function_fanout_2pow_depth.onnx).
  Model m = fanout_model(30, "Identity", DataType::FLOAT);
  const auto rep = oxir::infer_shapes(m);
  CHECK(rep.nodes < 2'000'000);
  bool budget_said = false;
  for (const auto& d : rep.diagnostics) budget_said = budget_said || d.message.find("budget") != std::string::npos;
  CHECK(budget_said);
  CHECK(type_of(m, "y") == "?");  // never claimed: the call's outputs stay unknown

  // A shallow fan-out stays exact: f27 … f30 is 2^3 calls.
  Model shallow = m;
  shallow.graph.nodes[0].op_type = "f27";
  shallow.graph.value_info.clear();
  shallow.graph.outputs[0].type.reset();
  const auto rep2 = oxir::infer_shapes(shallow);
  CHECK(rep2.diagnostics.empty());
  CHECK(type_of(shallow, "y") == "FLOAT[N]");
}

TEST_CASE("Operator versions are read from long lists of imports, in the graph and in function bodies") {
  // ReduceSum takes `axes` as an attribute up to opset 12: read at the newest version (what an
  // operator whose domain is not found gets), the attribute is not its axes.
  auto imports = [](std::size_t extra, std::int64_t version) {
    std::vector<OperatorSetId> v;
    for (std::size_t i = 0; i < extra; ++i) v.push_back({"d" + std::to_string(i), 1, {}, {}});
    v.push_back({"", version, {}, {}});  // the default domain, last
    return v;
  };
  auto reduce = [](const std::string& in, const std::string& out) {
    Node n("ReduceSum", {in}, {out});
    n.attributes.emplace_back("axes", std::vector<std::int64_t>{1});
    n.attributes.emplace_back("keepdims", std::int64_t{0});
    return n;
  };
  for (const std::size_t extra : {std::size_t{0}, std::size_t{30}}) {
    CAPTURE(extra);
    Model m = make_model({reduce("x", "y")}, {{"x", DataType::FLOAT, {"N", "3"}}});
    m.opset_imports = imports(extra, 11);
    const auto rep = oxir::infer_shapes(m);
    CHECK(rep.nodes_failed == 0);
    CHECK(type_of(m, "y") == "FLOAT[N]");

    Model call = make_model({Node("f", {"x"}, {"y"}, "call", "local")}, {{"x", DataType::FLOAT, {"N", "3"}}});
    call.opset_imports = imports(extra, 17);
    call.set_opset_version("local", 1);
    Function f;
    f.name = "f";
    f.domain = "local";
    f.inputs = {"a"};
    f.outputs = {"c"};
    f.nodes = {reduce("a", "c")};
    f.opset_imports = imports(extra, 11);  // the body's own version of the default domain
    call.functions.push_back(f);
    const auto rep2 = oxir::infer_shapes(call);
    CHECK(rep2.nodes_failed == 0);
    CHECK(type_of(call, "y") == "FLOAT[N]");
  }
}

TEST_CASE("Calls find their function among many, by domain, name and overload") {
  Model m = make_model({Node("g", {"x"}, {"y"}, "call1", "local"), Node("g", {"x"}, {"z"}, "call2", "local")},
                       {{"x", DataType::FLOAT, {"N"}}});
  m.graph.nodes[1].overload = "two";
  m.graph.outputs.push_back(ValueInfo{});
  m.graph.outputs.back().name = "y";
  m.set_opset_version("local", 1);
  m.set_opset_version("other", 1);
  auto function = [&](std::string domain, std::string name, std::string overload, Node body) {
    Function f;
    f.name = std::move(name);
    f.domain = std::move(domain);
    f.overload = std::move(overload);
    f.inputs = {"a"};
    f.outputs = {"c"};
    f.nodes = {std::move(body)};
    f.opset_imports = m.opset_imports;
    m.functions.push_back(std::move(f));
  };
  Node twice("Concat", {"a", "a"}, {"c"});
  twice.attributes.emplace_back("axis", std::int64_t{0});
  Node thrice("Concat", {"a", "a", "a"}, {"c"});
  thrice.attributes.emplace_back("axis", std::int64_t{0});
  for (int i = 0; i < 20; ++i) function("local", "f" + std::to_string(i), "", Node("Identity", {"a"}, {"c"}));
  function("other", "g", "", thrice);         // another domain
  function("local", "g", "three", thrice);    // another overload
  function("local", "g", "", Node("Neg", {"a"}, {"c"}));
  function("local", "g", "two", twice);
  function("local", "g", "", thrice);         // a second definition: the first counts, as find_function says
  REQUIRE(m.find_function("local", "g") == &m.functions[22]);
  const auto rep = oxir::infer_shapes(m);
  CHECK(rep.nodes_failed == 0);
  CHECK(type_of(m, "y") == "FLOAT[N]");
  CHECK(type_of(m, "z") == "FLOAT[2*N]");
}

TEST_CASE("A rejected function-body node costs the function budget what it takes") {
  // A rejection unwinds an exception and writes a diagnostic, about ten times the work of a node
  // inferred: a 10 MB file of functions calling each other, their bodies all invalid nodes, took
  // 88 s when rejections cost what a valid node costs.
  Model bad = fanout_model(30, "Concat", DataType::FLOAT);  // Concat without `axis`: rejected at every call
  Model good = fanout_model(30, "Identity", DataType::FLOAT);
  const auto rb = oxir::infer_shapes(bad);
  const auto rg = oxir::infer_shapes(good);
  INFO("valid leaves: ", rg.nodes, " nodes, ", rg.nodes_failed, " rejected; invalid: ", rb.nodes, ", ", rb.nodes_failed);
  CHECK(rg.nodes_failed < 100);  // only the calls past the budget
  CHECK(rb.nodes_failed > 1000);
  // per leaf call: two calling nodes and the leaf, charged 2 + 1 units valid, 2 + 1 + 9 rejected
  CHECK(rb.nodes * 3 < rg.nodes);
  CHECK(rb.nodes * 5 > rg.nodes);
  CHECK(type_of(bad, "y") == "?");
}

TEST_CASE("Diagnostics repeated by call sites: the report's text is capped, every one still counted") {
  // f0 calls f1 twice, … f39 calls f40, a Sqrt of int64 (a type error), twice: the budget still
  // lets ~50,000 body nodes be inferred, each error with a path through up to 40 calls (over a
  // kilobyte). Found by fuzzing: a 2.3 KB model kept 30 MB of diagnostics.
  Model m = fanout_model(40, "Sqrt", DataType::INT64);
  const auto rep = oxir::infer_shapes(m);
  CHECK(rep.type_errors > 10000);  // every Sqrt visit counted
  CHECK(rep.diagnostics_dropped > 0);
  CHECK(rep.diagnostics.size() + rep.diagnostics_dropped >= rep.type_errors);
  std::size_t bytes = 0;
  for (const auto& d : rep.diagnostics) bytes += d.where.size() + d.message.size() + d.node.size() + d.op_type.size();
  CHECK(bytes <= InferOptions{}.max_diagnostic_bytes);
  CHECK(bytes > InferOptions{}.max_diagnostic_bytes / 2);  // the cap is what stopped it
  CHECK(rep.has_errors());

  InferOptions few;
  few.max_diagnostics = 5;
  const auto rep5 = oxir::infer_shapes(m, few);
  CHECK(rep5.diagnostics.size() == 5);
  CHECK(rep5.type_errors == rep.type_errors);
  CHECK(rep5.diagnostics_dropped == rep.diagnostics.size() + rep.diagnostics_dropped - 5);
}

TEST_CASE("Loop: a trip count that is a number has its iterations followed one by one") {
  // for _ in range(M): v = v + r   with v0 [N,1] and an outer r [N,W]: v is [N,W] after the
  // first iteration and stays so; widening alone would only say [N,?]. The scan output s = v
  // (the value entering each iteration) is [N,1] in the first and [N,W] in the others.
  auto model = [](std::vector<Tensor> inits, const char* trips) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "v";
    body.nodes = {Node("True", {}, {"cout"}), Node("Add", {"v", "r"}, {"v2"}), Node("Identity", {"v"}, {"s"})};
    add_outputs(body, {"cout", "v2", "s"});
    Node loop("Loop", {trips, "", "v0"}, {"v_f", "s_f"});
    loop.set_attribute(Attribute("body", body));
    auto m = make_model({loop}, {{"v0", DataType::FLOAT, {"N", "1"}}, {"r", DataType::FLOAT, {"N", "W"}},
                                 {"T", DataType::INT64, {}}},
                        std::move(inits));
    auto rep = run(m);
    CHECK(rep.diagnostics.empty());
    return m;
  };
  {
    auto m = model({ints("M", {3}, true)}, "M");
    CHECK(type_of(m, "v_f") == "FLOAT[N,W]");
    const std::string s = type_of(m, "s_f");  // 3 slices, [N,1] then [N,W] twice: the last size varies
    CHECK(s.rfind("FLOAT[3,N,unk__", 0) == 0);
    // The body's own annotations hold in every iteration, the first one included: v is not [N,W].
    const auto& b = m.graph.nodes[0].find_attribute("body")->as_graph();
    const std::string bv = type_str(*b.inputs[2].type);
    CHECK(bv.rfind("FLOAT[N,unk__", 0) == 0);
  }
  {
    auto m = model({ints("M", {1}, true)}, "M");  // one iteration: the slice is v0's
    CHECK(type_of(m, "v_f") == "FLOAT[N,W]");
    CHECK(type_of(m, "s_f") == "FLOAT[1,N,1]");
  }
  {
    // No iteration: the initial value exactly; no slice says what the scan output's other
    // sizes are (ONNX Runtime makes those it cannot see 0).
    auto m = model({ints("M", {0}, true)}, "M");
    CHECK(type_of(m, "v_f") == "FLOAT[N,1]");
    CHECK(type_of(m, "s_f").rfind("FLOAT[0,unk__", 0) == 0);
    // A negative trip count runs no iteration either.
    auto neg = model({ints("M", {-3}, true)}, "M");
    CHECK(type_of(neg, "v_f") == "FLOAT[N,1]");
    CHECK(type_of(neg, "s_f").rfind("FLOAT[0,unk__", 0) == 0);
  }
  {
    auto m = model({}, "T");  // not a number: may be 0 iterations, so neither [N,1] nor [N,W]
    const std::string v = type_of(m, "v_f");
    CHECK(v.rfind("FLOAT[N,unk__", 0) == 0);
  }
  {
    // Far more iterations than are followed: the second one returns its input unchanged, [N,W]
    // + [N,W], so every later one does too.
    auto m = model({ints("M", {1000}, true)}, "M");
    CHECK(type_of(m, "v_f") == "FLOAT[N,W]");
    CHECK(type_of(m, "s_f").rfind("FLOAT[1000,N,unk__", 0) == 0);
  }
}

TEST_CASE("Loop: a size that grows every iteration ends at init + k * M, followed or not") {
  // for _ in range(M): acc = concat(acc, one): three iterations are followed one by one; twenty
  // are more than are followed (and never reach a fixed point), so the fixed-step rule gives it.
  auto model = [](std::int64_t trips) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "acc";
    body.nodes = {Node("True", {}, {"cout"}), Node("Concat", {"acc", "one"}, {"acc2"})};
    add_outputs(body, {"cout", "acc2"});
    Node loop("Loop", {"M", "", "acc0"}, {"acc_f"});
    loop.set_attribute(Attribute("body", body));
    auto m = make_model({loop}, {{"acc0", DataType::FLOAT, {"K"}}, {"one", DataType::FLOAT, {"1"}}},
                        {ints("M", {trips}, true)});
    CHECK(run(m).diagnostics.empty());
    return type_of(m, "acc_f");
  };
  CHECK(model(3) == "FLOAT[K+3]");
  CHECK(model(20) == "FLOAT[K+20]");
  CHECK(model(0) == "FLOAT[K]");
}

TEST_CASE("Loop: a loop that runs at least once ends with a value of the body's output") {
  // while cond: v = r   (v0 [N,1], r [N,W]): with cond true on entry, the final v is some
  // iteration's r, [N,W]. With cond unknown on entry the loop may not run: v may be [N,1].
  auto model = [](bool cond_known_true) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "v";
    body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("Identity", {"r"}, {"v2"})};
    add_outputs(body, {"cout", "v2"});
    Node loop("Loop", {"", "c", "v0"}, {"v_f"});
    loop.set_attribute(Attribute("body", body));
    std::vector<Node> nodes;
    if (cond_known_true) nodes.emplace_back("True", std::vector<std::string>{}, std::vector<std::string>{"c"});
    nodes.push_back(loop);
    std::vector<In> ins = {{"v0", DataType::FLOAT, {"N", "1"}}, {"r", DataType::FLOAT, {"N", "W"}}};
    if (!cond_known_true) ins.push_back({"c", DataType::BOOL, {}});
    auto m = make_model(nodes, ins);
    CHECK(run(m).diagnostics.empty());
    return type_of(m, "v_f");
  };
  CHECK(model(true) == "FLOAT[N,W]");
  CHECK(model(false).rfind("FLOAT[N,unk__", 0) == 0);
}

TEST_CASE("Loop: a carried size that varies gets a symbol of its own, not the initial value's") {
  // tok0 = NonZero(x) is [1, unk__0], one size. The body appends to tok, or replaces it by
  // another NonZero: in the second iteration tok is not unk__0 long, so the body's input must
  // not be annotated [1, unk__0] (dim_params name one size everywhere). Variant 2 is variant 1
  // in a loop that runs at least once: the final tok is the last iteration's NonZero, which
  // need not be as long as the one the body's annotations name (another iteration's).
  for (int variant = 0; variant < 3; ++variant) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "tok";
    body.nodes = {Node("Identity", {"cin"}, {"cout"})};
    if (variant == 0) {
      Node cat("Concat", {"tok", "one"}, {"tok2"});
      cat.set_attribute(Attribute("axis", 1));
      body.nodes.push_back(cat);
    } else {
      body.nodes.emplace_back("NonZero", std::vector<std::string>{"x"}, std::vector<std::string>{"tok2"});
    }
    add_outputs(body, {"cout", "tok2"});
    Node loop("Loop", {variant == 2 ? "" : "T", variant == 2 ? "yes" : "", "tok0"}, {"tok_f"});
    loop.set_attribute(Attribute("body", body));
    const std::vector<std::int64_t> seven{7};
    auto m = make_model({Node("NonZero", {"x"}, {"tok0"}), loop}, {{"x", DataType::FLOAT, {"N"}}, {"T", DataType::INT64, {}}},
                        {Tensor::from_values<std::int64_t>("one", {1, 1}, std::span<const std::int64_t>(seven)),
                         Tensor::from_values<bool>("yes", {}, {true})},
                        17);
    CHECK_FALSE(infer_shapes(m).has_errors());
    const std::string t0 = type_of(m, "tok0");
    REQUIRE(t0.rfind("INT64[1,unk__", 0) == 0);
    const auto& b = m.graph.nodes[1].find_attribute("body")->as_graph();
    const std::string in = type_str(*b.inputs[2].type);
    CHECK(in.rfind("INT64[1,unk__", 0) == 0);
    CHECK(in != t0);
    CHECK(type_of(m, "tok_f") != t0);
    if (variant == 2) {
      REQUIRE(b.outputs[1].type);
      const std::string made = type_str(*b.outputs[1].type);  // the body's NonZero, [1, unk__k]
      CHECK(made.rfind("INT64[1,unk__", 0) == 0);
      CHECK(type_of(m, "tok_f").rfind("INT64[1,unk__", 0) == 0);
      CHECK(type_of(m, "tok_f") != made);
    }
  }
}

TEST_CASE("Loop with a constant trip count: sizes the body shrinks by slicing follow each iteration") {
  // for _ in range(M): tok = tok[:, 1:]   (Drop)   or   tok = tok[:, ::2]   (Halve)
  // The body's size function is not L + k (a slice cannot go below 0; halving is not a step), so
  // the fixed-step rule does not apply; with M a small number it is applied M times.
  enum class Body { Drop, Halve };
  auto model = [](Body b, std::vector<Tensor> trips_init, bool symbolic_trips) {
    Graph body;
    body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
    body.inputs[2].name = "tok";
    body.nodes = {Node("Identity", {"cin"}, {"cout"})};
    body.nodes.emplace_back("Slice",
                            std::vector<std::string>{"tok", b == Body::Drop ? "one" : "zero1", "big", "one", b == Body::Drop ? "one" : "two"},
                            std::vector<std::string>{"tok2"});
    add_outputs(body, {"cout", "tok2"});
    Node loop("Loop", {symbolic_trips ? "T" : "m", "", "tok0"}, {"tok_f"});
    loop.set_attribute(Attribute("body", body));
    std::vector<Tensor> inits = {ints("one", {1}), ints("zero1", {0}), ints("two", {2}), ints("big", {std::numeric_limits<std::int64_t>::max()}),
                                 ints("zero", {0}, true)};
    for (auto& t : trips_init) inits.push_back(std::move(t));
    auto m = make_model({Node("Shape", {"x"}, {"s"}), Node("Gather", {"s", "zero"}, {"T"}), loop},
                        {{"x", DataType::FLOAT, {"T", "4"}}, {"tok0", DataType::INT64, {"B", "S"}}}, std::move(inits), 17);
    auto rep = infer_shapes(m);
    CHECK_FALSE(rep.has_errors());
    return type_of(m, "tok_f");
  };
  // Three drops: S - 3, or 0 when S < 3.
  CHECK(model(Body::Drop, {ints("m", {3}, true)}, false) == "INT64[B,max(0,S-3)]");
  // Two halvings: ceil(ceil(S / 2) / 2) = ceil(S / 4).
  CHECK(model(Body::Halve, {ints("m", {2}, true)}, false) == "INT64[B,floor((S+3)/4)]");
  // No iteration: the initial size.
  CHECK(model(Body::Drop, {ints("m", {0}, true)}, false) == "INT64[B,S]");
  // A trip count that is not a number, or beyond the unrolling limit: not claimed.
  CHECK(model(Body::Drop, {}, true).rfind("INT64[B,unk__", 0) == 0);
  // (Beyond the limit the loop still runs at least once: the size is some iteration's
  // max(0, L-1), for an L that is not S.)
  const std::string beyond = model(Body::Drop, {ints("m", {65}, true)}, false);
  CHECK(beyond.rfind("INT64[B,", 0) == 0);
  CHECK(beyond.find('S') == std::string::npos);
}

TEST_CASE("Sizes an If branch or a loop body equates are not merged outside it: the branch may not run") {
  // torch exports squeeze(0) of a possibly-batched state as If(Equal(N, 1), Squeeze, Identity):
  // the Squeeze needs N == 1, but only when that branch runs. With the condition false the model
  // runs at any N, so nothing outside the branch may learn N == 1 from it.
  auto squeeze_branch = [](const char* cond_init, bool cond_is_input) {
    Graph then_b;
    then_b.nodes = {Node("Squeeze", {"x", "ax0"}, {"t"})};
    then_b.outputs = {ValueInfo{}};
    then_b.outputs[0].name = "t";
    Graph else_b;
    else_b.nodes = {Node("Identity", {"x"}, {"e"})};
    else_b.outputs = {ValueInfo{}};
    else_b.outputs[0].name = "e";
    Node n("If", {cond_is_input ? "c" : cond_init}, {"y"});
    n.set_attribute(Attribute("then_branch", then_b));
    n.set_attribute(Attribute("else_branch", else_b));
    std::vector<Tensor> inits = {ints("ax0", {0})};
    if (!cond_is_input) {
      inits.push_back(Tensor::from_values<bool>(cond_init, {}, {std::string_view(cond_init) == "yes"}));
    }
    auto m = make_model({n, Node("Relu", {"x"}, {"z"})},
                        {{"x", DataType::FLOAT, {"N", "4"}}, {"c", DataType::BOOL, {}}}, std::move(inits), 13);
    auto rep = infer_shapes(m);
    CHECK_FALSE(rep.has_errors());
    return std::pair{type_of(m, "y"), type_of(m, "z")};
  };
  // A run-time condition: N stays N; the output's rank depends on the branch.
  CHECK(squeeze_branch("", true) == std::pair{std::string("FLOAT[*]"), std::string("FLOAT[N,4]")});
  // A constant true condition: the branch runs whenever the If does, so N == 1 holds.
  CHECK(squeeze_branch("yes", false) == std::pair{std::string("FLOAT[4]"), std::string("FLOAT[1,4]")});
  // A constant false one: the Squeeze never runs.
  CHECK(squeeze_branch("no", false) == std::pair{std::string("FLOAT[N,4]"), std::string("FLOAT[N,4]")});

  // A MatMul contraction inside a loop body: the body may run zero times (M = 0).
  Graph body;
  body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}})};
  body.nodes = {Node("Identity", {"cin"}, {"cout"}), Node("MatMul", {"x", "w"}, {"p"})};
  add_outputs(body, {"cout", "p"});
  Node loop("Loop", {"m", ""}, {"ps"});
  loop.set_attribute(Attribute("body", body));
  std::vector<float> w(6, 1.0f);
  auto m = make_model({loop, Node("Relu", {"x"}, {"z"})}, {{"x", DataType::FLOAT, {"B", "K"}}, {"m", DataType::INT64, {}}},
                      {Tensor::from_values<float>("w", {3, 2}, std::span<const float>(w))}, 13);
  auto rep = infer_shapes(m);
  CHECK_FALSE(rep.has_errors());
  CHECK(type_of(m, "z") == "FLOAT[B,K]");
  CHECK(type_of(m, "ps").rfind("FLOAT[unk__", 0) == 0);
  CHECK(type_of(m, "ps").find(",B,2]") != std::string::npos);

  // A provable conflict inside a branch is still reported (the branch cannot run).
  Graph bad;
  bad.nodes = {Node("MatMul", {"v", "w"}, {"t"})};
  bad.outputs = {ValueInfo{}};
  bad.outputs[0].name = "t";
  Graph ok;
  ok.nodes = {Node("MatMul", {"u", "w"}, {"e"})};
  ok.outputs = {ValueInfo{}};
  ok.outputs[0].name = "e";
  Node iff("If", {"c"}, {"y"});
  iff.set_attribute(Attribute("then_branch", bad));
  iff.set_attribute(Attribute("else_branch", ok));
  auto m2 = make_model({iff}, {{"c", DataType::BOOL, {}}, {"v", DataType::FLOAT, {"2", "4"}}, {"u", DataType::FLOAT, {"2", "3"}}},
                       {Tensor::from_values<float>("w", {3, 2}, std::span<const float>(w))}, 13);
  CHECK(infer_shapes(m2).conflicts >= 1);
}

TEST_CASE("A branch that fails on sizes it never has is a warning: torch's squeeze guard on 2*N") {
  // y = If(Equal(Shape(x2)[0], 1), Squeeze(x2, 0), Identity(x2)) with x2 = Concat(x, x): its
  // first dim is 2*N, never 1, so the Squeeze branch never runs; the model is valid.
  Graph sq;
  sq.nodes = {Node("Squeeze", {"x2", "ax"}, {"t"})};
  sq.outputs = {ValueInfo{}};
  sq.outputs[0].name = "t";
  Graph id;
  id.nodes = {Node("Identity", {"x2"}, {"e"})};
  id.outputs = {ValueInfo{}};
  id.outputs[0].name = "e";
  Node cat("Concat", {"x", "x"}, {"x2"});
  cat.set_attribute(Attribute("axis", std::int64_t{0}));
  Node iff("If", {"c"}, {"y"});
  iff.set_attribute(Attribute("then_branch", sq));
  iff.set_attribute(Attribute("else_branch", id));
  std::vector<Node> nodes = {cat, Node("Shape", {"x2"}, {"s"}), Node("Gather", {"s", "i0"}, {"d"}),
                             Node("Equal", {"d", "one"}, {"c"}), iff};
  auto ints1 = [](const char* n, std::vector<std::int64_t> v, std::vector<std::int64_t> dims) {
    return Tensor::from_values<std::int64_t>(n, dims, std::span<const std::int64_t>(v));
  };
  auto m = make_model(nodes, {{"x", DataType::FLOAT, {"N", "3"}}},
                      {ints1("ax", {0}, {1}), ints1("i0", {0}, {}), ints1("one", {1}, {})}, 13);
  const auto rep = infer_shapes(m);
  CHECK(rep.conflicts == 0);
  CHECK_FALSE(rep.has_errors());
  bool warned = false;
  for (const auto& d : rep.diagnostics)
    warned = warned || (d.severity == Severity::Warning && d.message.find("2*N vs 1") != std::string::npos);
  CHECK(warned);
  // Strict mode does not throw for it.
  auto m2 = make_model(nodes, {{"x", DataType::FLOAT, {"N", "3"}}},
                       {ints1("ax", {0}, {1}), ints1("i0", {0}, {}), ints1("one", {1}, {})}, 13);
  InferOptions strict;
  strict.strict = true;
  CHECK_NOTHROW(infer_shapes(m2, strict));
}

TEST_CASE("A loop body inferred once per iteration reports each problem once") {
  // body(i, cond, acc) -> (cond, Concat(Relu<bogus>(acc), Abs(acc))): acc grows, so the body is
  // inferred again until it settles; Relu's unknown attribute and Abs's int8 input (Abs-13
  // allows it; Concat does not mix float and int8) are said, and counted, once.
  Graph body;
  body.inputs = {value_info_of({"i", DataType::INT64, {}}), value_info_of({"cin", DataType::BOOL, {}}), ValueInfo{}};
  body.inputs[2].name = "acc";
  Node relu("Relu", {"acc"}, {"r"});
  relu.set_attribute(Attribute("bogus", std::int64_t{1}));
  body.nodes = {Node("Identity", {"cin"}, {"cout"}), relu, Node("Cast", {"acc"}, {"a8"}), Node("Concat", {"r", "a8"}, {"acc2"})};
  body.nodes[2].set_attribute(Attribute("to", std::int64_t{3}));
  body.nodes[3].set_attribute(Attribute("axis", std::int64_t{0}));
  add_outputs(body, {"cout", "acc2"});
  Node loop("Loop", {"M", "", "acc0"}, {"acc_f"});
  loop.set_attribute(Attribute("body", body));
  auto m = make_model({loop}, {{"M", DataType::INT64, {}}, {"acc0", DataType::FLOAT, {"K"}}}, {}, 13);
  const auto rep = infer_shapes(m);
  CHECK(rep.attribute_errors == 1);
  CHECK(rep.type_errors == 1);
  std::size_t attr = 0, type = 0;
  for (const auto& d : rep.diagnostics) {
    attr += d.message.find("'bogus'") != std::string::npos;
    type += d.kind == DiagnosticKind::TypeConstraint;
  }
  CHECK(attr == 1);
  CHECK(type == 1);
}

}  // namespace oxir_unit_test_infer_control
