#include "report/json_dump.h"

namespace shapelint::report {

std::string DumpJson(const Json& doc, int indent) {
  return doc.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::string AsWrittenInJson(std::string_view text) {
  // Through DumpJson and back, so that the replacement is DumpJson's own, byte for byte.
  const Json written = Json::parse(DumpJson(Json(std::string(text)), kJsonOneLine),
                                   /*cb=*/nullptr, /*allow_exceptions=*/false);
  return written.is_string() ? written.get<std::string>() : std::string();
}

}  // namespace shapelint::report
