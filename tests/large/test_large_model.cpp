// A model file of more than 2 GiB with every tensor inline (protobuf refuses to parse those):
// oxir writes it, reads it back memory-mapped, and by default saves such a model with external data.
#include <oxir/oxir.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;

int main() {
  using clock = std::chrono::steady_clock;
  const fs::path dir = fs::temp_directory_path() / ("oxir-large-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failures += ok ? 0 : 1;
  };
  {
    constexpr std::size_t chunk = std::size_t{640} << 20;  // 4 x 640 MiB = 2.5 GiB
    oxir::Model m;
    m.ir_version = 10;
    m.set_opset_version("", 21);
    m.graph.name = "large";
    for (int i = 0; i < 4; ++i) {
      std::vector<std::byte> bytes(chunk);
      for (std::size_t j = 0; j < chunk; j += 4096) bytes[j] = static_cast<std::byte>((j / 4096 + i) & 0xFF);
      m.graph.initializers.push_back(oxir::Tensor::from_bytes("w" + std::to_string(i), oxir::DataType::UINT8,
                                                              {static_cast<std::int64_t>(chunk)},
                                                              oxir::Buffer::owned(std::move(bytes))));
    }
    auto t0 = clock::now();
    oxir::SaveOptions inline_all;
    inline_all.max_inline_bytes = UINT64_MAX;
    oxir::save_model(m, dir / "inline.onnx", inline_all);
    auto t1 = clock::now();
    check(fs::file_size(dir / "inline.onnx") > (std::uint64_t{5} << 29), "inline model file is larger than 2.5 GiB");
    const oxir::Model back = oxir::load_model(dir / "inline.onnx");
    auto t2 = clock::now();
    check(back == m, "the 2.5 GiB inline model reads back equal");
    check(back.graph.initializers[3].bytes()[4096 * 7] == static_cast<std::byte>(10), "payload bytes are right");

    oxir::save_model(m, dir / "default.onnx");
    check(fs::exists(dir / "default.onnx.data"), "saving with default options moves the weights to external data");
    check(fs::file_size(dir / "default.onnx") < 4096, "the model file itself stays small");
    const oxir::Model ext = oxir::load_model(dir / "default.onnx");
    check(ext.graph.initializers[2].is_external() && ext.graph.initializers[2].bytes()[4096 * 5] == static_cast<std::byte>(7),
          "external weights read back");
    std::printf("save_inline_s=%.2f load_inline_s=%.2f\n", std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count());
  }
  fs::remove_all(dir);
  std::printf("%d passed, %d failed\n", 6 - failures, failures);
  return failures == 0 ? 0 : 1;
}
