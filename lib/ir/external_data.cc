// Where a model's initializers keep their data, read from the wire format without parsing the
// model: the graph's other fields, and every payload, are stepped over.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ir/file_bytes.h"
#include "ir/metadata.h"
#include "ir/wire.h"
#include "ir/wire_fields.h"
#include "shapelint/ir/load.h"

namespace shapelint::ir {
namespace {

// Calls `f` with the content of each length-delimited field `number` of `message`.
template <typename F>
void ForEachMessage(std::string_view message, uint64_t number, F&& f) {
  wire::FieldReader fields(message);
  wire::Field field;
  while (fields.Next(field)) {
    if (field.number == number && field.wire_type == wire::kLengthDelimited) f(field.content);
  }
}

// The value of the entry whose key is "location"; empty when there is none.
std::string_view Location(std::string_view entry) {
  MetadataEntry e;
  ReadStringEntry(entry, e);
  return e.first == "location" ? e.second : std::string_view();
}

}  // namespace

std::vector<std::string> ExternalDataFiles(const std::string& path) {
  std::vector<std::string> files;
  if (path == "-") return files;
  absl::StatusOr<FileBytes> file = FileBytes::Open(path);
  if (!file.ok()) return files;
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  // Several graph fields merge into one graph when protobuf parses them: all are read.
  ForEachMessage(file->bytes(), wire::kModelGraph, [&](std::string_view graph) {
    ForEachMessage(graph, wire::kGraphInitializer, [&](std::string_view tensor) {
      ForEachMessage(tensor, wire::kTensorExternalData, [&](std::string_view entry) {
        const std::string_view location = Location(entry);
        if (location.empty()) return;
        std::string resolved = (directory / std::string(location)).string();
        for (const std::string& known : files) {
          if (known == resolved) return;
        }
        files.push_back(std::move(resolved));
      });
    });
  });
  return files;
}

}  // namespace shapelint::ir
