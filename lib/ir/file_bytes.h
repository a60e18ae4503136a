// A model file's bytes: mapped into memory when it is a regular file of 256 KiB or more (pages
// are read from disk only when touched, and skimming leaves the weights untouched), read into a
// buffer otherwise.
//
// A mapped file that another process truncates while it is read (an exporter rewriting the
// model, `git checkout`) would end the process with SIGBUS at the first page past its new end.
// While a mapping is open, a SIGBUS handler replaces such a page with zeros and marks the
// mapping, so the read goes on and the loader reports the file as changed instead. SIGBUS
// anywhere else goes to whatever handled it before (the default: the process ends).
#ifndef SHAPELINT_LIB_IR_FILE_BYTES_H_
#define SHAPELINT_LIB_IR_FILE_BYTES_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "shapelint/ir/load.h"
#include "shapelint/ir/model.h"

namespace shapelint::ir {

// The most bytes a model can have: protobuf parses no message of 2 GiB or more. Reading stops
// past it, so that a file that never ends (/dev/zero, a pipe from `yes`) is refused instead of
// filling the memory.
inline constexpr size_t kMaxModelBytes = (size_t{1} << 31) - 1;

class FileBytes {
 public:
  // The file at `path`; errors name it. Past `max_bytes` (a parameter for tests) the file is
  // refused, whatever it is.
  static absl::StatusOr<FileBytes> Open(const std::string& path, size_t max_bytes = kMaxModelBytes);
  // Standard input, read to its end; errors name it "<stdin>".
  static absl::StatusOr<FileBytes> ReadStandardInput(size_t max_bytes = kMaxModelBytes);

  FileBytes(FileBytes&& other) noexcept;
  FileBytes& operator=(FileBytes&&) = delete;
  ~FileBytes() { Release(); }

  // Unmaps or frees the bytes; bytes() is empty afterwards, truncated() stays.
  void Release();

  std::string_view bytes() const;
  // Whether the bytes are a mapping of the file (files of 256 KiB or more) rather than a copy.
  bool mapped() const { return mapped_ != nullptr; }

  // Whether a read found the file shorter than when it was opened: the bytes read there were
  // zeros, not the file's. Checked by the loader after everything it read.
  bool truncated() const;

  // Unmaps the pages wholly before `offset` from the process, keeping the mapping: a read there
  // maps them again from the page cache (the mapping is private and never written, so they
  // hold the file's bytes). Each call drops what was read since the last one; an offset below
  // the last starts over from the file's start (a new pass). A buffer is left as it is.
  void DropPagesBefore(size_t offset);

 private:
  FileBytes() = default;
  // Reads `fd` to its end into buffer_, at most `max_bytes`.
  absl::Status ReadAll(int fd, const std::string& path, size_t max_bytes);

  void* mapped_ = nullptr;
  size_t size_ = 0;
  size_t dropped_ = 0;  // DropPagesBefore's last offset
  int guard_ = -1;      // the mapping's slot in the SIGBUS handler's table, if it got one
  bool truncated_ = false;
  std::string buffer_;
};

// LoadModel (load.h) once the file is open; reports a file truncated while it was read.
// Apart so that tests can change the file in between.
absl::StatusOr<std::unique_ptr<Model>> LoadOpenedFile(FileBytes& file, const std::string& path,
                                                      ModelFormat format);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_FILE_BYTES_H_
