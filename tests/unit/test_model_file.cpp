// Loading and saving files: memory-mapped zero-copy loads, external data (lazy, eager, saved,
// internalized) and hostile external references.
#include <doctest/doctest.h>

#include <oxir/oxir.hpp>

#include "alloc_counter.hpp"
#include "graph_util.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <csignal>
#include <cerrno>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace oxir_unit_test_model_file {

using namespace oxir;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("oxir-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

Model weights_model() {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.graph.name = "g";
  m.graph.inputs.emplace_back("X", Type::tensor(DataType::FLOAT, {"N", 256}));
  m.graph.outputs.emplace_back("Y", Type::tensor(DataType::FLOAT, {"N", 256}));
  std::vector<float> big(256 * 256);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 251) * 0.5f;
  m.graph.initializers.push_back(Tensor::from_values<float>("W", {256, 256}, big));
  m.graph.initializers.push_back(Tensor::from_values<float>("b", {2}, {1.f, 2.f}));  // below the threshold
  m.graph.nodes.push_back(Node("MatMul", {"X", "W"}, {"Y"}, "mm"));
  return m;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

// A model whose single initializer "E" (3 floats) points at external data with these entries.
Model external_model(std::vector<StringStringEntry> entries) {
  Model m;
  m.ir_version = 10;
  Tensor t;
  t.name = "E";
  t.data_type = DataType::FLOAT;
  t.dims = {3};
  t.data_location = DataLocation::EXTERNAL;
  t.external_data = std::move(entries);
  m.graph.initializers.push_back(t);
  return m;
}

std::string load_error(const fs::path& p) {
  try {
    (void)load_model(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("save and load round trip; loaded payloads view the mapped file") {
  TempDir dir;
  const Model m = weights_model();
  save_model(m, dir.path / "m.onnx");
  const Model back = load_model(dir.path / "m.onnx");
  CHECK(back == m);
  CHECK(read_all(dir.path / "m.onnx") == serialize_model_to_string(m));
  // Zero copy: the payload points into the mapping, not at a copy (the bytes sit inside the file image).
  const auto file = read_all(dir.path / "m.onnx");
  const auto* w = back.graph.find_initializer("W");
  CHECK(w->data.source() != nullptr);
  auto copy = back;  // copies share the mapping
  CHECK(copy.graph.find_initializer("W")->data.shares_storage_with(w->data));
  CHECK(std::memcmp(w->bytes().data(), m.graph.find_initializer("W")->bytes().data(), w->bytes().size()) == 0);
}

TEST_CASE("a save that moves no tensor writes the model as it is, without copying its graph") {
  TempDir dir;
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  m.graph = graph_util::relu_chain(20000);
  m.graph.initializers.push_back(Tensor::from_values<float>("b", {2}, {1.f, 2.f}));
  const auto expected = serialize_model_to_string(m);

  // The serialized bytes and their bookkeeping; a copy of the graph would hold 20,000 Nodes
  // (sizeof(Node) each, plus their names), over ten times the file's size.
  const auto peak = oxir_test::peak_during([&] { save_model(m, dir.path / "m.onnx"); });
  MESSAGE("file " << expected.size() << " bytes, peak held while saving " << peak << " bytes");
  CHECK(peak < 3 * expected.size() + 65536);
  CHECK(read_all(dir.path / "m.onnx") == expected);

  // The same model with a tensor to move out takes the general path, and loads back equal.
  SaveOptions opt;
  opt.external_data_file = "w.bin";
  opt.size_threshold = 8;
  save_model(m, dir.path / "e.onnx", opt);
  CHECK(fs::file_size(dir.path / "w.bin") == 8);
  Model back = load_model(dir.path / "e.onnx");
  CHECK(back.graph.find_initializer("b")->is_external());
  CHECK(back.graph.nodes == m.graph.nodes);
  SaveOptions inside;
  inside.internalize = true;
  save_model(back, dir.path / "i.onnx", inside);
  CHECK(read_all(dir.path / "i.onnx") == expected);
}

TEST_CASE("saving moves large tensors to an aligned external file; loading reads it lazily") {
  TempDir dir;
  const Model m = weights_model();
  SaveOptions opt;
  opt.external_data_file = "weights.bin";
  opt.size_threshold = 1024;
  opt.alignment = 4096;
  save_model(m, dir.path / "m.onnx", opt);
  CHECK(fs::file_size(dir.path / "weights.bin") == 256 * 256 * 4);

  const Model back = load_model(dir.path / "m.onnx");
  const Tensor& w = *back.graph.find_initializer("W");
  CHECK(w.is_external());
  CHECK(find_entry(w.external_data, "location") == "weights.bin");
  CHECK(find_entry(w.external_data, "offset") == "0");
  CHECK_FALSE(w.data.is_loaded());
  CHECK(w.data.size() == 256 * 256 * 4);
  CHECK_FALSE(back.graph.find_initializer("b")->is_external());
  CHECK(w.values<float>()[300] == m.graph.find_initializer("W")->values<float>()[300]);
  CHECK(w.data.is_loaded());

  // Eager loading, then internalizing brings everything back inline.
  LoadOptions eager;
  eager.load_external_data = true;
  const Model loaded = load_model(dir.path / "m.onnx", eager);
  CHECK(loaded.graph.find_initializer("W")->data.is_loaded());
  SaveOptions inl;
  inl.internalize = true;
  save_model(loaded, dir.path / "inline.onnx", inl);
  const Model internal = load_model(dir.path / "inline.onnx");
  CHECK_FALSE(internal.graph.find_initializer("W")->is_external());
  CHECK(internal == m);

  // Two tensors above the threshold: the second starts at an aligned offset.
  Model two = m;
  two.graph.initializers.push_back(Tensor::from_values<std::int64_t>("L", {300}, std::vector<std::int64_t>(300, 7)));
  save_model(two, dir.path / "two.onnx", opt);
  const Model two_back = load_model(dir.path / "two.onnx");
  const auto offset = std::stoull(std::string(*find_entry(two_back.graph.find_initializer("L")->external_data, "offset")));
  CHECK(offset % 4096 == 0);
  CHECK(offset >= 256 * 256 * 4);
  CHECK(two_back.graph.find_initializer("L")->element<std::int64_t>(299) == 7);
}

TEST_CASE("saving over the file a model was loaded from is safe") {
  TempDir dir;
  SaveOptions opt;
  opt.external_data_file = "w.bin";
  save_model(weights_model(), dir.path / "m.onnx", opt);
  Model m = load_model(dir.path / "m.onnx");  // lazy views of w.bin
  m.graph.name = "renamed";
  save_model(m, dir.path / "m.onnx", opt);  // rewrites w.bin while m's tensors map the old one
  Model again = load_model(dir.path / "m.onnx");
  CHECK(again.graph.name == "renamed");
  CHECK(again.graph.find_initializer("W")->values<float>()[1000] == weights_model().graph.find_initializer("W")->values<float>()[1000]);
}

TEST_CASE("a model of more than max_inline_bytes goes to external data by default") {
  TempDir dir;
  SaveOptions opt;
  opt.max_inline_bytes = 100000;  // stands in for protobuf's 2 GiB limit
  save_model(weights_model(), dir.path / "m.onnx", opt);
  CHECK(fs::exists(dir.path / "m.onnx.data"));
  CHECK(fs::file_size(dir.path / "m.onnx") < 10000);
  CHECK(load_model(dir.path / "m.onnx") != weights_model());  // external now, so different metadata
  SaveOptions inl;
  inl.internalize = true;
  save_model(load_model(dir.path / "m.onnx"), dir.path / "i.onnx", inl);
  CHECK(load_model(dir.path / "i.onnx") == weights_model());
}

// A model of `sizes.size()` float initializers T0, T1, ... of these element counts, each filled
// with its own pattern.
Model sized_model(const std::vector<std::size_t>& sizes) {
  Model m;
  m.ir_version = 10;
  m.set_opset_version("", 21);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::vector<float> v(sizes[k]);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(k * 1000 + i % 997);
    m.graph.initializers.push_back(
        Tensor::from_values<float>("T" + std::to_string(k), {static_cast<std::int64_t>(sizes[k])}, v));
  }
  return m;
}

TEST_CASE("small tensors are packed at 16-byte offsets, large ones at page offsets") {
  TempDir dir;
  // 4-byte floats: 3, 1000, 2000 and 5 elements (12, 4000, 8000 and 20 bytes).
  const Model m = sized_model({3, 1000, 2000, 5});
  SaveOptions opt;
  opt.external_data_file = "w.bin";
  opt.size_threshold = 1;
  save_model(m, dir.path / "m.onnx", opt);
  // T0 at 0; T1 (under 4096 bytes) at the next multiple of 16; T2 at the next page; T3 right after.
  const Model back = load_model(dir.path / "m.onnx");
  const char* expect[] = {"0", "16", "4096", "12096"};
  for (std::size_t k = 0; k < 4; ++k) {
    const Tensor& t = back.graph.initializers[k];
    CAPTURE(k);
    CHECK(t.is_external());
    CHECK(find_entry(t.external_data, "offset") == expect[k]);
    CHECK(t.bytes().size() == m.graph.initializers[k].bytes().size());
    CHECK(std::memcmp(t.bytes().data(), m.graph.initializers[k].bytes().data(), t.bytes().size()) == 0);
  }
  CHECK(fs::file_size(dir.path / "w.bin") == 12096 + 20);

  // 100,000 tensors of 4 bytes make a file of 1.6 MB, not of 400 MB.
  Model many;
  many.ir_version = 10;
  many.set_opset_version("", 21);
  for (int k = 0; k < 100000; ++k)
    many.graph.initializers.push_back(Tensor::from_values<float>("t" + std::to_string(k), {1}, std::vector<float>{1.f * k}));
  save_model(many, dir.path / "many.onnx", opt);
  CHECK(fs::file_size(dir.path / "w.bin") == 16 * 99999 + 4);
  const Model many_back = load_model(dir.path / "many.onnx");
  CHECK(many_back.graph.initializers[77777].values<float>()[0] == 77777.f);

  opt.align_threshold = 0;  // every tensor at a page
  save_model(m, dir.path / "m.onnx", opt);
  CHECK(fs::file_size(dir.path / "w.bin") == 4 * 4096 + 20);  // T3 at 16384
}

TEST_CASE("max_external_file_bytes splits external data over several files, each within the limit") {
  TempDir dir;
  // 4-byte floats: 1000, 300, 2000, 10 (below the threshold), 900 and 5000 elements.
  const Model m = sized_model({1000, 300, 2000, 10, 900, 5000});
  SaveOptions opt;
  opt.external_data_file = "w.bin";
  opt.size_threshold = 100;
  opt.alignment = 64;
  opt.align_threshold = 0;  // every tensor at a multiple of 64
  opt.max_external_file_bytes = 9000;
  save_model(m, dir.path / "m.onnx", opt);

  // Packing in model order: T0 (4000 B) at 0 and T1 (1200 B) at 4032 share w.bin (5232 B); T2
  // (8000 B) would end at 13248, so it starts w.bin.1; T4 (3600 B) would end at 11600 there, so
  // w.bin.2; T5 (20000 B) is over the limit and gets w.bin.3 of its own.
  CHECK(fs::file_size(dir.path / "w.bin") == 4032 + 1200);
  CHECK(fs::file_size(dir.path / "w.bin.1") == 8000);
  CHECK(fs::file_size(dir.path / "w.bin.2") == 3600);
  CHECK(fs::file_size(dir.path / "w.bin.3") == 20000);
  CHECK_FALSE(fs::exists(dir.path / "w.bin.4"));

  const Model back = load_model(dir.path / "m.onnx");
  const char* expect[][2] = {{"w.bin", "0"}, {"w.bin", "4032"}, {"w.bin.1", "0"}, {nullptr, nullptr},
                             {"w.bin.2", "0"}, {"w.bin.3", "0"}};
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    const Tensor& t = back.graph.initializers[k];
    if (!expect[k][0]) {
      CHECK_FALSE(t.is_external());
    } else {
      CHECK(find_entry(t.external_data, "location") == expect[k][0]);
      CHECK(find_entry(t.external_data, "offset") == expect[k][1]);
    }
    CHECK(t.values<float>().size() == m.graph.initializers[k].values<float>().size());
    CHECK(std::equal(t.values<float>().begin(), t.values<float>().end(), m.graph.initializers[k].values<float>().begin()));
  }
  SaveOptions inl;
  inl.internalize = true;
  save_model(back, dir.path / "i.onnx", inl);
  CHECK(load_model(dir.path / "i.onnx") == m);

  // A limit of 1 byte: one file per tensor above the threshold.
  opt.max_external_file_bytes = 1;
  save_model(m, dir.path / "p.onnx", opt);
  const Model per = load_model(dir.path / "p.onnx");
  std::set<std::string> locations;
  for (const auto& t : per.graph.initializers)
    if (t.is_external()) {
      locations.insert(std::string(*find_entry(t.external_data, "location")));
      CHECK(find_entry(t.external_data, "offset") == "0");
    }
  CHECK(locations == std::set<std::string>{"w.bin", "w.bin.1", "w.bin.2", "w.bin.3", "w.bin.4"});
}

TEST_CASE("an external data file name that cannot be loaded back is refused before anything is written") {
  TempDir dir;
  const Model m = weights_model();
  for (const std::string bad : {"../w.bin", "sub/../../w.bin", "/tmp/w.bin", "", "m.onnx", "./m.onnx", "sub/.."}) {
    CAPTURE(bad);
    SaveOptions opt;
    opt.external_data_file = bad;
    std::string what = "no error";
    try {
      save_model(m, dir.path / "m.onnx", opt);
    } catch (const Error& e) {
      what = e.what();
    }
    CHECK(what.find("external data file") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path / "m.onnx"));
  }
  // A subfolder is fine, and made when missing.
  SaveOptions opt;
  opt.external_data_file = "weights/w.bin";
  save_model(m, dir.path / "m.onnx", opt);
  CHECK(fs::file_size(dir.path / "weights" / "w.bin") == 256 * 256 * 4);
  CHECK(load_model(dir.path / "m.onnx").graph.find_initializer("W")->values<float>()[77] ==
        m.graph.find_initializer("W")->values<float>()[77]);
}

TEST_CASE("hostile external data: path leaving the folder with ..") {
  TempDir dir;
  save_model(external_model({{"location", "../secret.bin", {}, {}}}), dir.path / "m.onnx");
  CHECK(load_error(dir.path / "m.onnx") ==
        (dir.path / "m.onnx").string() +
            ": graph.initializer[0] \"E\".external_data: location \"../secret.bin\" leaves the model's folder");
}

TEST_CASE("hostile external data: a NUL in the location") {
  // Read as a C string, "d.bin\0../x" would open d.bin: a file the entry does not name.
  TempDir dir;
  write_all(dir.path / "d.bin", std::string(12, 'x'));
  save_model(external_model({{"location", std::string("d.bin\0../x", 10), {}, {}}}), dir.path / "m.onnx");
  CHECK(load_error(dir.path / "m.onnx") ==
        (dir.path / "m.onnx").string() + ": graph.initializer[0] \"E\".external_data: location holds a NUL byte");
  save_model(external_model({{"location", std::string("d.bin\0", 6), {}, {}}}), dir.path / "m2.onnx");
  CHECK(load_error(dir.path / "m2.onnx").find("location holds a NUL byte") != std::string::npos);
  // The same file named plainly loads.
  save_model(external_model({{"location", "d.bin", {}, {}}}), dir.path / "m3.onnx");
  CHECK(load_error(dir.path / "m3.onnx") == "no error");
}

TEST_CASE("hostile external data: absolute path") {
  TempDir dir;
  save_model(external_model({{"location", "/etc/passwd", {}, {}}}), dir.path / "m.onnx");
  CHECK(load_error(dir.path / "m.onnx").find("is an absolute path") != std::string::npos);
}

TEST_CASE("hostile external data: symlink leading out of the folder") {
  TempDir dir;
  TempDir outside;
  write_all(outside.path / "data.bin", std::string(12, 'x'));
  fs::create_symlink(outside.path / "data.bin", dir.path / "link.bin");
  save_model(external_model({{"location", "link.bin", {}, {}}}), dir.path / "m.onnx");
  CHECK(load_error(dir.path / "m.onnx").find("resolves outside the model's folder") != std::string::npos);
  // A symlinked folder leading out is caught the same way.
  fs::create_directory_symlink(outside.path, dir.path / "sub");
  save_model(external_model({{"location", "sub/data.bin", {}, {}}}), dir.path / "m2.onnx");
  CHECK(load_error(dir.path / "m2.onnx").find("resolves outside the model's folder") != std::string::npos);
}

TEST_CASE("hostile external data: past the end of its file") {
  TempDir dir;
  write_all(dir.path / "d.bin", std::string(16, 'x'));
  save_model(external_model({{"location", "d.bin", {}, {}}, {"offset", "8", {}, {}}, {"length", "12", {}, {}}}),
             dir.path / "m.onnx");
  CHECK(load_error(dir.path / "m.onnx").find("offset 8 + length 12 runs past the end of \"d.bin\" (16 bytes)") !=
        std::string::npos);
  save_model(external_model({{"location", "d.bin", {}, {}}, {"offset", "99", {}, {}}}), dir.path / "m2.onnx");
  CHECK(load_error(dir.path / "m2.onnx").find("offset 99 is past the end") != std::string::npos);
  save_model(external_model({{"location", "d.bin", {}, {}}, {"offset", "-1", {}, {}}}), dir.path / "m3.onnx");
  CHECK(load_error(dir.path / "m3.onnx").find("is not a non-negative integer") != std::string::npos);
  save_model(external_model({{"location", "d.bin", {}, {}}, {"length", "8", {}, {}}}), dir.path / "m4.onnx");
  CHECK(load_error(dir.path / "m4.onnx").find("length 8 does not match dims, which need 12 bytes") != std::string::npos);
}

TEST_CASE("SHA-1 matches the FIPS 180 test vectors, fed whole or in pieces") {
  const auto of = [](std::string_view s) { return io::Sha1::of(std::as_bytes(std::span(s.data(), s.size()))); };
  CHECK(of("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(of("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  const std::string million(1000000, 'a');
  CHECK(of(million) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  // The same bytes in pieces of every size from 1 to 130 (across block boundaries).
  for (std::size_t piece = 1; piece <= 130; ++piece) {
    io::Sha1 h;
    for (std::size_t i = 0; i < 1000; i += piece)
      h.update(std::as_bytes(std::span(million.data() + i, std::min(piece, 1000 - i))));
    CHECK(h.hex_digest() == "291e9a6c66994949b57ba5e650361e98fc36b1ba");  // 1000 'a's
  }
}

TEST_CASE("external data checksum: the SHA-1 of the file or of the tensor's bytes is verified when read") {
  TempDir dir;
  write_all(dir.path / "d.bin", "0123456789abcdef");
  // E is 3 floats = 12 bytes at offset 4: "456789abcdef". Digests from Python's hashlib.
  const auto model = [&](const std::string& sum, const std::string& name) {
    save_model(external_model({{"location", "d.bin", {}, {}}, {"offset", "4", {}, {}}, {"checksum", sum, {}, {}}}),
               dir.path / name);
    return dir.path / name;
  };
  const auto file_sum = model("fe5567e8d769550852182cdf69d74bb16dff8e29", "file.onnx");
  const auto own_sum = model("09D012745D64CDFD7F177B318B6F93EE9ACB8F46", "own.onnx");  // upper case too
  const auto wrong = model("2f2d205d5451d3256cf1c693982b40101e9989bf", "wrong.onnx");  // of "0123456789ab"
  const auto bad = model("not-a-digest", "bad.onnx");
  const std::string want = "456789abcdef";
  for (const auto& p : {file_sum, own_sum}) {
    CAPTURE(p);
    const Model m = load_model(p);
    const auto b = m.graph.initializers[0].bytes();
    CHECK(std::string(reinterpret_cast<const char*>(b.data()), b.size()) == want);
  }
  // A wrong digest: lazily, the first access throws, naming the tensor; eagerly, loading does.
  const Model lazy = load_model(wrong);
  std::string what = "no error";
  try {
    (void)lazy.graph.initializers[0].bytes();
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.find("graph.initializer[0] \"E\".external_data: checksum 2f2d205d5451d3256cf1c693982b40101e9989bf is "
                  "the SHA-1 of neither \"") != std::string::npos);
  CHECK(what.find("d.bin\" (fe5567e8d769550852182cdf69d74bb16dff8e29) nor the tensor's bytes") != std::string::npos);
  // Saving reads the data, so it reports the same error, with the tensor named once.
  try {
    save_model(lazy, dir.path / "again.onnx");
    what = "no error";
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.rfind("graph.initializer[0] \"E\".external_data: checksum", 0) == 0);
  LoadOptions eager;
  eager.load_external_data = true;
  try {
    (void)load_model(wrong, eager);
    what = "no error";
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.find("wrong.onnx: graph.initializer[0] \"E\".external_data: checksum") != std::string::npos);
  CHECK(load_error(bad).find("checksum \"not-a-digest\" is not a SHA-1 digest") != std::string::npos);
  // verify_checksums = false: checksums are not read at all.
  LoadOptions off;
  off.verify_checksums = false;
  off.load_external_data = true;
  for (const auto& p : {wrong, bad}) CHECK(load_model(p, off).graph.initializers[0].bytes().size() == 12);
}

TEST_CASE("hostile external data: missing file or location") {
  TempDir dir;
  save_model(external_model({{"location", "nowhere.bin", {}, {}}}), dir.path / "m.onnx");
  CHECK(load_error(dir.path / "m.onnx").find("file \"nowhere.bin\" does not exist") != std::string::npos);
  save_model(external_model({{"offset", "0", {}, {}}}), dir.path / "m2.onnx");
  CHECK(load_error(dir.path / "m2.onnx").find("external_data: no location") != std::string::npos);
  CHECK(load_error(dir.path / "absent.onnx").find("cannot open") != std::string::npos);
}

TEST_CASE("a valid external reference in a subfolder loads") {
  TempDir dir;
  fs::create_directories(dir.path / "data");
  const float values[3] = {1.f, 2.f, 3.f};
  write_all(dir.path / "data" / "e.bin", std::string("pad!") + std::string(reinterpret_cast<const char*>(values), 12));
  save_model(external_model({{"location", "data/e.bin", {}, {}}, {"offset", "4", {}, {}}, {"length", "12", {}, {}}}),
             dir.path / "m.onnx");
  const Model m = load_model(dir.path / "m.onnx");
  CHECK(m.graph.initializers[0].values<float>()[2] == 3.f);
}

TEST_CASE("a model read from a pipe loads like the file") {
  TempDir dir;
  const Model m = weights_model();
  const auto bytes = serialize_model_to_string(m);
  const auto fifo = dir.path / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The writer runs in a child process: a pipe holds 64 KiB, the model is over 256 KiB.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::ofstream out(fifo, std::ios::binary);
    out << bytes;
    out.close();
    ::_exit(0);
  }
  const Model back = load_model(fifo);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(back == m);
}

TEST_CASE("a stream that is no protobuf message fails at its first bad key, not at its end") {
  // /dev/zero never ends: its first byte is a key with field number 0.
  const auto err = load_error("/dev/zero");
  CHECK(err.find("/dev/zero") != std::string::npos);
  CHECK(err.find("field number 0") != std::string::npos);

  using io::MappedFile;
  auto b = [](std::initializer_list<int> v) {
    std::vector<std::byte> out;
    for (int x : v) out.push_back(static_cast<std::byte>(x));
    return out;
  };
  // Complete fields are walked; the offset returned is the start of the first incomplete one.
  CHECK(MappedFile::scan_fields(b({0x08, 0x07}), 0) == 2);                    // ir_version = 7
  CHECK(MappedFile::scan_fields(b({0x08, 0x07, 0x12, 0x03, 'a'}), 0) == 2);  // producer_name cut short
  CHECK(MappedFile::scan_fields(b({0x08, 0x07, 0x12, 0x03, 'a', 'b', 'c'}), 2) == 7);
  CHECK(MappedFile::scan_fields(b({0x08, 0x87}), 0) == 0);                    // varint not ended yet
  CHECK(MappedFile::scan_fields(b({0x09, 1, 2, 3}), 0) == 0);                // fixed64 needs 8 bytes
  CHECK(MappedFile::scan_fields(b({0x0d, 1, 2, 3, 4}), 0) == 5);             // fixed32
  CHECK_THROWS_WITH_AS(MappedFile::scan_fields(b({0x08, 0x07, 0x00}), 0), doctest::Contains("field number 0"),
                       Error);
  CHECK_THROWS_WITH_AS(MappedFile::scan_fields(b({0x0b}), 0), doctest::Contains("invalid"), Error);  // group
  CHECK_THROWS_WITH_AS(MappedFile::scan_fields(b({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}), 0),
                       doctest::Contains("longer"), Error);
  // A length no stream held in memory can reach.
  CHECK_THROWS_WITH_AS(MappedFile::scan_fields(b({0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}), 0),
                       doctest::Contains("too large"), Error);
}

TEST_CASE("a load error's path is the file, then the field path inside it, with nothing between") {
  TempDir dir;
  // A top-level key of wire type 7 (field 12): the error is at the model's own level.
  write_all(dir.path / "bad_key.onnx", std::string("\x08\x07\x67", 3));
  // producer_name (field 2) whose length runs past the end.
  write_all(dir.path / "cut.onnx", std::string("\x08\x07\x12\x05" "ab", 6));
  try {
    (void)load_model(dir.path / "bad_key.onnx");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == (dir.path / "bad_key.onnx").string());
    CHECK(e.message() == "field 12: invalid wire type 7");
    CHECK(std::string(e.what()) == (dir.path / "bad_key.onnx").string() + ": field 12: invalid wire type 7");
  }
  try {
    (void)load_model(dir.path / "cut.onnx");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == (dir.path / "cut.onnx").string() + ": producer_name");
  }
}

TEST_CASE("a save that fails says why, names the file it was writing, and leaves no temporary file") {
  TempDir dir;
  const Model m = weights_model();
  const auto names = [&] {
    std::set<std::string> n;
    for (const auto& e : fs::recursive_directory_iterator(dir.path)) n.insert(fs::relative(e.path(), dir.path).string());
    return n;
  };
  // A folder that does not exist.
  try {
    save_model(m, dir.path / "missing" / "m.onnx");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == (dir.path / "missing" / "m.onnx").string());
    CHECK(e.message() == std::string("cannot open for writing: ") + std::strerror(ENOENT));
  }
  CHECK(names().empty());
  // The external data file's name is taken by a folder: the data is written, the rename refused.
  fs::create_directories(dir.path / "w.bin");
  SaveOptions opts;
  opts.external_data_file = "w.bin";
  try {
    save_model(m, dir.path / "m.onnx", opts);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == (dir.path / "w.bin").string());
    CHECK(e.message().find("cannot replace") == 0);
  }
  CHECK(names() == std::set<std::string>{"w.bin"});  // no w.bin.oxir-tmp, and no m.onnx
  // The model's own name is taken by a folder.
  fs::create_directories(dir.path / "x.onnx");
  CHECK_THROWS_WITH_AS(save_model(m, dir.path / "x.onnx"), doctest::Contains("cannot replace"), Error);
  CHECK(names() == std::set<std::string>{"w.bin", "x.onnx"});
  // A write that runs out of space (a file-size limit, as a full disk would): the temporary file
  // goes too. Run in a child, which SIGXFSZ would otherwise end.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {};
    lim.rlim_cur = lim.rlim_max = 4096;
    ::setrlimit(RLIMIT_FSIZE, &lim);
    int code = 0;
    try {
      save_model(m, dir.path / "big.onnx");  // 256 KiB of weights inline
      code = 1;
    } catch (const Error& e) {
      code = e.message() == std::string("cannot write: ") + std::strerror(EFBIG) ? 0 : 2;
    }
    std::error_code ec;
    if (fs::exists(dir.path / "big.onnx.oxir-tmp", ec) || fs::exists(dir.path / "big.onnx", ec)) code = 3;
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // And a save that works replaces the file, leaving nothing else.
  save_model(m, dir.path / "ok.onnx");
  CHECK(load_model(dir.path / "ok.onnx") == m);
  CHECK(names() == std::set<std::string>{"ok.onnx", "w.bin", "x.onnx"});
}

}  // namespace oxir_unit_test_model_file
