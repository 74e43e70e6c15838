#pragma once
// Read-only memory mapping of a file (POSIX mmap; elsewhere the file is read into memory).

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../core/error.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define OXIR_HAVE_MMAP 1
#endif

namespace oxir::io {

/// The bytes of a file, mapped read-only for as long as the object lives. Shared by every tensor
/// payload that views it (Buffer::view with a shared_ptr<MappedFile> as keeper).
class MappedFile {
 public:
  /// Maps `path` whole; throws oxir::Error naming the file if it cannot be opened or mapped.
  explicit MappedFile(const std::filesystem::path& path) : path_(path) {
#ifdef OXIR_HAVE_MMAP
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(path.string(), std::string("cannot open: ") + std::strerror(errno));
    from_fd(fd, {});
#else
    read_stream(path);
#endif
  }
#ifdef OXIR_HAVE_MMAP
  /// Takes over `fd`, open on `path`, of which `consumed` (the first bytes read from `fd`) were
  /// already read: a regular file is read or mapped from its start, anything else is read to its
  /// end after `consumed`. Closes `fd`.
  MappedFile(int fd, const std::filesystem::path& path, std::span<const std::byte> consumed) : path_(path) {
    from_fd(fd, consumed);
  }
#endif
  ~MappedFile() {
#ifdef OXIR_HAVE_MMAP
    if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
#endif
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// The file's bytes.
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  /// Files smaller than this are read into memory instead of mapped.
  static constexpr std::size_t small_file_bytes = std::size_t{1} << 20;

  /// The file's path as given.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
#ifdef OXIR_HAVE_MMAP
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  };
  void from_fd(int fd, std::span<const std::byte> consumed) {
    Closer closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error(path_.string(), std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
      read_rest(fd, consumed);
      return;
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0 && size_ < small_file_bytes) {
      // Small files: one read() beats setting up and tearing down a mapping.
      owned_ = std::make_unique_for_overwrite<std::byte[]>(size_);
      std::size_t done = 0;
      while (done < size_) {
        const auto n = ::pread(fd, owned_.get() + done, size_ - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(path_.string(), std::string("cannot read: ") + (n == 0 ? "file shrank" : std::strerror(errno)));
        done += static_cast<std::size_t>(n);
      }
      data_ = owned_.get();
    } else if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) throw Error(path_.string(), std::string("cannot map: ") + std::strerror(errno));
      data_ = static_cast<const std::byte*>(p);
      mapped_ = true;
    }
  }
  // A pipe or device: `consumed`, then whatever read() gives until the end. The top-level fields
  // are checked as they arrive, so a stream that is no protobuf message (/dev/zero, random bytes)
  // fails at its first bad key instead of being read (and held) without end.
  void read_rest(int fd, std::span<const std::byte> consumed) {
    std::vector<std::byte> buf(consumed.begin(), consumed.end());
    const auto scan = [&](std::size_t from) {
      try {
        return scan_fields(buf, from);
      } catch (const Error& e) {
        throw Error(path_.string() + ": " + e.path(), e.message() + " (not an ONNX model)");
      }
    };
    std::size_t scanned = scan(0);
    std::byte chunk[65536];
    for (;;) {
      const auto n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(path_.string(), std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) break;
      buf.insert(buf.end(), chunk, chunk + n);
      scanned = scan(scanned);
    }
    adopt(buf);
  }
#endif
 public:
  /// Walks the complete top-level protobuf fields of `b` from offset `from` (the start of a field)
  /// and returns where the first incomplete one starts. Throws oxir::Error for bytes that no
  /// message can hold: field number 0, a wire type other than 0, 1, 2, 5, a varint over 10 bytes, or
  /// a length of 2^48 bytes or more (no file read into memory is that long).
  static std::size_t scan_fields(std::span<const std::byte> b, std::size_t from) {
    for (;;) {
      std::size_t p = from;
      std::uint64_t v = 0;
      // Reads a varint at p into v; false if the bytes end first.
      auto varint = [&] {
        v = 0;
        for (int i = 0; i < 10; ++i) {
          if (p >= b.size()) return false;
          const auto x = std::to_integer<std::uint64_t>(b[p++]);
          if (i == 9 && x > 1) throw Error("byte " + std::to_string(from), "varint longer than 64 bits");
          v |= (x & 0x7F) << (7 * i);
          if ((x & 0x80) == 0) return true;
        }
        throw Error("byte " + std::to_string(from), "varint longer than 10 bytes");
      };
      if (!varint()) return from;
      const std::uint64_t key = v;
      const auto wt = key & 7;
      if (key > 0xFFFFFFFFULL || (key >> 3) == 0 || (wt != 0 && wt != 1 && wt != 2 && wt != 5))
        throw Error("byte " + std::to_string(from), "field key " + std::to_string(key) +
                                                        ((key >> 3) == 0 ? " has field number 0" : " is invalid"));
      std::uint64_t size = 0;
      if (wt == 0) {
        if (!varint()) return from;
      } else if (wt == 1 || wt == 5) {
        size = wt == 1 ? 8 : 4;
      } else {
        if (!varint()) return from;
        size = v;
        if (size >= (std::uint64_t{1} << 48))
          throw Error("byte " + std::to_string(from), "length " + std::to_string(size) + " is too large");
      }
      if (size > b.size() - p) return from;
      from = p + static_cast<std::size_t>(size);
    }
  }

 private:
  void read_stream(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path.string(), "cannot open");
    std::vector<std::byte> buf;
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
      const auto* b = reinterpret_cast<const std::byte*>(chunk);
      buf.insert(buf.end(), b, b + in.gcount());
    }
    adopt(buf);
  }
  void adopt(const std::vector<std::byte>& buf) {
    size_ = buf.size();
    owned_ = std::make_unique_for_overwrite<std::byte[]>(size_ ? size_ : 1);
    if (size_) std::memcpy(owned_.get(), buf.data(), size_);
    data_ = owned_.get();
  }

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::unique_ptr<std::byte[]> owned_;
};

/// A file's bytes for decoding and the owner keeping them alive (the keeper of zero-copy
/// tensor payloads).
struct FileBytes {
  std::shared_ptr<const void> owner;
  std::span<const std::byte> bytes;
};

/// Reads a model file for decoding with as few system calls as possible: a small file (most
/// models without weights) is open, read, read again to see its end, closed, and copied into one
/// allocation that also holds its reference count; bigger files are mapped (see MappedFile).
[[nodiscard]] inline FileBytes read_file_bytes(const std::filesystem::path& path) {
#ifdef OXIR_HAVE_MMAP
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path.string(), std::string("cannot open: ") + std::strerror(errno));
  constexpr std::size_t first_bytes = 16384;
  std::byte first[first_bytes];
  std::size_t n = 0;
  for (;;) {
    const auto got = ::read(fd, first + n, first_bytes - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      throw Error(path.string(), std::string("cannot read: ") + std::strerror(err));
    }
    if (got == 0) {  // the end: the whole file is in `first`
      ::close(fd);
      auto bytes = std::make_shared_for_overwrite<std::byte[]>(n ? n : 1);
      if (n) std::memcpy(bytes.get(), first, n);
      const std::span<const std::byte> view(bytes.get(), n);
      return {std::move(bytes), view};
    }
    n += static_cast<std::size_t>(got);
    if (n == first_bytes) break;  // a bigger file
  }
  auto map = std::make_shared<MappedFile>(fd, path, std::span<const std::byte>(first, n));
  const auto view = map->bytes();
  return {std::move(map), view};
#else
  auto map = std::make_shared<MappedFile>(path);
  const auto view = map->bytes();
  return {std::move(map), view};
#endif
}

}  // namespace oxir::io
