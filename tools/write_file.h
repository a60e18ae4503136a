// Writing a report or a baseline to a file so that readers never see a part of it.
#ifndef SHAPELINT_TOOLS_WRITE_FILE_H_
#define SHAPELINT_TOOLS_WRITE_FILE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace shapelint::cli {

// Writes `text` to `path` through a temporary file in the same directory and a rename, so
// that readers see the old file or the whole new one, never a part. A path that is not a
// regular file (/dev/null, a pipe, a terminal) is written to as it is: renaming over it would
// replace the device with a file. A symbolic link is followed, and the new file keeps the
// permissions of the one it replaces (a new one gets the umask's).
// A symbolic link whose target does not exist yet is followed too: the target is created. A
// regular file without write permission is not replaced (an error, as writing to it would be).
absl::Status WriteFileAtomically(const std::string& path, const std::string& text);

// Why `output` must not be written by a run that reads `models`: it is one of them, or a file
// that one keeps its weights in (external data), as the same file by device and inode, so
// through symbolic and hard links. nullopt when it is none of them (or does not exist yet).
// The tool never writes to a model (docs/limits.md).
std::optional<std::string> OverwritesInput(const std::string& output,
                                           const std::vector<std::string>& models);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_WRITE_FILE_H_
