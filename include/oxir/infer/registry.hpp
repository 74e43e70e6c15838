#pragma once
// Inference rules by (domain, op_type). The default domain is "" ("ai.onnx" is the same).

#include <string>
#include <string_view>
#include <unordered_map>

#include "context.hpp"

namespace oxir::infer {

using Rule = void (*)(InferContext&);

class OpRegistry {
 public:
  /// Registers (or replaces) the rule of domain::op_type. `domain` "" or "ai.onnx" = default.
  void add(std::string_view domain, std::string_view op_type, Rule rule) {
    rules_[key(domain, op_type)] = rule;
  }
  [[nodiscard]] Rule find(std::string_view domain, std::string_view op_type) const {
    auto it = rules_.find(key(domain, op_type));
    return it == rules_.end() ? nullptr : it->second;
  }
  [[nodiscard]] std::size_t size() const noexcept { return rules_.size(); }
  /// Calls f(domain, op_type) for every registered rule.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [k, r] : rules_) {
      const auto sep = k.find('\x1f');
      f(std::string_view(k).substr(0, sep), std::string_view(k).substr(sep + 1));
    }
  }

  /// The registry with every built-in rule (defined in ops/all.hpp).
  [[nodiscard]] static const OpRegistry& standard();

  [[nodiscard]] static std::string key(std::string_view domain, std::string_view op_type) {
    if (domain == "ai.onnx") domain = "";
    std::string k(domain);
    k += '\x1f';
    k += op_type;
    return k;
  }

 private:
  std::unordered_map<std::string, Rule> rules_;
};

}  // namespace oxir::infer
