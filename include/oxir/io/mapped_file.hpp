#pragma once
// Read-only memory mapping of a file (POSIX mmap; elsewhere the file is read into memory).

#include <cerrno>
#include <cstddef>
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
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      throw Error(path.string(), std::string("cannot stat: ") + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      read_stream(path);
      return;
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0 && size_ < small_file_bytes) {
      // Small files: one read() beats setting up and tearing down a mapping.
      owned_.resize(size_);
      std::size_t done = 0;
      while (done < size_) {
        const auto n = ::pread(fd, owned_.data() + done, size_ - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          const int err = errno;
          ::close(fd);
          throw Error(path.string(), std::string("cannot read: ") + (n == 0 ? "file shrank" : std::strerror(err)));
        }
        done += static_cast<std::size_t>(n);
      }
      data_ = owned_.data();
    } else if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        throw Error(path.string(), std::string("cannot map: ") + std::strerror(err));
      }
      data_ = static_cast<const std::byte*>(p);
      mapped_ = true;
    }
    ::close(fd);
#else
    read_stream(path);
#endif
  }
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
  void read_stream(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path.string(), "cannot open");
    std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    owned_.resize(buf.size());
    if (!buf.empty()) std::memcpy(owned_.data(), buf.data(), buf.size());
    data_ = owned_.data();
    size_ = owned_.size();
  }

  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::vector<std::byte> owned_;
};

}  // namespace oxir::io
