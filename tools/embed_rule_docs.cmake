# Writes OUT, a C++ source holding every docs/rules/<CODE>.md under DOCS_DIR as a string (and the
# POLICY page as "severity"), so that `onnx-shapelint --explain CODE` prints the same page as the
# repository shows, from an installed binary too. Run by the build (cmake -P) whenever a page changes.
file(GLOB pages "${DOCS_DIR}/*.md")
list(SORT pages)
# The severity policy (docs/severity.md), which every rule's page refers to: `--explain severity`.
if(DEFINED POLICY)
  list(APPEND pages "${POLICY}")
endif()
set(body "")
foreach(page IN LISTS pages)
  get_filename_component(code "${page}" NAME_WE)
  file(READ "${page}" text)
  string(FIND "${text}" ")shapelint_doc\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${page} contains the raw-string delimiter")
  endif()
  string(APPEND body "    {\"${code}\", R\"shapelint_doc(${text})shapelint_doc\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from docs/rules/*.md and docs/severity.md by tools/embed_rule_docs.cmake. Do not edit.
#include \"tools/rule_docs.h\"

namespace shapelint::cli {

std::optional<std::string_view> RuleDoc(std::string_view code) {
  struct Page {
    std::string_view code, text;
  };
  static constexpr Page kPages[] = {
${body}  };
  for (const Page& page : kPages) {
    if (page.code == code) return page.text;
  }
  return std::nullopt;
}

}  // namespace shapelint::cli
")
# Only touch OUT when it changes, so that an unrelated doc edit does not rebuild the CLI.
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
