// Every JSON document the tool writes goes through DumpJson: the reports (json, sarif,
// statistics, shapes, probe), baselines, and through the JSON report the Python module's
// findings. One layout, and one policy for text that is not UTF-8.
#ifndef SHAPELINT_LIB_REPORT_JSON_DUMP_H_
#define SHAPELINT_LIB_REPORT_JSON_DUMP_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace shapelint::report {

// Keys in insertion order: documents read in their documented order, and diffs between runs
// stay small.
using Json = nlohmann::ordered_json;

// Spaces per level of a pretty-printed document.
inline constexpr int kJsonIndent = 2;
// DumpJson's indent for a document on one line.
inline constexpr int kJsonOneLine = -1;

// `doc` as text. Names, paths and messages come from the model, where they are bytes that need
// not be UTF-8: each invalid sequence is written as U+FFFD, so that the document is valid JSON
// and writing it never fails (nlohmann::json's default would throw). Other characters are
// written as they are (no \u escapes for non-ASCII).
std::string DumpJson(const Json& doc, int indent = kJsonIndent);

// `text` as DumpJson writes it: invalid UTF-8 replaced by U+FFFD. For what must compare equal
// to a string read back from a document it wrote (the entries of a baseline).
std::string AsWrittenInJson(std::string_view text);

}  // namespace shapelint::report

#endif  // SHAPELINT_LIB_REPORT_JSON_DUMP_H_
