// Benchmark (run by hand, not a test): oxir's native codec against libprotobuf 3.21 through onnx's
// generated onnx::ModelProto, measured in the same run. Prints one row per model and geometric
// means of the speed-up ratios (protobuf time / oxir time; above 1 means oxir is faster).
//   bench_codec [--runs N] MODEL_OR_DIR...   (directories are searched for *.onnx)
#include <oxir/oxir.hpp>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

template <class F>
double median_ms(int runs, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    auto a = clock_type::now();
    f();
    auto b = clock_type::now();
    t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string s;
  in.seekg(0, std::ios::end);
  s.resize(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

struct Means {
  double log_sum = 0;
  int n = 0;
  void add(double ratio) {
    log_sum += std::log(ratio);
    ++n;
  }
  [[nodiscard]] double geomean() const { return n ? std::exp(log_sum / n) : 0; }
};

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (fs::is_directory(a)) {
      for (const auto& e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file() && e.path().extension() == ".onnx") files.push_back(e.path());
    } else {
      files.emplace_back(a);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "usage: bench_codec [--runs N] MODEL_OR_DIR...\n");
    return 2;
  }
  Means load_all, ser_all, load_heavy, ser_heavy;
  std::printf("%-60s %10s %10s %10s %8s %10s %10s %8s\n", "model", "bytes", "pb_load", "oxir_load", "ratio",
              "pb_ser", "oxir_ser", "ratio");
  for (const auto& f : files) {
    const auto size = fs::file_size(f);
    onnx::ModelProto proto;
    if (!proto.ParseFromString(read_file(f))) {
      std::printf("%-60s protobuf cannot parse it, skipped\n", f.string().c_str());
      continue;
    }
    double pb_load = median_ms(runs, [&] {
      onnx::ModelProto p;
      auto bytes = read_file(f);
      if (!p.ParseFromString(bytes)) std::abort();
    });
    double ox_load = median_ms(runs, [&] {
      auto m = oxir::load_model(f);
      if (m.ir_version < 0) std::abort();
    });
    const auto model = oxir::load_model(f);
    double pb_ser = median_ms(runs, [&] {
      std::string out;
      proto.SerializeToString(&out);
      if (out.size() != size) std::abort();
    });
    double ox_ser = median_ms(runs, [&] {
      auto out = oxir::serialize_model(model);
      if (out.size() != size) std::abort();
    });
    const double rl = pb_load / std::max(ox_load, 1e-6), rs = pb_ser / std::max(ox_ser, 1e-6);
    load_all.add(rl);
    ser_all.add(rs);
    // Weight-heavy: at least 1 MiB, of which most is tensor payload.
    std::uint64_t weights = 0;
    oxir::io::for_each_tensor(model, [&](const oxir::Tensor& t, const std::string&) { weights += t.data.size(); });
    if (size >= (1u << 20) && weights * 10 >= size * 8) {
      load_heavy.add(rl);
      ser_heavy.add(rs);
    }
    std::printf("%-60s %10llu %10.3f %10.3f %8.2f %10.3f %10.3f %8.2f\n", f.string().c_str(),
                static_cast<unsigned long long>(size), pb_load, ox_load, rl, pb_ser, ox_ser, rs);
  }
  std::printf("\nmodels=%d load_speedup_geomean=%.2f serialize_speedup_geomean=%.2f\n", load_all.n,
              load_all.geomean(), ser_all.geomean());
  std::printf("weight_heavy_models=%d load_speedup_geomean=%.2f serialize_speedup_geomean=%.2f\n", load_heavy.n,
              load_heavy.geomean(), ser_heavy.geomean());
  return 0;
}
