// Batch driver for verify_text.py, which compares oxir's textual syntax with onnx 1.12's parser.
//
//   text_batch to-text OUTDIR LIST   each model path of LIST (one per line) -> OUTDIR/<i>.onnxtxt
//                                    (or <i>.err with the message), then checks that the text reads
//                                    back into an equal model ("MISMATCH <path>" if not)
//   text_batch parse DIR             every DIR/*.onnxtxt -> *.oxir.onnx (or *.oxir.err)
//   text_batch same LIST             each line "A B": "DIFF A B" unless the two files load into
//                                    equal oxir::Models (== ignores wire details: field presence,
//                                    raw_data vs typed fields)
// Exit status: 0 when every round trip and comparison held, 1 otherwise.

#include <oxir/io.hpp>
#include <oxir/io/text.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<std::string> lines(const fs::path& p) {
  std::vector<std::string> v;
  std::ifstream in(p);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) v.push_back(l);
  return v;
}

int to_text(const fs::path& out, const fs::path& list) {
  int bad = 0;
  const auto paths = lines(list);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto stem = out / std::to_string(i);
    oxir::Model m;
    try {
      m = oxir::load_model(paths[i]);
    } catch (const oxir::Error& e) {
      spit(stem.string() + ".err", std::string("load: ") + e.what());
      continue;
    }
    std::string text;
    try {
      text = oxir::to_text(m);
    } catch (const oxir::Error& e) {
      spit(stem.string() + ".err", e.what());
      continue;
    }
    spit(stem.string() + ".onnxtxt", text);
    try {
      if (oxir::parse_text_model(text) != m) {
        std::printf("MISMATCH %s\n", paths[i].c_str());
        ++bad;
      }
    } catch (const oxir::Error& e) {
      std::printf("MISMATCH %s (does not read back: %s)\n", paths[i].c_str(), e.what());
      ++bad;
    }
  }
  return bad ? 1 : 0;
}

int parse(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".onnxtxt") continue;
    auto stem = e.path();
    stem.replace_extension();
    try {
      auto m = oxir::parse_text_model(slurp(e.path()));
      spit(stem.string() + ".oxir.onnx", oxir::serialize_model_to_string(m));
    } catch (const oxir::Error& err) {
      spit(stem.string() + ".oxir.err", err.what());
    }
  }
  return 0;
}

int same(const fs::path& list) {
  int bad = 0;
  for (const auto& l : lines(list)) {
    const auto sp = l.find(' ');
    const auto a = l.substr(0, sp), b = l.substr(sp + 1);
    try {
      if (oxir::load_model(a) != oxir::load_model(b)) {
        std::printf("DIFF %s %s\n", a.c_str(), b.c_str());
        ++bad;
      }
    } catch (const oxir::Error& e) {
      std::printf("DIFF %s %s (%s)\n", a.c_str(), b.c_str(), e.what());
      ++bad;
    }
  }
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "to-text") return to_text(args[1], args[2]);
  if (args.size() == 2 && args[0] == "parse") return parse(args[1]);
  if (args.size() == 2 && args[0] == "same") return same(args[1]);
  std::fprintf(stderr, "usage: text_batch to-text OUTDIR LIST | parse DIR | same LIST\n");
  return 2;
}
