#pragma once
// oxir::Error: the one exception type oxir throws, carrying a path into the model.

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace oxir {

/// Thrown for bad input and failed operations; `path()` names where in the model it went wrong,
/// e.g. `graph.node[3].attribute[1].t.raw_data`, and `what()` is "<path>: <message>".
class Error : public std::runtime_error {
 public:
  /// An error at `path` (may be empty) with a human-readable `message`.
  Error(std::string path, std::string message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(std::move(path)),
        message_(std::move(message)) {}

  /// An error without a location.
  explicit Error(std::string message) : Error(std::string{}, std::move(message)) {}

  /// Where in the model the problem is ("" when not tied to a place).
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The message without the path.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

  /// The same error with `outer` prepended to its path (used while unwinding out of nested messages).
  [[nodiscard]] Error within(std::string_view outer) const {
    std::string p(outer);
    if (!path_.empty()) {
      if (!p.empty() && path_.front() != '[') p += '.';
      p += path_;
    }
    return Error(std::move(p), message_);
  }

 private:
  std::string path_;
  std::string message_;
};

}  // namespace oxir
