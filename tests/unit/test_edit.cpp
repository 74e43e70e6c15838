// Graph edits (rewrite/edit.hpp): replace_all_uses_with across scopes, and Identity removal,
// then every libonnx-testdata model with seeded Identity nodes inserted, which the pass must
// take out exactly.
#include <doctest/doctest.h>

#include <oxir/io.hpp>
#include <oxir/rewrite/edit.hpp>

#include "corpus_util.hpp"

#include <map>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace oxir_unit_test_edit {

using namespace oxir;

namespace {
Node op(std::string type, std::vector<std::string> in, std::vector<std::string> out) {
  return Node(std::move(type), std::move(in), std::move(out));
}
Graph branch(std::string name, std::vector<Node> nodes, std::string out, std::vector<std::string> inputs = {}) {
  Graph g;
  g.name = std::move(name);
  for (auto& i : inputs) g.inputs.emplace_back(i, Type{});
  g.nodes = std::move(nodes);
  g.outputs.emplace_back(std::move(out), Type{});
  return g;
}
std::vector<std::string> inputs_of(const Graph& g) {
  std::vector<std::string> r;
  for (const auto& n : g.nodes) r.insert(r.end(), n.inputs.begin(), n.inputs.end());
  return r;
}
}  // namespace

TEST_CASE("replace_all_uses_with: node inputs, subgraph reads, shadowing, interface") {
  Graph g;
  g.inputs.emplace_back("x", Type{});
  g.nodes.push_back(op("Relu", {"x"}, {"a"}));
  g.nodes.push_back(op("Abs", {"x"}, {"b"}));
  g.nodes.push_back(op("Add", {"a", "a"}, {"c"}));
  Node if_node = op("If", {"c"}, {"r"});
  if_node.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"t0"})}, "t0")});
  if_node.set_attribute({"else_branch", branch("e", {}, "a")});                            // passes a through
  g.nodes.push_back(if_node);
  Node loop = op("Loop", {"", "c", "x"}, {"l"});
  loop.set_attribute({"body", branch("body", {op("Neg", {"a"}, {"o"})}, "o", {"i", "cond", "a"})});  // its own a
  g.nodes.push_back(loop);
  g.outputs.emplace_back("a", Type{});

  // The Loop body defines "o" but also its own "a", so none of its reads is renamed: no conflict.
  Graph g2 = g;
  CHECK(replace_all_uses_with(g2, "a", "o") == 4);
  CHECK(replace_all_uses_with(g, "a", "b") == 4);  // Add twice, the then branch's Neg, the else output
  CHECK(inputs_of(g) == std::vector<std::string>{"x", "x", "b", "b", "c", "", "c", "x"});
  CHECK(g.nodes[3].attributes[0].as_graph().nodes[0].inputs[0] == "b");
  CHECK(g.nodes[3].attributes[1].as_graph().outputs[0].name == "b");
  CHECK(g.nodes[4].attributes[0].as_graph().nodes[0].inputs[0] == "a");  // shadowed by the body's input
  CHECK(g.outputs[0].name == "a");  // the graph's interface keeps its name
  CHECK(replace_all_uses_with(g, "b", "b") == 0);
  CHECK(replace_all_uses_with(g, "", "b") == 0);

  // A subgraph reading `from` that defines `to` itself: refused, nothing changed.
  Graph h;
  h.inputs.emplace_back("x", Type{});
  h.nodes.push_back(op("Relu", {"x"}, {"a"}));
  Node only = op("If", {"x"}, {"r"});
  only.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"y"}), op("Abs", {"y"}, {"z"})}, "z")});
  only.set_attribute({"else_branch", branch("e", {op("Neg", {"x"}, {"w"})}, "w")});
  h.nodes.push_back(only);
  const Graph before = h;
  CHECK_THROWS_AS(replace_all_uses_with(h, "a", "y"), Error);
  CHECK(h == before);
  // The else branch defines w but does not read a: no conflict there.
  CHECK(replace_all_uses_with(h, "a", "w") == 1);
}

TEST_CASE("collect_subgraph_names agrees with captured_names on every subgraph of random nests") {
  // Names from a small pool, so that reads, definitions and shadowing meet at every depth.
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto name = [&] { return std::string(1, static_cast<char>('a' + pick(8))); };
  auto make = [&](auto& self, int depth) -> Graph {
    Graph g;
    for (int i = pick(3); i > 0; --i) g.inputs.emplace_back(name(), Type{});
    if (pick(4) == 0) {
      Tensor t;
      t.name = name();
      g.initializers.push_back(std::move(t));
    }
    for (int k = 1 + pick(4); k > 0; --k) {
      Node n = op("Sum", {}, {name()});
      for (int i = pick(3); i > 0; --i) n.inputs.push_back(pick(5) == 0 ? std::string() : name());
      if (depth < 5 && pick(2) == 0) {
        n.op_type = "If";
        n.set_attribute({"then_branch", self(self, depth + 1)});
        if (pick(2) == 0) n.set_attribute({"else_branch", self(self, depth + 1)});
      }
      g.nodes.push_back(std::move(n));
    }
    g.outputs.emplace_back(name(), Type{});
    return g;
  };
  std::size_t entries = 0, nonempty = 0;
  for (int round = 0; round < 300; ++round) {
    const Graph g = make(make, 0);
    std::vector<const Graph*> preorder;
    auto walk = [&](auto& self, const Graph& h) -> void {
      for (const auto& n : h.nodes)
        for (const auto& sub : views::subgraphs(n)) {
          preorder.push_back(&sub);
          self(self, sub);
        }
    };
    walk(walk, g);
    std::vector<detail::SubgraphNames> subs;
    detail::collect_subgraph_names(g, subs, 0);
    REQUIRE(subs.size() == preorder.size());
    for (std::size_t i = 0; i < subs.size(); ++i) {
      CHECK(subs[i].reads_outside == captured_names(*preorder[i]));
      std::unordered_set<std::string> defines;
      for (const auto& d : views::defined_names(*preorder[i])) defines.insert(d);
      CHECK(subs[i].defines == defines);
      nonempty += subs[i].reads_outside.empty() ? 0 : 1;
    }
    entries += subs.size();
  }
  CHECK(entries > 1000);
  CHECK(nonempty > entries / 4);
}

TEST_CASE("remove_identity_nodes: chains, interface, subgraphs, value_info") {
  Graph g;
  g.inputs.emplace_back("x", Type{});
  g.nodes.push_back(op("Identity", {"x"}, {"i1"}));
  g.nodes.push_back(op("Identity", {"i1"}, {"i2"}));  // a chain: both go, readers read x
  g.nodes.push_back(op("Relu", {"i2"}, {"r"}));
  g.nodes.push_back(op("Identity", {"r"}, {"y"}));    // a graph output: Relu computes y instead
  Node if_node = op("If", {"r"}, {"z"});
  if_node.set_attribute({"then_branch", branch("t", {op("Identity", {"i1"}, {"t0"}), op("Neg", {"t0"}, {"t1"})}, "t1")});
  if_node.set_attribute({"else_branch", branch("e", {op("Identity", {"r"}, {"e0"})}, "e0")});  // a branch output: stays
  g.nodes.push_back(if_node);
  g.outputs.emplace_back("y", Type{});
  g.outputs.emplace_back("z", Type{});
  g.value_info.emplace_back("i1", Type{});
  g.value_info.emplace_back("r", Type{});

  g.value_info.back().type = Type::tensor(DataType::FLOAT, {2});

  CHECK(remove_identity_nodes(g) == 4);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op_type == "Relu");
  CHECK(g.nodes[0].inputs[0] == "x");
  CHECK(g.nodes[0].outputs[0] == "y");
  CHECK(g.nodes[1].inputs[0] == "y");  // the If read r
  const Graph& t = g.nodes[1].attributes[0].as_graph();
  REQUIRE(t.nodes.size() == 1);
  CHECK(t.nodes[0].inputs[0] == "x");  // Identity(i1) inside, then i1 itself: both rewired to x
  const Graph& e = g.nodes[1].attributes[1].as_graph();
  REQUIRE(e.nodes.size() == 1);  // Identity(r) into the branch output: r is an outer value, it stays
  CHECK(e.nodes[0].inputs[0] == "y");
  CHECK(g.value_info.empty());  // r's went, its type to the untyped output y
  CHECK(g.outputs[0].type == Type::tensor(DataType::FLOAT, {2}));
  CHECK(remove_identity_nodes(g) == 0);

  // Identities into outputs that stay: of a graph input, of an initializer, of another output,
  // of a value a branch defines under the output's name, and the second of two of one value.
  Graph o;
  o.inputs.emplace_back("x", Type{});
  o.initializers.push_back(Tensor::from_values<float>("w", {}, std::vector<float>{2.0F}));
  o.nodes.push_back(op("Identity", {"x"}, {"ox"}));
  o.nodes.push_back(op("Identity", {"w"}, {"ow"}));
  o.nodes.push_back(op("Neg", {"x"}, {"n"}));
  o.nodes.push_back(op("Identity", {"n"}, {"on1"}));  // goes: Neg computes on1
  o.nodes.push_back(op("Identity", {"n"}, {"on2"}));  // stays, reading on1
  o.nodes.push_back(op("Identity", {"on1"}, {"oo"}));  // an output of an output: stays
  o.nodes.push_back(op("Abs", {"x"}, {"a"}));
  Node shadow = op("If", {"x"}, {"s"});  // reads a, defines oa: Identity(a) -> oa stays
  shadow.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"oa"})}, "oa")});
  shadow.set_attribute({"else_branch", branch("e", {op("Neg", {"a"}, {"w2"})}, "w2")});
  o.nodes.push_back(shadow);
  o.nodes.push_back(op("Identity", {"a"}, {"oa"}));
  for (const char* name : {"ox", "ow", "on1", "on2", "oo", "oa", "s"}) o.outputs.emplace_back(name, Type{});
  CHECK(remove_identity_nodes(o) == 1);
  REQUIRE(o.nodes.size() == 8);
  CHECK(o.nodes[2].op_type == "Neg");
  CHECK(o.nodes[2].outputs[0] == "on1");
  CHECK(o.nodes[3].inputs[0] == "on1");  // on2's Identity
  CHECK(o.nodes[4].inputs[0] == "on1");  // oo's
  CHECK(o.nodes[7].op_type == "Identity");  // oa's
  CHECK(remove_identity_nodes(o) == 0);

  // x read by an Identity that stays (a branch reading its output defines x): renaming x to the
  // output's name would let a second run remove that one, so the Identity into the output stays.
  Graph k;
  k.inputs.emplace_back("in", Type{});
  k.nodes.push_back(op("Neg", {"in"}, {"x"}));
  k.nodes.push_back(op("Identity", {"x"}, {"a"}));
  Node kif = op("If", {"in"}, {"r"});
  kif.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"x"})}, "x")});
  kif.set_attribute({"else_branch", branch("e", {op("Abs", {"a"}, {"e0"})}, "e0")});
  k.nodes.push_back(kif);
  k.nodes.push_back(op("Identity", {"x"}, {"y"}));
  k.outputs.emplace_back("y", Type{});
  k.outputs.emplace_back("r", Type{});
  const Graph k0 = k;
  CHECK(remove_identity_nodes(k) == 0);
  CHECK(k == k0);

  // Inside a branch: an Identity into the branch output of a value the branch computes goes.
  Graph b;
  b.inputs.emplace_back("x", Type{});
  Node bif = op("If", {"x"}, {"r"});
  bif.set_attribute({"then_branch", branch("t", {op("Neg", {"x"}, {"t0"}), op("Identity", {"t0"}, {"t1"})}, "t1")});
  bif.set_attribute({"else_branch", branch("e", {op("Abs", {"x"}, {"e0"})}, "e0")});
  b.nodes.push_back(bif);
  b.outputs.emplace_back("r", Type{});
  CHECK(remove_identity_nodes(b) == 1);
  const Graph& bt = b.nodes[0].attributes[0].as_graph();
  REQUIRE(bt.nodes.size() == 1);
  CHECK(bt.nodes[0].outputs[0] == "t1");
  CHECK(bt.outputs[0].name == "t1");

  // A cycle of Identities (an invalid graph) and a name defined twice are left alone.
  Graph c;
  c.nodes.push_back(op("Identity", {"q"}, {"p"}));
  c.nodes.push_back(op("Identity", {"p"}, {"q"}));
  c.nodes.push_back(op("Identity", {"x"}, {"d"}));
  c.nodes.push_back(op("Neg", {"x"}, {"d"}));
  c.nodes.push_back(op("Relu", {"d"}, {"out"}));
  const Graph cyc = c;
  CHECK(remove_identity_nodes(c) == 0);
  CHECK(c == cyc);

  // A branch that reads the Identity's output and defines a value named like its input.
  Graph s;
  s.inputs.emplace_back("x", Type{});
  s.nodes.push_back(op("Identity", {"x"}, {"a"}));
  Node sif = op("If", {"x"}, {"r"});
  sif.set_attribute({"then_branch", branch("t", {op("Neg", {"a"}, {"x"})}, "x")});
  sif.set_attribute({"else_branch", branch("e", {op("Neg", {"a"}, {"w"})}, "w")});
  s.nodes.push_back(sif);
  const Graph kept = s;
  CHECK(remove_identity_nodes(s) == 0);
  CHECK(s == kept);

  // An Identity holding attributes (not in its schema; a fuzzed file held a subgraph there, and
  // removing the node dropped it) stays, whatever reads it.
  Graph h;
  h.inputs.emplace_back("x", Type{});
  Node odd = op("Identity", {"x"}, {"a"});
  odd.set_attribute({"body", branch("b", {op("Neg", {"a"}, {"n"})}, "n")});
  h.nodes.push_back(odd);
  h.nodes.push_back(op("Relu", {"a"}, {"y"}));
  h.outputs.emplace_back("y", Type{});
  const Graph held = h;
  CHECK(remove_identity_nodes(h) == 0);
  CHECK(h == held);
}

namespace {
// What each output of `g` computes, as an expression over graph inputs and initializers, with
// Identity transparent and names resolved as ONNX scopes them (a subgraph's own names first,
// then the enclosing graphs'). Renaming values or removing Identities must not change it.
struct Scope {
  const Graph* g;
  const Scope* outer;
};
// Expressions are numbered (the same expression, the same number), so that shared values do not
// expand into exponentially long strings.
struct Expressions {
  std::map<std::string, int> ids;
  std::map<std::pair<const Graph*, std::string>, int> memo;  // clear when the graph changes

  int id(std::string e) { return ids.try_emplace(std::move(e), static_cast<int>(ids.size())).first->second; }
  int of(const std::string& name, const Scope& s, int depth) {
    if (depth > 200) return id("<deep>");
    const auto key = std::make_pair(s.g, name);
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    const int r = compute(name, s, depth);
    memo.emplace(key, r);
    return r;
  }
  int compute(const std::string& name, const Scope& s, int depth) {
    for (const auto& n : s.g->nodes)
      for (std::size_t k = 0; k < n.outputs.size(); ++k) {
        if (n.outputs[k] != name) continue;
        if (n.op_type == "Identity") return of(n.inputs[0], s, depth + 1);
        std::string e = n.op_type + "(";
        for (const auto& in : n.inputs) e += std::to_string(of(in, s, depth + 1)) + ",";
        for (const auto& a : n.attributes)
          if (a.kind() == AttributeType::GRAPH) {
            const Scope inner{&a.as_graph(), &s};
            e += a.name + ":" + std::to_string(of(a.as_graph().outputs[0].name, inner, depth + 1)) + ",";
          }
        return id(e + ")#" + std::to_string(k));
      }
    for (const auto& i : s.g->inputs)
      if (i.name == name) return id("in:" + name);
    for (const auto& t : s.g->initializers)
      if (t.name == name) return id("init:" + name);
    return s.outer ? of(name, *s.outer, depth + 1) : id("undefined:" + name);
  }
};

// Every name `g` and the graphs nested in it read.
void names_read(const Graph& g, std::unordered_set<std::string>& out) {
  for (const auto& n : g.nodes) {
    out.insert(n.inputs.begin(), n.inputs.end());
    for (const auto& a : n.attributes)
      if (a.kind() == AttributeType::GRAPH) names_read(a.as_graph(), out);
  }
  for (const auto& o : g.outputs) out.insert(o.name);
}

// A random sorted graph whose names come from a small pool, so that subgraphs define names the
// enclosing graphs also define (shadowing), Identities chain, feed graph outputs and branch
// outputs, and values feed several outputs. A graph never defines a name it (or a graph nested
// in it) read before, nor reads its own output: every read has one meaning.
Graph random_identity_graph(std::mt19937& rng, int depth, std::vector<std::string> visible) {
  const auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  const std::vector<std::string> pool{"a", "b", "c", "d", "e", "f"};
  Graph g;
  std::vector<std::string> defined;
  std::unordered_set<std::string> taken, read;
  const auto fresh = [&] {
    for (int tries = 0; tries < 3; ++tries) {
      std::string n = pick(pool);
      if (!read.contains(n) && taken.insert(n).second) return n;
    }
    std::string n = "t" + std::to_string(depth) + "_" + std::to_string(taken.size());
    taken.insert(n);
    return n;
  };
  if (depth == 0)
    for (const char* in : {"x0", "x1"}) {
      g.inputs.emplace_back(in, Type{});
      visible.emplace_back(in);
      taken.insert(in);
    }
  const int count = 2 + static_cast<int>(rng() % 6);
  for (int i = 0; i < count; ++i) {
    const std::string out = fresh();
    std::erase(visible, out);  // an outer value of that name is hidden from here on
    if (visible.empty()) visible.emplace_back(depth == 0 ? "x0" : defined.empty() ? "x0" : defined.front());
    const unsigned kind = rng() % 10;
    Node n;
    if (kind < 4) {
      n = op("Identity", {pick(visible)}, {out});
    } else if (kind < 6) {
      n = op("Neg", {pick(visible)}, {out});
    } else if (kind < 8 || depth >= 2) {
      n = op("Add", {pick(visible), pick(visible)}, {out});
    } else {
      n = op("If", {pick(visible)}, {out});
      n.set_attribute({"then_branch", random_identity_graph(rng, depth + 1, visible)});
      n.set_attribute({"else_branch", random_identity_graph(rng, depth + 1, visible)});
    }
    read.insert(n.inputs.begin(), n.inputs.end());
    for (const auto& a : n.attributes) names_read(a.as_graph(), read);
    g.nodes.push_back(std::move(n));
    visible.push_back(out);
    defined.push_back(out);
  }
  const int outputs = depth == 0 ? 1 + static_cast<int>(rng() % 3) : 1;
  std::unordered_set<std::string> seen;
  for (int i = 0; i < outputs; ++i) {
    std::string o = rng() % 5 == 0 ? pick(visible) : pick(defined);
    if (depth > 0 || seen.insert(o).second) g.outputs.emplace_back(o, Type{});
  }
  return g;
}
}  // namespace

TEST_CASE("remove_identity_nodes on random graphs: outputs compute the same, a second run finds nothing") {
  std::mt19937 rng(20261201);
  std::size_t removed = 0, into_outputs = 0;
  for (int k = 0; k < 3000; ++k) {
    Graph g = random_identity_graph(rng, 0, {});
    Expressions ex;
    std::vector<int> before;
    const Scope top{&g, nullptr};
    for (const auto& o : g.outputs) before.push_back(ex.of(o.name, top, 0));
    ex.memo.clear();
    const Graph original = g;
    std::size_t into = 0;
    for (const auto& n : g.nodes)
      if (n.op_type == "Identity")
        for (const auto& o : g.outputs) into += o.name == n.outputs[0] ? 1 : 0;
    removed += remove_identity_nodes(g);
    REQUIRE(g.outputs.size() == original.outputs.size());
    for (std::size_t i = 0; i < g.outputs.size(); ++i) {
      CHECK(g.outputs[i].name == original.outputs[i].name);
      CHECK_MESSAGE(ex.of(g.outputs[i].name, top, 0) == before[i], "graph " << k << " output " << i);
    }
    std::size_t still = 0;
    for (const auto& n : g.nodes)
      if (n.op_type == "Identity")
        for (const auto& o : g.outputs) still += o.name == n.outputs[0] ? 1 : 0;
    into_outputs += into - std::min(into, still);
    CHECK_MESSAGE(remove_identity_nodes(g) == 0, "graph " << k);
  }
  MESSAGE(removed << " Identity nodes removed, " << into_outputs << " of them into main-graph outputs");
  CHECK(removed > 1000);
  CHECK(into_outputs > 100);
}

namespace {
// Inserts seeded Identity nodes in front of node inputs (chains of up to three), in the graph
// and its subgraphs, with value_info for some. Returns how many.
std::size_t insert_identities(Graph& g, std::mt19937& rng, int& serial) {
  return corpus::insert_chains(
      g, rng, serial, "__id", [](const std::string& in, const std::string& out) { return op("Identity", {in}, {out}); },
      [](std::mt19937& r) { return 1 + static_cast<int>(r() % 3); });
}
}  // namespace

TEST_CASE("remove_identity_nodes takes out exactly the Identities inserted into every libonnx-testdata model") {
  if (!corpus::available()) {
    MESSAGE("libonnx-testdata not installed: skipped");
    return;
  }
  std::mt19937 rng(1128);
  std::size_t shipped = 0, inserted = 0;
  const std::size_t models = corpus::for_each_model([&](const std::string& path, Model& clean) {
    shipped += remove_identity_nodes(clean.graph);
    Model with = clean;
    int serial = 0;
    const std::size_t added = insert_identities(with.graph, rng, serial);
    inserted += added;
    // value_info entries were added for some of them: those go with their nodes.
    CHECK_MESSAGE(remove_identity_nodes(with.graph) == added, path);
    CHECK_MESSAGE(with == clean, path);
  });
  MESSAGE(models << " models; Identity nodes as shipped and removed: " << shipped << "; inserted and removed: " << inserted);
  CHECK(models > 1000);
  CHECK(inserted > 1000);
}

}  // namespace oxir_unit_test_edit
