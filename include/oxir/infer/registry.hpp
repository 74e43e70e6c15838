#pragma once
// Inference rules by (domain, op_type). The default domain is "" ("ai.onnx" is the same).

#include <string>
#include <string_view>
#include <vector>

#include "context.hpp"
#include "type_constraints.hpp"

namespace oxir::infer {

using Rule = void (*)(InferContext&);

class OpRegistry {
 public:
  /// Registers (or replaces) the rule of domain::op_type. `domain` "" or "ai.onnx" = default.
  void add(std::string_view domain, std::string_view op_type, Rule rule) {
    if (domain == "ai.onnx") domain = "";
    auto o = index_.find(op_type, ops_.size(), key_of());
    if (o == detail::NameIndex::npos) {
      ops_.push_back(Op{std::string(op_type), {}, detail::TypeSignatures::get().versions(op_type)});
      o = ops_.size() - 1;
      index_.added(ops_.back().name, ops_.size(), key_of());
    }
    for (auto& [d, r] : ops_[o].rules)
      if (d == domain) {
        r = rule;
        return;
      }
    ops_[o].rules.emplace_back(std::string(domain), rule);
  }
  /// The rule of domain::op_type, or nullptr. Does not allocate.
  [[nodiscard]] Rule find(std::string_view domain, std::string_view op_type) const {
    return find_with_types(domain, op_type).rule;
  }
  /// The rule of domain::op_type (or nullptr) and the type signatures of every version of
  /// op_type (type_constraints.hpp; nullptr when none), found with one lookup.
  struct Found {
    Rule rule = nullptr;
    const std::vector<detail::TypeSignature>* types = nullptr;
  };
  [[nodiscard]] Found find_with_types(std::string_view domain, std::string_view op_type) const {
    if (domain == "ai.onnx") domain = "";
    const auto o = index_.find(op_type, ops_.size(), key_of());
    if (o == detail::NameIndex::npos) return {};
    for (const auto& [d, r] : ops_[o].rules)
      if (d == domain) return {r, ops_[o].types};
    return {};
  }
  [[nodiscard]] std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const auto& o : ops_) n += o.rules.size();
    return n;
  }
  /// Calls f(domain, op_type) for every registered rule.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& o : ops_)
      for (const auto& [d, r] : o.rules) f(std::string_view(d), std::string_view(o.name));
  }

  /// The registry with every built-in rule (defined in ops/all.hpp).
  [[nodiscard]] static const OpRegistry& standard();

 private:
  // Rules grouped by op_type (one hashed lookup), then a short scan over its domains (usually one).
  struct Op {
    std::string name;
    std::vector<std::pair<std::string, Rule>> rules;  ///< (domain, rule)
    const std::vector<detail::TypeSignature>* types;   ///< every version's type signature
  };
  struct KeyOf {
    const std::vector<Op>* ops;
    std::string_view operator()(std::size_t i) const { return (*ops)[i].name; }
  };
  [[nodiscard]] KeyOf key_of() const { return KeyOf{&ops_}; }
  std::vector<Op> ops_;
  detail::NameIndex index_;
};

}  // namespace oxir::infer
