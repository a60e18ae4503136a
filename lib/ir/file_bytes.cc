#include "ir/file_bytes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace shapelint::ir {
namespace {

// The mappings the SIGBUS handler may repair. `taken` claims a slot for a mapping; the handler
// ignores a slot while its `begin` is 0. It only reads the table and stores `hit`: everything it
// touches is a lock-free atomic.
struct GuardSlot {
  std::atomic<bool> taken{false};
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> hit{false};
};
// Files mapped at once: one per model being loaded, so one per worker thread. A mapping that
// finds no free slot is read unguarded, as before there was a guard.
constexpr int kGuardSlots = 64;
GuardSlot guard_slots[kGuardSlots];
// Both set once, before the handler is installed; sysconf may not be called in a handler.
size_t page_size = 0;
struct sigaction previous_sigbus;

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  if (info->si_code == BUS_ADRERR) {
    for (GuardSlot& slot : guard_slots) {
      const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
      if (begin == 0 || address < begin || address >= slot.end.load(std::memory_order_acquire)) {
        continue;
      }
      // The page is past the file's new end. Zeros in its place let the read go on; the loader
      // sees `hit` and reports the file instead of what it read.
      // The faulting address as an integer, rounded down to its page: mmap needs it back as a
      // pointer.
      void* page =
          reinterpret_cast<void*>(address & ~(page_size - 1));  // NOLINT(performance-no-int-to-ptr)
      if (::mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
          MAP_FAILED) {
        slot.hit.store(true, std::memory_order_relaxed);
        return;
      }
    }
  }
  // Not ours: what would have happened without this handler.
  if (previous_sigbus.sa_flags & SA_SIGINFO) {
    previous_sigbus.sa_sigaction(sig, info, context);
  } else if (previous_sigbus.sa_handler != SIG_DFL && previous_sigbus.sa_handler != SIG_IGN) {
    previous_sigbus.sa_handler(sig);
  } else {
    // The default action, once this handler returns (a fault would otherwise repeat forever).
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

void InstallSigbusHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = OnSigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous_sigbus);
  });
}

// A slot guarding [data, data + size), or -1 when all are taken.
int GuardMapping(const void* data, size_t size) {
  InstallSigbusHandler();
  for (int i = 0; i < kGuardSlots; ++i) {
    GuardSlot& slot = guard_slots[i];
    bool expected = false;
    if (!slot.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) continue;
    slot.hit.store(false, std::memory_order_relaxed);
    const auto begin = reinterpret_cast<uintptr_t>(data);
    slot.end.store(begin + size, std::memory_order_relaxed);
    slot.begin.store(begin, std::memory_order_release);
    return i;
  }
  return -1;
}

// Frees the slot; whether the handler repaired a page of its mapping.
bool Unguard(int index) {
  GuardSlot& slot = guard_slots[index];
  slot.begin.store(0, std::memory_order_release);
  const bool hit = slot.hit.load(std::memory_order_relaxed);
  slot.taken.store(false, std::memory_order_release);
  return hit;
}

absl::Status OpenError(const std::string& path, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", message));
}

absl::Status TooLarge(const std::string& path, size_t max_bytes) {
  return OpenError(path, absl::StrCat("more than ", max_bytes,
                                      " bytes, larger than an ONNX model can be (protobuf's limit "
                                      "is 2 GiB); not read further"));
}

}  // namespace

// Smaller files are read, not mapped. Unmapping in a process with other threads makes the kernel
// flush the other cores' TLBs: with a thread per core linting small models, that cost more than
// the models (docs/performance.md). A read copies the bytes, which is nothing at this size.
constexpr off_t kMapFrom = 256 * 1024;

absl::StatusOr<FileBytes> FileBytes::Open(const std::string& path, size_t max_bytes) {
  FileBytes f;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(path, absl::StrCat("cannot open: ", std::strerror(errno)));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular && static_cast<uintmax_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return TooLarge(path, max_bytes);
  }
  if (regular && st.st_size >= kMapFrom) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      f.mapped_ = p;
      f.size_ = static_cast<size_t>(st.st_size);
      f.guard_ = GuardMapping(p, f.size_);
      ::close(fd);
      return f;
    }
  }
  // Small files, pipes, devices and file systems without mmap: read it all.
  if (regular && st.st_size > 0) f.buffer_.reserve(static_cast<size_t>(st.st_size));
  absl::Status read = f.ReadAll(fd, path, max_bytes);
  ::close(fd);
  if (!read.ok()) return read;
  return f;
}

absl::StatusOr<FileBytes> FileBytes::ReadStandardInput(size_t max_bytes) {
  FileBytes f;
  // Through std::cin's buffer, which a caller may have pointed elsewhere.
  std::streambuf* in = std::cin.rdbuf();
  char buffer[1 << 16];
  for (;;) {
    const std::streamsize n = in == nullptr ? 0 : in->sgetn(buffer, sizeof(buffer));
    if (n <= 0) return f;
    if (static_cast<size_t>(n) > max_bytes - f.buffer_.size())
      return TooLarge("<stdin>", max_bytes);
    f.buffer_.append(buffer, static_cast<size_t>(n));
  }
}

absl::Status FileBytes::ReadAll(int fd, const std::string& path, size_t max_bytes) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) return absl::OkStatus();
    if (n < 0) {
      if (errno == EINTR) continue;
      return OpenError(path, absl::StrCat("read error: ", std::strerror(errno)));
    }
    // A device or a pipe has no size to check up front: it is checked as it comes.
    if (static_cast<size_t>(n) > max_bytes - buffer_.size()) {
      std::string().swap(buffer_);
      return TooLarge(path, max_bytes);
    }
    buffer_.append(buffer, static_cast<size_t>(n));
  }
}

FileBytes::FileBytes(FileBytes&& other) noexcept
    : mapped_(std::exchange(other.mapped_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      dropped_(std::exchange(other.dropped_, 0)),
      guard_(std::exchange(other.guard_, -1)),
      truncated_(other.truncated_),
      buffer_(std::move(other.buffer_)) {}

void FileBytes::Release() {
  if (mapped_ != nullptr) {
    // The slot goes only after the pages: until then a read may still fault.
    ::munmap(mapped_, size_);
    if (guard_ >= 0) truncated_ = Unguard(guard_) || truncated_;
  }
  mapped_ = nullptr;
  size_ = 0;
  guard_ = -1;
  std::string().swap(buffer_);
}

std::string_view FileBytes::bytes() const {
  if (mapped_ != nullptr) return {static_cast<const char*>(mapped_), size_};
  return buffer_;
}

bool FileBytes::truncated() const {
  return truncated_ || (guard_ >= 0 && guard_slots[guard_].hit.load(std::memory_order_relaxed));
}

void FileBytes::DropPagesBefore(size_t offset) {
  if (mapped_ == nullptr) return;  // else Open installed the handler, which set page_size
  const size_t end = std::min(offset, size_) / page_size * page_size;
  const size_t begin = dropped_ <= end ? dropped_ : 0;
  if (end > begin) ::madvise(static_cast<char*>(mapped_) + begin, end - begin, MADV_DONTNEED);
  dropped_ = end;
}

}  // namespace shapelint::ir
