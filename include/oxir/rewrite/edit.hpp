#pragma once
// Small graph edits that keep names consistent: rewiring every read of a value to another, and
// bypassing Identity nodes.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "../analysis/topo.hpp"
#include "../core/error.hpp"
#include "../ir/graph.hpp"
#include "../ir/views.hpp"

namespace oxir {

namespace detail {
/// Subgraph nesting beyond which edits refuse to go (a file the decoder accepts nests far less).
inline constexpr int kMaxEditDepth = 256;

inline bool defines(const Graph& g, std::string_view name) {
  for (const auto& d : views::defined_names(g))
    if (d == name) return true;
  return false;
}

// Throws when a subgraph reading `from` (at any depth) defines `to` itself: a read renamed there
// would bind to that inner value instead.
inline void check_rename(const Graph& g, std::string_view from, std::string_view to, const std::string& path, int depth) {
  if (depth > kMaxEditDepth) throw Error(path, "subgraphs nested too deep to edit");
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (std::size_t a = 0; a < g.nodes[i].attributes.size(); ++a) {
      const auto& at = g.nodes[i].attributes[a];
      const std::string p = path + ".node[" + std::to_string(i) + "].attribute[" + std::to_string(a) + "]";
      auto visit = [&](const Graph& sub, const std::string& sp) {
        if (defines(sub, from)) return;  // shadowed: nothing inside reads the outer value
        std::unordered_set<std::string> reads;
        if (defines(sub, to)) collect_captures(sub, reads);
        if (reads.contains(std::string(from)))
          throw Error(sp, "defines '" + std::string(to) + "' itself, so its reads of '" + std::string(from) +
                              "' cannot be renamed to it");
        check_rename(sub, from, to, sp, depth + 1);
      };
      if (const auto* b = std::get_if<Box<Graph>>(&at.value); b && b->has_value()) visit(**b, p + ".g");
      if (const auto* gs = std::get_if<std::vector<Graph>>(&at.value))
        for (std::size_t k = 0; k < gs->size(); ++k) visit((*gs)[k], p + ".graphs[" + std::to_string(k) + "]");
    }
}

// What one subgraph (at any depth below the graph being edited) reads from outside itself and
// what it defines: a read of `out` there may become a read of `in` only if it does not define `in`.
struct SubgraphNames {
  std::unordered_set<std::string> reads_outside;
  std::unordered_set<std::string> defines;
};

// Appends the entry of `sub` (a subgraph at `depth`) and, before those of the graphs nested in
// it, walking each graph once: what a graph reads from outside is what its nodes and outputs read
// and what its subgraphs read from outside them, less what it defines. (Asking collect_captures
// for each subgraph instead walks a graph once per enclosing one: a 150-deep nest of Ifs took
// a second per pass.)
inline void add_subgraph_names(const Graph& sub, std::vector<SubgraphNames>& out, int depth) {
  const std::size_t slot = out.size();
  out.emplace_back();
  SubgraphNames s;
  for (const auto& d : views::defined_names(sub)) s.defines.insert(d);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !s.defines.contains(name)) s.reads_outside.insert(name);
  };
  for (const auto& n : sub.nodes) {
    for (const auto& i : n.inputs) use(i);
    for (const auto& inner : views::subgraphs(n)) {
      if (depth > kMaxEditDepth) {  // no entries this deep, but what it reads still counts
        std::unordered_set<std::string> reads;
        collect_captures(inner, reads);
        for (const auto& name : reads) use(name);
        continue;
      }
      const std::size_t at = out.size();
      add_subgraph_names(inner, out, depth + 1);
      for (const auto& name : out[at].reads_outside) use(name);
    }
  }
  for (const auto& o : sub.outputs) use(o.name);
  out[slot] = std::move(s);
}

// The entries of every subgraph at any depth below `g` (itself at `depth`).
inline void collect_subgraph_names(const Graph& g, std::vector<SubgraphNames>& out, int depth) {
  if (depth > kMaxEditDepth) return;
  for (const auto& n : g.nodes)
    for (const auto& sub : views::subgraphs(n)) add_subgraph_names(sub, out, depth + 1);
}

// Removes the nodes whose entry in `drop` is set, keeping the order of the rest.
inline void erase_nodes(std::vector<Node>& nodes, const std::vector<bool>& drop) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!drop[i]) {
      if (k != i) nodes[k] = std::move(nodes[i]);
      ++k;
    }
  nodes.resize(k);
}

// Renames every read through `m` in one walk and returns how many it renamed; a subgraph that
// defines a name hides the outer value of that name, so its entry does not apply inside. A
// subgraph's outputs are positional (If branches, Loop and Scan bodies): renaming one that passes
// an outer value through changes nothing outside.
inline std::size_t rename_reads(Graph& g, const std::unordered_map<std::string, std::string>& m, bool outputs_too,
                                int depth) {
  std::size_t renamed = 0;
  if (depth > kMaxEditDepth) return renamed;
  for (auto& node : g.nodes) {
    for (auto& in : node.inputs)
      if (const auto it = m.find(in); it != m.end()) {
        in = it->second;
        ++renamed;
      }
    for (auto& sub : views::subgraphs(node)) {
      std::unordered_map<std::string, std::string> inner;
      bool hides = false;
      auto hide = [&](const std::string& name) {
        if (!m.contains(name)) return;
        if (!hides) inner = m;
        hides = true;
        inner.erase(name);
      };
      for (const auto& d : views::defined_names(sub)) hide(d);
      renamed += rename_reads(sub, hides ? inner : m, true, depth + 1);
    }
  }
  if (outputs_too)
    for (auto& o : g.outputs)
      if (const auto it = m.find(o.name); it != m.end()) {
        o.name = it->second;
        ++renamed;
      }
  return renamed;
}
}  // namespace detail

namespace detail {
// The second step of remove_identity_nodes: an Identity y = Identity(x) into an output y of `g`,
// where x is computed by a node of `g` and is not itself an output, goes by renaming: the node
// computing x computes y, and what read x reads y. It stays when x or y is defined more than
// once, when x is a graph input, an initializer or a value of an enclosing graph (there is no
// producer to rename), when a subgraph that reads x defines a value named y (the renamed read
// would bind to that), when x is computed or read by an Identity the first step kept, and for
// the second of two Identities of one x into two outputs. x's
// value_info entries go; the output y takes the type of one when it has none of its own (or an
// empty one).
inline std::size_t remove_output_identities(Graph& g, const std::unordered_set<std::string_view>& interface,
                                            const std::vector<SubgraphNames>& subs, int depth,
                                            bool& held_by_subgraph) {
  std::unordered_map<std::string_view, std::size_t> definitions;
  for (const auto& d : views::defined_names(g)) ++definitions[d];
  const auto is_identity = [](const Node& n) {
    return n.op_type == "Identity" && is_default_domain(n.domain);
  };
  std::unordered_map<std::string_view, std::size_t> producer;  // node output -> node index
  std::unordered_set<std::string_view> kept_identity_reads;    // inputs of the Identities the first step kept
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (const auto& o : n.outputs)
      if (!o.empty()) producer.emplace(o, i);
    if (is_identity(n) && !(n.outputs.size() == 1 && interface.contains(n.outputs[0])))
      for (const auto& in : n.inputs) kept_identity_reads.insert(in);
  }
  std::unordered_map<std::string, std::string> rename;  // x -> y
  std::vector<bool> drop(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!is_identity(n) || !n.attributes.empty() || n.inputs.size() != 1 || n.outputs.size() != 1) continue;
    const std::string& x = n.inputs[0];
    const std::string& y = n.outputs[0];
    if (x.empty() || y.empty() || x == y || !interface.contains(y) || interface.contains(x)) continue;
    if (definitions[x] != 1 || definitions[y] != 1 || rename.contains(x)) continue;
    // Not when x comes from, or goes into, an Identity the first step kept: renaming would change
    // what kept it, and a second run would remove what this one did not.
    const auto made = producer.find(x);
    if (made == producer.end()) continue;
    if (is_identity(g.nodes[made->second]) || kept_identity_reads.contains(x)) {
      held_by_subgraph = true;  // (those Identities stay for shadowing, cycles or double definitions)
      continue;
    }
    bool hidden = false;
    for (const auto& sub : subs) hidden = hidden || (sub.reads_outside.contains(x) && sub.defines.contains(y));
    if (hidden) {
      held_by_subgraph = true;
      continue;
    }
    rename.emplace(x, y);
    drop[i] = true;
  }
  if (rename.empty()) return 0;
  for (auto& n : g.nodes)
    for (auto& o : n.outputs)
      if (const auto it = rename.find(o); it != rename.end()) o = it->second;
  erase_nodes(g.nodes, drop);
  (void)rename_reads(g, rename, false, depth);
  for (const auto& v : g.value_info)
    if (const auto it = rename.find(v.name); it != rename.end() && v.type)
      for (auto& o : g.outputs)
        if (o.name == it->second && (!o.type || *o.type == Type{})) o.type = v.type;
  std::erase_if(g.value_info, [&](const ValueInfo& v) { return rename.contains(v.name); });
  return rename.size();
}
}  // namespace detail

/// Makes every read of value `from` in `graph` read `to` instead: node inputs, and the reads of
/// subgraphs that do not define `from` themselves (their outputs included, which are positional).
/// `graph`'s own outputs are its interface and keep their names, so a graph output `from` keeps
/// needing its producer. Returns the number of reads rewired. Throws oxir::Error, changing
/// nothing, when a subgraph that reads `from` defines `to` itself (the renamed reads would bind
/// to that inner value). `to` should be defined where the reads are; this is not checked.
inline std::size_t replace_all_uses_with(Graph& graph, std::string_view from, std::string_view to) {
  if (from.empty() || from == to) return 0;
  detail::check_rename(graph, from, to, "graph", 0);
  return detail::rename_reads(graph, {{std::string(from), std::string(to)}}, false, 0);
}

/// Removes every `Identity` node of the default domain (in `graph` and in its subgraphs) whose
/// consumers can read its input directly: each read of its output is rewired to its input (a
/// chain of Identities to the first input) and the node erased. An Identity into an output of its
/// graph (the graph's interface keeps its names) goes the other way when a node of the same graph
/// computes its input, which is not an output itself: that node's output is renamed to the graph
/// output's name, and what read the old name reads the new one (exporters end graphs this way).
/// An Identity stays when its output is a graph output and its input is not computed by a node
/// of that graph (a graph input, an initializer, a value of an enclosing graph, another graph
/// output), when its input is omitted, when it holds attributes (Identity has none; removing it
/// would drop them, subgraphs included), when a name it touches is defined more than once, or
/// when some subgraph reading the name that would be rewired defines a value named like its
/// replacement (the rewired read would bind to that). Value_info entries of the removed names go
/// too (a graph output without a type takes theirs). Returns the number removed. A few walks per
/// graph, plus a lookup per Identity and subgraph; when subgraphs that shadow names kept an
/// Identity, the whole pass runs again, since removals elsewhere can change that, until nothing
/// more goes: a second call then removes nothing (unless the cap of 16 rounds cut that short,
/// which takes a nest crafted for it).
inline std::size_t remove_identity_nodes(Graph& graph) {
  std::size_t removed = 0;
  // Set when a subgraph's names kept an Identity: removals in other graphs of the same round (an
  // enclosing graph's rewiring changes what its subgraphs read; a subgraph's removals change
  // what it defines) can lift that, so another round follows.
  bool held_by_subgraph = false;
  auto prune = [&removed, &held_by_subgraph](auto& self, Graph& g, int depth) -> void {
    if (depth > detail::kMaxEditDepth) return;
    for (auto& n : g.nodes)
      for (auto& sub : views::subgraphs(n)) self(self, sub, depth + 1);
    std::unordered_set<std::string_view> interface;
    for (const auto& o : g.outputs) interface.insert(o.name);
    std::vector<detail::SubgraphNames> subs;
    detail::collect_subgraph_names(g, subs, depth);
    // Candidates: output -> (input, node index). A name defined more than once (an invalid graph)
    // is left alone: which definition a read means is not ours to decide.
    std::unordered_map<std::string_view, std::size_t> definitions;
    for (const auto& d : views::defined_names(g)) ++definitions[d];
    std::unordered_map<std::string, std::pair<std::string, std::size_t>> candidates;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.op_type != "Identity" || !is_default_domain(n.domain)) continue;
      if (n.inputs.size() != 1 || n.outputs.size() != 1 || n.inputs[0].empty() || n.outputs[0].empty()) continue;
      // Identity has no attributes: one that holds some (a subgraph, say) is not ours to drop.
      if (!n.attributes.empty()) continue;
      if (interface.contains(n.outputs[0]) || definitions[n.outputs[0]] != 1) continue;
      candidates.try_emplace(n.outputs[0], n.inputs[0], i);
    }
    // Each removed output maps to the first value along its chain that stays (memoized, so long
    // chains cost linear time). Candidates on a cycle (an invalid graph) or hidden by a subgraph
    // stay; since that changes where other chains end, repeat until nothing changes.
    std::unordered_map<std::string, std::string> to_input;
    for (bool changed = true; changed;) {
      changed = false;
      to_input.clear();
      std::unordered_set<std::string> on_path;
      for (const auto& entry : candidates) {
        if (to_input.contains(entry.first)) continue;
        std::vector<std::string> path{entry.first};
        on_path = {entry.first};
        std::string end = entry.second.first;
        bool cycle = false;
        while (true) {
          if (const auto done = to_input.find(end); done != to_input.end()) {
            end = done->second;
            break;
          }
          const auto next = candidates.find(end);
          if (next == candidates.end()) break;
          if (!on_path.insert(end).second) {
            cycle = true;
            break;
          }
          path.push_back(end);
          end = next->second.first;
        }
        for (const auto& p : path) to_input.emplace(p, cycle ? p : end);
      }
      for (auto it = candidates.begin(); it != candidates.end();) {
        const std::string& in = to_input.at(it->first);
        bool stays = in == it->first;  // on a cycle
        for (const auto& sub : subs)
          if (!stays && sub.reads_outside.contains(it->first) && sub.defines.contains(in)) stays = held_by_subgraph = true;
        if (stays) {
          it = candidates.erase(it);
          changed = true;
        } else {
          ++it;
        }
      }
    }
    if (!to_input.empty()) {
      std::vector<bool> drop(g.nodes.size(), false);
      for (const auto& [out, c] : candidates) drop[c.second] = true;
      detail::erase_nodes(g.nodes, drop);
      removed += candidates.size();
      (void)detail::rename_reads(g, to_input, false, depth);
      std::erase_if(g.value_info, [&](const ValueInfo& v) { return to_input.contains(v.name); });
      subs.clear();  // the subgraphs' reads changed
      detail::collect_subgraph_names(g, subs, depth);
    }
    removed += detail::remove_output_identities(g, interface, subs, depth, held_by_subgraph);
  };
  // Almost always one round; a few where subgraphs shadow names. The cap bounds crafted nests
  // (each round is linear in the model).
  for (int round = 0; round < 16; ++round) {
    const std::size_t before = removed;
    held_by_subgraph = false;
    prune(prune, graph, 0);
    if (removed == before || !held_by_subgraph) break;
  }
  return removed;
}

}  // namespace oxir
