#include "html_page.hpp"

#include "support/internal_error.hpp"

namespace eqsat::tools {

namespace {
// Where the template wants the data; it occurs there exactly once.
constexpr std::string_view kDataMark = "/*EQSAT_PAGE_DATA*/";
}  // namespace

std::string html_page(const nlohmann::json& data) {
  const std::string_view page = html_page_template();
  const std::size_t at = page.find(kDataMark);
  EQSAT_ASSERT(at != std::string_view::npos &&
               page.find(kDataMark, at + 1) == std::string_view::npos)
      << "tools/html_page.html: the data mark must occur exactly once";
  std::string json;
  for (char c : data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) {
    switch (c) {
      case '<':
        json += "\\u003c";
        break;
      case '>':
        json += "\\u003e";
        break;
      case '&':
        json += "\\u0026";
        break;
      default:
        json += c;
    }
  }
  std::string out(page.substr(0, at));
  out += json;
  out += page.substr(at + kDataMark.size());
  return out;
}

}  // namespace eqsat::tools
