#include "tools/write_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace shapelint::cli {
namespace {

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

absl::Status CannotWrite(const std::string& path, int error) {
  return absl::UnavailableError(absl::StrCat("cannot write '", path, "': ", std::strerror(error)));
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& requested, const std::string& text) {
  std::string path = requested;
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    const int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return CannotWrite(path, errno);
    const bool ok = WriteAll(fd, text);
    const int saved = errno;
    close(fd);
    return ok ? absl::OkStatus() : CannotWrite(path, saved);
  }
  if (exists) {
    std::error_code ec;
    std::filesystem::path target = std::filesystem::canonical(path, ec);
    if (!ec) path = target.string();
  }
  mode_t mode = 0;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) return CannotWrite(path, errno);
  const bool ok = fchmod(fd, mode) == 0 && WriteAll(fd, text) && fsync(fd) == 0;
  const int saved = errno;
  close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = ok ? errno : saved;
    std::remove(temp.c_str());
    return CannotWrite(path, error);
  }
  return absl::OkStatus();
}

}  // namespace shapelint::cli
