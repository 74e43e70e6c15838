#pragma once
// Loading and saving model files: memory-mapped zero-copy loading, external data (lazy or
// eager), moving large tensors into external data files on save, and internalizing them again.

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../ir/model.hpp"
#include "decode.hpp"
#include "encode.hpp"
#include "mapped_file.hpp"
#include "sha1.hpp"

namespace oxir {

/// Options of load_model.
struct LoadOptions {
  DecodeOptions decode;
  /// Read external data while loading instead of on first access.
  bool load_external_data = false;
  /// Check the "checksum" entry of external data (a SHA-1 hex digest) when the data is read: it
  /// must be the digest of the data file (as onnx.proto defines it) or of the tensor's own bytes.
  /// A checksum that is no SHA-1 digest is an error at load time. False ignores checksums.
  bool verify_checksums = true;
};

/// Options of save_model.
struct SaveOptions {
  /// File (relative to the model's folder) receiving tensors moved to external data. When unset,
  /// tensors stay inline unless the model would exceed `max_inline_bytes`; then "<model file>.data".
  std::optional<std::string> external_data_file;
  /// Tensors whose payload has at least this many bytes go to the external data file.
  std::uint64_t size_threshold = 1024;
  /// Offset alignment in the external data file of the tensors of at least `align_threshold`
  /// bytes.
  std::uint64_t alignment = 4096;
  /// Tensors smaller than this start at a multiple of 16 bytes (of `alignment` if less) instead:
  /// padding each small tensor to a page would make a file of many small tensors mostly zeros.
  /// 0 aligns every tensor to `alignment`.
  std::uint64_t align_threshold = 4096;
  /// Largest external data file (0: no limit, one file). When the next tensor (after alignment
  /// padding) would take a file past this size, it starts a new file: the first is
  /// `external_data_file`, then `external_data_file.1`, `.2`, ... A tensor bigger than the limit
  /// gets a file of its own, so 1 writes one file per tensor.
  std::uint64_t max_external_file_bytes = 0;
  /// Write every tensor inline (external ones are read first), whatever its size.
  bool internalize = false;
  /// Largest model file written with everything inline when no external_data_file is given
  /// (protobuf refuses to parse messages of 2 GiB and more).
  std::uint64_t max_inline_bytes = (std::uint64_t{1} << 31) - 1;
};

namespace io {

/// Calls `fn(tensor, path)` for every tensor in the model: initializers, sparse initializers,
/// attribute tensors, in every (nested) graph, in functions and training info. `path` names the
/// tensor as error messages do, e.g. `graph.node[3].attribute[0].t`.
template <class ModelRef, class Fn>
void for_each_tensor(ModelRef& model, Fn&& fn) {
  std::string path;
  auto in = [&](std::string_view part, auto&& body) {
    const auto len = path.size();
    if (!path.empty() && part.front() != '[') path += '.';
    path += part;
    body();
    path.resize(len);
  };
  auto idx = [](std::string_view name, std::size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; };
  std::function<void(decltype((model.graph)))> graph;  // Graph& or const Graph&
  auto nodes = [&](auto& list) {
    for (std::size_t n = 0; n < list.size(); ++n)
      in(idx("node", n), [&] {
        auto& attrs = list[n].attributes;
        for (std::size_t a = 0; a < attrs.size(); ++a)
          in(idx("attribute", a), [&] {
            auto& v = attrs[a].value;
            if (auto p = std::get_if<Box<Tensor>>(&v); p && *p) in("t", [&] { fn(**p, path); });
            if (auto p = std::get_if<std::vector<Tensor>>(&v))
              for (std::size_t i = 0; i < p->size(); ++i) in(idx("tensors", i), [&] { fn((*p)[i], path); });
            if (auto p = std::get_if<Box<SparseTensor>>(&v); p && *p)
              in("sparse_tensor", [&] {
                in("values", [&] { fn((*p)->values, path); });
                in("indices", [&] { fn((*p)->indices, path); });
              });
            if (auto p = std::get_if<std::vector<SparseTensor>>(&v))
              for (std::size_t i = 0; i < p->size(); ++i)
                in(idx("sparse_tensors", i), [&] {
                  in("values", [&] { fn((*p)[i].values, path); });
                  in("indices", [&] { fn((*p)[i].indices, path); });
                });
            if (auto p = std::get_if<Box<Graph>>(&v); p && *p) in("g", [&] { graph(**p); });
            if (auto p = std::get_if<std::vector<Graph>>(&v))
              for (std::size_t i = 0; i < p->size(); ++i) in(idx("graphs", i), [&] { graph((*p)[i]); });
          });
      });
  };
  graph = [&](auto& g) {
    for (std::size_t i = 0; i < g.initializers.size(); ++i) in(idx("initializer", i), [&] { fn(g.initializers[i], path); });
    for (std::size_t i = 0; i < g.sparse_initializers.size(); ++i)
      in(idx("sparse_initializer", i), [&] {
        in("values", [&] { fn(g.sparse_initializers[i].values, path); });
        in("indices", [&] { fn(g.sparse_initializers[i].indices, path); });
      });
    nodes(g.nodes);
  };
  in("graph", [&] { graph(model.graph); });
  for (std::size_t f = 0; f < model.functions.size(); ++f) in(idx("functions", f), [&] { nodes(model.functions[f].nodes); });
  for (std::size_t t = 0; t < model.training_info.size(); ++t)
    in(idx("training_info", t), [&] {
      in("initialization", [&] { graph(model.training_info[t].initialization); });
      in("algorithm", [&] { graph(model.training_info[t].algorithm); });
    });
}

/// Where an external tensor's bytes are: a checked file path and byte range.
struct ExternalLocation {
  std::filesystem::path file;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::optional<std::string> checksum;  ///< SHA-1 in lowercase hex, when given and checked
};

/// The data files a model's tensors name, each resolved once (a model may hold many thousands
/// of external tensors in one file): location as written -> the file and its size.
struct ResolvedFiles {
  std::unordered_map<std::string, std::pair<std::filesystem::path, std::uint64_t>> by_location;
};

/// Parses and checks a tensor's external_data entries against the folder `base`: the location
/// must be a relative path that stays inside `base` (no "..", no absolute path, no symlink
/// leading out), the file must exist and hold offset+length bytes, and length must match the
/// tensor's dims; with `checksums`, a checksum entry must be a SHA-1 hex digest. Throws
/// oxir::Error (path relative to the tensor) otherwise. With `resolved`, a location checked
/// before (for another tensor of the same model) is not looked up in the file system again.
[[nodiscard]] inline ExternalLocation resolve_external(const Tensor& t, const std::filesystem::path& base,
                                                       bool checksums = true, ResolvedFiles* resolved = nullptr) {
  namespace fs = std::filesystem;
  auto location = find_entry(t.external_data, "location");
  if (!location || location->empty()) throw Error("external_data", "no location");
  // The file system would stop at a NUL and open another file than the one named.
  if (location->find('\0') != std::string_view::npos) throw Error("external_data", "location holds a NUL byte");
  auto number = [&](std::string_view key) -> std::optional<std::uint64_t> {
    auto v = find_entry(t.external_data, key);
    if (!v) return std::nullopt;
    if (v->empty() || v->size() > 20 || !std::all_of(v->begin(), v->end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw Error("external_data", std::string(key) + " \"" + std::string(*v) + "\" is not a non-negative integer");
    errno = 0;
    const auto n = std::strtoull(std::string(*v).c_str(), nullptr, 10);
    if (errno == ERANGE) throw Error("external_data", std::string(key) + " is out of range");
    return n;
  };
  const auto find_file = [&]() -> std::pair<fs::path, std::uint64_t> {
    const fs::path rel{std::string(*location)};
    if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
      throw Error("external_data", "location \"" + std::string(*location) + "\" is an absolute path");
    for (const auto& part : rel)
      if (part == "..") throw Error("external_data", "location \"" + std::string(*location) + "\" leaves the model's folder");
    std::error_code ec;
    const auto base_real = fs::weakly_canonical(base.empty() ? fs::path(".") : base, ec);
    if (ec) throw Error("external_data", "cannot resolve the model's folder: " + ec.message());
    auto file = fs::weakly_canonical(base_real / rel, ec);
    if (ec) throw Error("external_data", "cannot resolve \"" + std::string(*location) + "\": " + ec.message());
    auto [mismatch, rest] = std::mismatch(base_real.begin(), base_real.end(), file.begin(), file.end());
    if (mismatch != base_real.end())
      throw Error("external_data", "location \"" + std::string(*location) + "\" resolves outside the model's folder");
    if (!fs::is_regular_file(file, ec))
      throw Error("external_data", "file \"" + std::string(*location) + "\" does not exist or is not a regular file");
    const auto size = static_cast<std::uint64_t>(fs::file_size(file, ec));
    if (ec) throw Error("external_data", "cannot read the size of \"" + std::string(*location) + "\"");
    return {std::move(file), size};
  };
  // Only successes are kept: a location that failed fails again, with the same message.
  auto cached = [&]() -> const std::pair<fs::path, std::uint64_t>& {
    auto it = resolved->by_location.find(std::string(*location));
    if (it == resolved->by_location.end()) it = resolved->by_location.emplace(std::string(*location), find_file()).first;
    return it->second;
  };
  std::pair<fs::path, std::uint64_t> own;
  const auto& [file, file_size] = resolved ? cached() : (own = find_file());
  ExternalLocation out{file, number("offset").value_or(0), 0, std::nullopt};
  if (auto sum = find_entry(t.external_data, "checksum"); sum && checksums) {
    const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
    if (sum->size() != 40 || !std::all_of(sum->begin(), sum->end(), hex))
      throw Error("external_data", "checksum \"" + std::string(sum->substr(0, 64)) + "\" is not a SHA-1 digest (40 hex digits)");
    std::string lower(*sum);
    for (auto& c : lower) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    out.checksum = std::move(lower);
  }
  if (out.offset > file_size)
    throw Error("external_data", "offset " + std::to_string(out.offset) + " is past the end of \"" +
                                     std::string(*location) + "\" (" + std::to_string(file_size) + " bytes)");
  out.length = number("length").value_or(file_size - out.offset);
  if (out.length > file_size - out.offset)
    throw Error("external_data", "offset " + std::to_string(out.offset) + " + length " + std::to_string(out.length) +
                                     " runs past the end of \"" + std::string(*location) + "\" (" +
                                     std::to_string(file_size) + " bytes)");
  if (t.data_type != DataType::STRING) {
    for (auto d : t.dims)
      if (d < 0) throw Error("dims", "negative dimension " + std::to_string(d));
    const auto need = t.expected_bytes();
    if (!need) throw Error("dims", "payload size overflows 64 bits");
    if (*need != out.length)
      throw Error("external_data", "length " + std::to_string(out.length) + " does not match dims, which need " +
                                       std::to_string(*need) + " bytes");
  } else {
    throw Error("external_data", "STRING tensors cannot use external data");
  }
  return out;
}

/// Shares one mapping per external data file among the tensors that use it.
class ExternalFiles {
 public:
  /// The SHA-1 of the whole of `file` (mapped as `map`), computed once.
  [[nodiscard]] std::string digest(const std::filesystem::path& file, const MappedFile& map) {
    {
      std::lock_guard lock(mutex_);
      if (auto it = digests_.find(file.string()); it != digests_.end()) return it->second;
    }
    auto d = Sha1::of(map.bytes());
    std::lock_guard lock(mutex_);
    return digests_.emplace(file.string(), std::move(d)).first->second;
  }

  [[nodiscard]] std::shared_ptr<MappedFile> open(const std::filesystem::path& file) {
    std::lock_guard lock(mutex_);
    auto& slot = files_[file.string()];
    if (auto m = slot.lock()) return m;
    auto m = std::make_shared<MappedFile>(file);
    slot = m;
    return m;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::weak_ptr<MappedFile>> files_;
  std::map<std::string, std::string> digests_;
};

/// Points every external tensor of `model` at its data under `base`: checked now, read on first
/// access (or now, with `eager`). With `checksums`, a tensor's checksum is verified when its data
/// is read.
inline void attach_external_data(Model& model, const std::filesystem::path& base, bool eager, bool checksums = true) {
  auto files = std::make_shared<ExternalFiles>();
  ResolvedFiles resolved;
  for_each_tensor(model, [&](Tensor& t, const std::string& path) {
    if (!t.is_external()) return;
    const auto named = path + (t.name.empty() ? "" : " \"" + t.name + "\"");
    try {
      const auto loc = resolve_external(t, base, checksums, &resolved);
      auto load = [files, loc, named]() -> Buffer {
        auto map = files->open(loc.file);
        const auto all = map->bytes();
        if (loc.offset + loc.length > all.size()) throw Error(loc.file.string(), "file shrank since the model was loaded");
        const auto mine = all.subspan(static_cast<std::size_t>(loc.offset), static_cast<std::size_t>(loc.length));
        if (loc.checksum && *loc.checksum != files->digest(loc.file, *map) && *loc.checksum != Sha1::of(mine))
          throw Error(named + ".external_data",
                      "checksum " + *loc.checksum + " is the SHA-1 of neither \"" + loc.file.string() +
                          "\" (" + files->digest(loc.file, *map) + ") nor the tensor's bytes in it");
        return Buffer::view(map, mine);
      };
      t.data = eager ? load() : Buffer::lazy(static_cast<std::size_t>(loc.length), std::move(load));
    } catch (const Error& e) {
      if (e.path().rfind(named, 0) == 0) throw;
      throw e.within(named);
    }
  });
}

/// A file written under a temporary name beside `path` (`path` + ".oxir-tmp") and renamed over
/// `path` by commit(), so a failed write never leaves a half-written file where the old one was
/// (which may still be mapped by a loaded model). Destroyed without commit() (an error on the
/// way), it removes the temporary file: a full disk or a refused rename leaves nothing behind.
/// Errors name `path` and say why (the system's reason where there is one).
class FileReplacement {
 public:
  explicit FileReplacement(std::filesystem::path path) : path_(std::move(path)), tmp_(path_) {
    tmp_ += ".oxir-tmp";
#ifdef OXIR_HAVE_MMAP
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) throw Error(path_.string(), std::string("cannot open for writing: ") + std::strerror(errno));
#else
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error(path_.string(), "cannot open for writing");
#endif
  }
  FileReplacement(const FileReplacement&) = delete;
  FileReplacement& operator=(const FileReplacement&) = delete;
  ~FileReplacement() {
    if (committed_) return;
    close_quietly();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }

  void write(std::span<const std::byte> b) {
#ifdef OXIR_HAVE_MMAP
    while (!b.empty()) {
      // Linux writes at most about 2 GiB per call: larger payloads take several.
      const auto n = ::write(fd_, b.data(), std::min<std::size_t>(b.size(), std::size_t{1} << 30));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error(path_.string(), std::string("cannot write: ") + (n < 0 ? std::strerror(errno) : "no progress"));
      b = b.subspan(static_cast<std::size_t>(n));
    }
#else
    out_.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!out_) throw Error(path_.string(), "cannot write");
#endif
  }
  void write_zeros(std::uint64_t n) {
    static const std::byte zeros[4096] = {};
    while (n > 0) {
      const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof zeros));
      write(std::span<const std::byte>(zeros, k));
      n -= k;
    }
  }
  /// Closes the temporary file and renames it over `path`.
  void commit() {
#ifdef OXIR_HAVE_MMAP
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) throw Error(path_.string(), std::string("cannot write: ") + std::strerror(errno));
#else
    out_.close();
    if (!out_) throw Error(path_.string(), "cannot write");
#endif
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) throw Error(path_.string(), "cannot replace: " + ec.message());
    committed_ = true;
  }

 private:
  void close_quietly() noexcept {
#ifdef OXIR_HAVE_MMAP
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
#else
    if (out_.is_open()) out_.close();
#endif
  }

  std::filesystem::path path_, tmp_;
#ifdef OXIR_HAVE_MMAP
  int fd_ = -1;
#else
  std::ofstream out_;
#endif
  bool committed_ = false;
};

/// Writes `bytes` to `path` through a temporary file renamed over it (see FileReplacement).
inline void replace_file(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  FileReplacement f(path);
  f.write(bytes);
  f.commit();
}

/// Where the tensors of a model keep their payloads (see tensor_storage).
struct TensorStorage {
  std::uint64_t inline_bytes = 0;  ///< payload bytes of the tensors that are not external
  bool external = false;           ///< some tensor is external
  bool reads_external = false;     ///< some external tensor came from a file: bring_inline would read it
};

/// One walk over every tensor of `model` (subgraphs, attributes and functions included).
[[nodiscard]] inline TensorStorage tensor_storage(const Model& model) {
  TensorStorage s;
  for_each_tensor(model, [&](const Tensor& t, const std::string&) {
    if (!t.is_external()) {
      s.inline_bytes += t.data.size();
      return;
    }
    s.external = true;
    s.reads_external = s.reads_external || t.data.source() != nullptr;
  });
  return s;
}

/// Reads every external tensor of `model` that came from a file into memory and marks it inline
/// (a lazy load's failure names its tensor). External tensors without a source (references built
/// by hand) stay as they are. Returns the bytes of inline payload the model then holds.
inline std::uint64_t bring_inline(Model& model) {
  std::uint64_t inline_bytes = 0;
  for_each_tensor(model, [&](Tensor& t, const std::string& where) {
    if (t.is_external() && !t.data.source()) return;
    if (t.is_external()) {
      try {
        (void)t.data.bytes();
      } catch (const Error& e) {
        if (e.path().rfind(where, 0) == 0) throw;  // a lazy load's error names its tensor already
        throw e.within(where);
      }
      t.external_data.clear();
      t.data_location = DataLocation::DEFAULT;
      t.presence.set(14, false);
    }
    inline_bytes += t.data.size();
  });
  return inline_bytes;
}

/// Rejects an external data file name that save_model could not write safely or load_model
/// would refuse to read: empty, absolute, leaving the model's folder (".."), or naming the model
/// file itself.
inline void check_data_file_name(const std::string& name, const std::filesystem::path& model_path) {
  namespace fs = std::filesystem;
  const fs::path rel{name};
  if (name.empty() || name.find('\0') != std::string::npos) throw Error("external data file", "the name is empty or holds a NUL");
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    throw Error("external data file \"" + name + "\"", "must be a path relative to the model's folder");
  for (const auto& part : rel)
    if (part == "..") throw Error("external data file \"" + name + "\"", "leaves the model's folder");
  if (!rel.has_filename() || rel.filename() == ".") throw Error("external data file \"" + name + "\"", "names a folder");
  if (rel.lexically_normal() == fs::path(model_path.filename()).lexically_normal())
    throw Error("external data file \"" + name + "\"", "is the model file itself");
}

/// Writes `chunks` (each at its offset, in increasing order, not overlapping) to `file`,
/// zero-padded between. Written under a temporary name and renamed: the old file may be mapped by
/// the very tensors being written (saving over the files a model was loaded from). Creates
/// missing parent folders.
inline void write_data_file(const std::filesystem::path& file,
                            const std::vector<std::pair<std::uint64_t, Buffer>>& chunks) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  FileReplacement d(file);
  std::uint64_t pos = 0;
  for (const auto& [start, c] : chunks) {
    d.write_zeros(start - pos);
    const auto b = c.bytes();
    d.write(b);
    pos = start + b.size();
  }
  d.commit();
}

}  // namespace io

/// Loads a model file: the file is memory-mapped and tensor payloads view the mapping (kept
/// alive as long as any tensor uses it). External data is checked now and read on first access
/// (or at once with options.load_external_data). Throws oxir::Error naming the file and the
/// field path of any problem.
[[nodiscard]] inline Model load_model(const std::filesystem::path& path, const LoadOptions& options = {}) {
  auto file = io::read_file_bytes(path);
  Model m;  // outside the try block, so that it is returned in place (a Model is over 500 bytes of members)
  try {
    io::Decoder decoder(std::move(file.owner), options.decode);
    decoder.model(wire::Reader(file.bytes), m);
    if (decoder.external_tensors() != 0)
      io::attach_external_data(m, path.parent_path(), options.load_external_data, options.verify_checksums);
  } catch (const Error& e) {
    throw Error(e.path().empty() ? path.string() : path.string() + ": " + e.path(), e.message());
  }
  return m;
}

/// Saves a model file, moving tensors into external data as `options` say (see SaveOptions).
/// Tensors that were loaded from external data are read and written again (inline or into the
/// new data file), so the saved model never points at the files it was loaded from; an external
/// tensor without payload in memory (a reference built by hand) is written as the reference it is.
inline void save_model(const Model& model, const std::filesystem::path& path, const SaveOptions& options = {}) {
  std::optional<std::string> data_file = options.internalize ? std::nullopt : options.external_data_file;
  const auto choose_data_file = [&](std::uint64_t inline_bytes) {
    if (!options.internalize && !data_file && inline_bytes > options.max_inline_bytes)
      data_file = path.filename().string() + ".data";
    if (data_file) io::check_data_file_name(*data_file, path);
  };
  // Most saves change no tensor: nothing to read in from external data, nothing to move out. Those
  // serialize `model` as it is, without the copy of its structure that the general case below
  // edits (as large as the model's graph: a 200,000-node model is 130 MB of it).
  const auto storage = io::tensor_storage(model);
  if (!storage.reads_external) {
    choose_data_file(storage.inline_bytes);
    if (!data_file) {
      io::replace_file(path, serialize_model(model));
      return;
    }
  }

  Model out = model;  // shares every payload; only structure is copied
  const std::uint64_t inline_bytes = io::bring_inline(out);  // lazy loads happen here
  if (storage.reads_external) choose_data_file(inline_bytes);
  // File k of the external data: the name given, then that name + ".k".
  const auto file_name = [&](std::size_t k) { return k == 0 ? *data_file : *data_file + "." + std::to_string(k); };

  std::vector<std::vector<std::pair<std::uint64_t, Buffer>>> files;  // (offset, payload) per data file
  if (data_file) {
    const std::uint64_t page = std::max<std::uint64_t>(options.alignment, 1);
    const std::uint64_t limit = options.max_external_file_bytes;
    std::uint64_t offset = 0;
    io::for_each_tensor(out, [&](Tensor& t, const std::string&) {
      if (t.is_external() || t.data_type == DataType::STRING || t.data.size() < std::max<std::uint64_t>(options.size_threshold, 1)) return;
      const std::uint64_t size = t.data.size();
      const std::uint64_t align = size >= options.align_threshold ? page : std::min<std::uint64_t>(page, 16);
      std::uint64_t start = (offset + align - 1) / align * align;
      if (files.empty() || (limit != 0 && !files.back().empty() && (start > limit || size > limit - start))) {
        files.emplace_back();
        start = 0;
      }
      t.external_data = {{"location", file_name(files.size() - 1), {}, {}},
                         {"offset", std::to_string(start), {}, {}},
                         {"length", std::to_string(size), {}, {}}};
      t.data_location = DataLocation::EXTERNAL;
      files.back().emplace_back(start, t.data);
      offset = start + size;
    });
  }
  const auto bytes = serialize_model(out);
  for (std::size_t k = 1; k < files.size(); ++k) io::check_data_file_name(file_name(k), path);
  for (std::size_t k = 0; k < files.size(); ++k)
    io::write_data_file(path.parent_path() / file_name(k), files[k]);
  io::replace_file(path, bytes);
}

}  // namespace oxir
