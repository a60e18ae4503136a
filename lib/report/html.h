// The parts of the HTML page (report::WriteHtml) that its two files share: text from the model
// made safe for markup, and the drawing of a finding's path.
#ifndef SHAPELINT_LIB_REPORT_HTML_H_
#define SHAPELINT_LIB_REPORT_HTML_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shapelint/lint/finding.h"
#include "shapelint/lint/finding_path.h"

namespace shapelint::report {

// `text` for an HTML element or a quoted attribute, SVG's included. Names and messages come
// from the model: invalid UTF-8 becomes U+FFFD as in every JSON document (AsWrittenInJson),
// the markup characters become references, and what HTML does not allow in a document (control
// characters but tab and line breaks, noncharacters) is shown escaped as the text report shows
// control characters ("\x1b", "\u0085"). A model cannot add markup to the page, nor make it
// invalid.
std::string Html(std::string_view text);

// "[2, 3, 9, 6]", with "?" for an unknown dim; "?" for an unknown rank.
std::string SizesText(const std::optional<lint::SizesAt>& sizes);

// The figure of `finding`'s path: an inline SVG drawing of its nodes, top to bottom, with the
// tensors on the edges at the export size and at the counterexample, then a table of the same
// tensors with their symbolic types (which the drawing cuts). Empty when the path has no node.
std::string PathFigure(const lint::Finding& finding, const lint::FindingPath& path);

}  // namespace shapelint::report

#endif  // SHAPELINT_LIB_REPORT_HTML_H_
