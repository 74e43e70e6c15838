#pragma once
// Inference rules by (domain, op_type). The default domain is "" ("ai.onnx" is the same).

#include <string>
#include <string_view>
#include <functional>
#include <unordered_map>

#include "context.hpp"

namespace oxir::infer {

using Rule = void (*)(InferContext&);

class OpRegistry {
 public:
  /// Registers (or replaces) the rule of domain::op_type. `domain` "" or "ai.onnx" = default.
  void add(std::string_view domain, std::string_view op_type, Rule rule) {
    if (domain == "ai.onnx") domain = "";
    auto d = rules_.find(domain);
    if (d == rules_.end()) d = rules_.emplace(std::string(domain), Ops{}).first;
    auto o = d->second.find(op_type);
    if (o == d->second.end())
      d->second.emplace(std::string(op_type), rule);
    else
      o->second = rule;
  }
  /// The rule of domain::op_type, or nullptr. Does not allocate.
  [[nodiscard]] Rule find(std::string_view domain, std::string_view op_type) const {
    if (domain == "ai.onnx") domain = "";
    auto d = rules_.find(domain);
    if (d == rules_.end()) return nullptr;
    auto o = d->second.find(op_type);
    return o == d->second.end() ? nullptr : o->second;
  }
  [[nodiscard]] std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const auto& [d, ops] : rules_) n += ops.size();
    return n;
  }
  /// Calls f(domain, op_type) for every registered rule.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [d, ops] : rules_)
      for (const auto& [o, r] : ops) f(std::string_view(d), std::string_view(o));
  }

  /// The registry with every built-in rule (defined in ops/all.hpp).
  [[nodiscard]] static const OpRegistry& standard();

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  using Ops = std::unordered_map<std::string, Rule, Hash, std::equal_to<>>;
  std::unordered_map<std::string, Ops, Hash, std::equal_to<>> rules_;
};

}  // namespace oxir::infer
