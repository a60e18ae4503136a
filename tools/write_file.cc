#include "tools/write_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"

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

bool SameFile(const struct stat& a, const std::string& path) {
  struct stat b {};
  return stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// `path` with the symbolic links at its end followed, also to a target that does not exist
// yet; nullopt for a loop of links.
std::optional<std::string> FollowLinks(std::string path) {
  constexpr int kMaxLinks = 40;  // as the kernel's ELOOP
  for (int links = 0; links < kMaxLinks; ++links) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec)) return path;
    std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (ec) return path;
    path = (std::filesystem::path(path).parent_path() / target).string();
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> OverwritesInput(const std::string& output,
                                           const std::vector<std::string>& models) {
  struct stat out {};
  // A file that does not exist is none of the inputs; a device (/dev/null) is never replaced.
  if (stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return std::nullopt;
  for (const std::string& model : models) {
    if (model == "-") continue;
    if (SameFile(out, model)) {
      return absl::StrCat("refusing to write '", output, "': it is the model '", model, "'");
    }
    for (const std::string& weights : ir::ExternalDataFiles(model)) {
      if (SameFile(out, weights)) {
        return absl::StrCat("refusing to write '", output, "': it holds the weights of '", model,
                            "' (external data '", weights, "')");
      }
    }
  }
  return std::nullopt;
}

absl::Status WriteFileAtomically(const std::string& requested, const std::string& text) {
  std::optional<std::string> followed = FollowLinks(requested);
  if (!followed) return CannotWrite(requested, ELOOP);
  std::string path = *std::move(followed);
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
  // Renaming over a read-only file would replace it; root may write it, but is refused too.
  if (exists && (access(path.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0)) {
    return CannotWrite(requested, EACCES);
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
