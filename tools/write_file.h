// Writing a report or a baseline to a file so that readers never see a part of it.
#ifndef SHAPELINT_TOOLS_WRITE_FILE_H_
#define SHAPELINT_TOOLS_WRITE_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace shapelint::cli {

// Writes `text` to `path` through a temporary file in the same directory and a rename, so
// that readers see the old file or the whole new one, never a part. A path that is not a
// regular file (/dev/null, a pipe, a terminal) is written to as it is: renaming over it would
// replace the device with a file. A symbolic link is followed, and the new file keeps the
// permissions of the one it replaces (a new one gets the umask's).
absl::Status WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_WRITE_FILE_H_
