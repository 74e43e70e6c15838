// type_errors_batch: reads model paths from stdin (one per line), runs oxir::infer_shapes on each
// (permissive, graph-output shapes and value_info kept as the file has them) and prints one line
// per model:  PATH <tab> TYPE_ERRORS <tab> FIRST MESSAGE (or "-")
// TYPE_ERRORS counts type-constraint diagnostics and conflicts between an inferred and a declared
// element type (a subgraph output declared float that computes int64, say).
// A model that does not load prints TYPE_ERRORS "load-error". Used by verify_types.py.
#include <iostream>
#include <string>

#include <oxir/infer.hpp>
#include <oxir/io.hpp>

int main() {
  std::string path;
  while (std::getline(std::cin, path)) {
    if (path.empty()) continue;
    std::cout << path << '\t';
    try {
      oxir::Model m = oxir::load_model(path);
      const auto r = oxir::infer_shapes(m);
      std::string first = "-";
      std::size_t n = 0;
      for (const auto& d : r.diagnostics)
        if (d.kind == oxir::infer::DiagnosticKind::TypeConstraint ||
            (d.kind == oxir::infer::DiagnosticKind::Conflict && d.message.find("element type") != std::string::npos)) {
          if (n++ == 0) first = d.to_string();
        }
      for (auto& c : first)
        if (c == '\t' || c == '\n') c = ' ';
      std::cout << n << '\t' << first << '\n';
    } catch (const std::exception& e) {
      std::cout << "load-error\t" << e.what() << '\n';
    }
  }
  return 0;
}
