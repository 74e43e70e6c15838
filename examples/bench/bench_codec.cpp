// Benchmark (run by hand, not a test): oxir's native codec against libprotobuf 3.21 through onnx's
// generated onnx::ModelProto, measured in the same run. Prints one table row per model group: a
// directory is one group (geometric mean over its *.onnx files of each file's speed-up), a file is
// a group of its own. Speed-up = protobuf time / oxir time, each the median over --runs runs;
// above 1 means oxir is faster.
//
//   bench_codec [--runs N] [--info MODEL] [--verbose] MODEL_OR_DIR...
//
// Operations (file reading counted on both sides):
//   load       file -> model       oxir::load_model             | read file + ModelProto::ParseFromString
//   parse      bytes -> model      oxir::parse_model(keeper, b) | ParseFromString  (oxir: zero-copy views)
//   parse_copy bytes -> model      oxir::parse_model(b)         | ParseFromString  (oxir copies payloads)
//   serialize  model -> bytes      oxir::serialize_model        | SerializeToString
//   save       model -> file       oxir::save_model             | SerializeToString + write file
// Also printed: oxir's file reading alone (io::read_file_bytes, load's I/O part), and the load
// speed-up it bounds (protobuf load time / oxir read time: what load would reach with a free parse).
// --info MODEL measures the heap of `oxir info MODEL`'s code path (load, walk, print) by counting
// operator new/delete in this process, next to protobuf's peak for loading the same file.
#include <oxir/io.hpp>

#include <onnx/onnx_pb.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

// ---- heap accounting: global operator new/delete, counting only while enabled ----
namespace heap {
std::atomic<bool> counting{false};
std::atomic<long long> current{0}, peak{0}, allocations{0};
void* allocate(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  if (counting.load(std::memory_order_relaxed)) {
    const auto now = current += static_cast<long long>(malloc_usable_size(p));
    ++allocations;
    auto old = peak.load();
    while (now > old && !peak.compare_exchange_weak(old, now)) {
    }
  }
  return p;
}
void release(void* p) noexcept {
  if (!p) return;
  if (counting.load(std::memory_order_relaxed)) current -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}
void start() {
  current = 0;
  peak = 0;
  allocations = 0;
  counting = true;
}
void stop() { counting = false; }
}  // namespace heap

void* operator new(std::size_t n) { return heap::allocate(n); }
void* operator new[](std::size_t n) { return heap::allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return heap::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return heap::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { heap::release(p); }
void operator delete[](void* p) noexcept { heap::release(p); }
void operator delete(void* p, std::size_t) noexcept { heap::release(p); }
void operator delete[](void* p, std::size_t) noexcept { heap::release(p); }

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

template <class F>
double median_ms(int runs, F&& f) {
  f();  // warm-up
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

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) std::abort();
}

constexpr int ops = 5;
constexpr const char* op_names[ops] = {"load", "parse", "parse_copy", "serialize", "save"};

struct Times {
  double pb[ops] = {};
  double ox[ops] = {};
  double read = 0;  // oxir's file reading alone
};

// Medians of every operation for one file; false if protobuf cannot parse it.
bool measure(const fs::path& f, int runs, const fs::path& tmp, Times& t) {
  const auto size = fs::file_size(f);
  onnx::ModelProto proto;
  const std::string bytes = read_file(f);
  if (!proto.ParseFromString(bytes)) return false;
  auto keeper = std::make_shared<std::string>(bytes);
  const auto span = std::as_bytes(std::span<const char>(keeper->data(), keeper->size()));

  t.pb[0] = median_ms(runs, [&] {
    onnx::ModelProto p;
    if (!p.ParseFromString(read_file(f))) std::abort();
  });
  t.ox[0] = median_ms(runs, [&] {
    auto m = oxir::load_model(f);
    if (m.ir_version < 0) std::abort();
  });
  t.read = median_ms(runs, [&] {
    auto b = oxir::io::read_file_bytes(f);
    if (b.bytes.size() != size) std::abort();
  });
  t.pb[1] = t.pb[2] = median_ms(runs, [&] {
    onnx::ModelProto p;
    if (!p.ParseFromString(bytes)) std::abort();
  });
  t.ox[1] = median_ms(runs, [&] {
    auto m = oxir::parse_model(keeper, span);
    if (m.ir_version < 0) std::abort();
  });
  t.ox[2] = median_ms(runs, [&] {
    auto m = oxir::parse_model(span);
    if (m.ir_version < 0) std::abort();
  });
  const auto model = oxir::load_model(f);
  t.pb[3] = median_ms(runs, [&] {
    std::string out;
    proto.SerializeToString(&out);
    if (out.size() != size) std::abort();
  });
  t.ox[3] = median_ms(runs, [&] {
    auto out = oxir::serialize_model(model);
    if (out.size() != size) std::abort();
  });
  t.pb[4] = median_ms(runs, [&] {
    std::string out;
    proto.SerializeToString(&out);
    write_file(tmp, out);
  });
  t.ox[4] = median_ms(runs, [&] { oxir::save_model(model, tmp); });
  fs::remove(tmp);
  return true;
}

struct Group {
  std::string name;
  std::vector<fs::path> files;
  bool is_dir = false;
};

// What `oxir info` does (examples/cli), output into a string stream.
std::size_t info_path(const fs::path& f) {
  const oxir::Model m = oxir::load_model(f);
  std::size_t all = 0;
  for (const auto& n : oxir::views::all_nodes(m.graph)) {
    (void)n;
    ++all;
  }
  std::uint64_t inline_bytes = 0, external_bytes = 0;
  oxir::io::for_each_tensor(m, [&](const oxir::Tensor& t, const std::string&) {
    (t.is_external() ? external_bytes : inline_bytes) += t.data.size();
  });
  std::ostringstream out;
  out << "ir_version: " << m.ir_version << "\nnodes: " << m.graph.nodes.size() << " (" << all << ")\n";
  for (const auto& v : m.graph.inputs)
    if (v.type) out << v.name << ": " << *v.type << "\n";
  for (const auto& v : m.graph.outputs)
    if (v.type) out << v.name << ": " << *v.type << "\n";
  out << "weight bytes: inline=" << inline_bytes << " external=" << external_bytes << "\n";
  return out.str().size();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  bool verbose = false;
  std::vector<fs::path> info_models;
  std::vector<Group> groups;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--info" && i + 1 < argc) {
      info_models.emplace_back(argv[++i]);
    } else if (a == "--verbose") {
      verbose = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "bench_codec: unknown option %s\n", a.c_str());
      groups.clear();
      info_models.clear();
      break;
    } else if (std::error_code ec; !fs::exists(a, ec)) {
      std::fprintf(stderr, "bench_codec: %s: no such file or directory\n", a.c_str());
      return 1;
    } else if (fs::is_directory(a)) {
      Group g{a, {}, true};
      for (const auto& e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file() && e.path().extension() == ".onnx") g.files.push_back(e.path());
      std::sort(g.files.begin(), g.files.end());
      groups.push_back(std::move(g));
    } else {
      groups.push_back({fs::path(a).filename().string(), {a}, false});
    }
  }
  if (groups.empty() && info_models.empty()) {
    std::fprintf(stderr, "usage: bench_codec [--runs N] [--info MODEL] [--verbose] MODEL_OR_DIR...\n");
    return 2;
  }
  const auto tmp = fs::temp_directory_path() / ("bench_codec-" + std::to_string(::getpid()) + ".onnx");

  if (!groups.empty()) {
    std::printf("speed-up over libprotobuf %d.%d.%d (protobuf time / oxir time, median of %d runs; >1: oxir faster)\n",
                GOOGLE_PROTOBUF_VERSION / 1000000, GOOGLE_PROTOBUF_VERSION / 1000 % 1000,
                GOOGLE_PROTOBUF_VERSION % 1000, runs);
    std::printf("%-34s %7s %10s", "group", "models", "MB");
    for (auto* n : op_names) std::printf(" %10s", n);
    std::printf("   %s\n", "oxir us (load/parse/serialize/save; read = load's file reading; load bound)");
  }
  for (const auto& g : groups) {
    double log_sum[ops] = {};
    double ox_sum[ops] = {}, pb_sum[ops] = {};
    double read_sum = 0, bound_log = 0;
    int n = 0;
    std::uint64_t bytes = 0;
    for (const auto& f : g.files) {
      Times t;
      if (!measure(f, runs, tmp, t)) {
        std::fprintf(stderr, "%s: protobuf cannot parse it, skipped\n", f.string().c_str());
        continue;
      }
      ++n;
      bytes += fs::file_size(f);
      for (int o = 0; o < ops; ++o) {
        log_sum[o] += std::log(t.pb[o] / std::max(t.ox[o], 1e-9));
        ox_sum[o] += t.ox[o];
        pb_sum[o] += t.pb[o];
      }
      read_sum += t.read;
      bound_log += std::log(t.pb[0] / std::max(t.read, 1e-9));
      if (verbose) {
        std::printf("  %-60s", f.string().c_str());
        for (int o = 0; o < ops; ++o) std::printf(" %8.3f/%-8.3f", t.pb[o], t.ox[o]);
        std::printf("\n");
      }
    }
    if (!n) continue;
    std::printf("%-34s %7d %10.1f", g.name.substr(0, 34).c_str(), n, static_cast<double>(bytes) / 1e6);
    for (int o = 0; o < ops; ++o) std::printf(" %9.2fx", std::exp(log_sum[o] / n));
    std::printf("   %.1f/%.1f/%.1f/%.1f; read %.1f; load bound %.2fx%s\n", 1e3 * ox_sum[0] / n, 1e3 * ox_sum[1] / n,
                1e3 * ox_sum[3] / n, 1e3 * ox_sum[4] / n, 1e3 * read_sum / n, std::exp(bound_log / n),
                g.is_dir ? " (mean per model)" : "");
    std::fflush(stdout);
  }

  for (const auto& f : info_models) {
    heap::start();
    const auto printed = info_path(f);
    heap::stop();
    const auto ox_peak = heap::peak.load(), ox_allocs = heap::allocations.load();
    heap::start();
    {
      onnx::ModelProto p;
      if (!p.ParseFromString(read_file(f))) std::abort();
    }
    heap::stop();
    std::printf("\ninfo heap, %s (%.1f MB): oxir info path peak %.2f MB in %lld allocations (%zu bytes printed); "
                "protobuf read+parse peak %.1f MB\n",
                f.string().c_str(), static_cast<double>(fs::file_size(f)) / 1e6, static_cast<double>(ox_peak) / 1e6,
                ox_allocs, printed, static_cast<double>(heap::peak.load()) / 1e6);
  }
  return 0;
}
