// check_batch: runs oxir::check on each model named on the command line (or one per line on
// stdin with --stdin) and prints one line per model: PATH, TAB, "ok" / "FAIL" / "LOADFAIL", TAB,
// the issues ("E path: message | ..."). Used by verify_check.py against onnx.checker.
#include <oxir/analysis/check.hpp>
#include <oxir/io.hpp>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--stdin") {
      for (std::string line; std::getline(std::cin, line);)
        if (!line.empty()) paths.push_back(line);
    } else {
      paths.emplace_back(argv[i]);
    }
  }
  for (const auto& p : paths) {
    std::cout << p << '\t';
    try {
      const oxir::Model m = oxir::load_model(p);
      const oxir::CheckReport r = oxir::check(m);
      std::cout << (r.ok() ? "ok" : "FAIL") << '\t';
      for (const auto& x : r.issues)
        std::cout << (x.severity == oxir::CheckIssue::Severity::Error ? "E " : "W ") << x.path << ": " << x.message << " | ";
    } catch (const std::exception& e) {
      std::cout << "LOADFAIL\t" << e.what();
    }
    std::cout << '\n';
  }
}
