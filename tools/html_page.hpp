// The page `eqsat html` writes: tools/html_page.html (HTML, CSS and script
// in one file, compiled in by tools/CMakeLists.txt) with the page's data
// (tools/html_data.hpp) put in the place the template marks.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace eqsat::tools {

// tools/html_page.html as it was at build time (generated source).
std::string_view html_page_template();

// The template with `data` embedded as JSON in its data script element.
// `<`, `>` and `&` are written as \u escapes, so no string in the data can
// end the script element early.
std::string html_page(const nlohmann::json& data);

}  // namespace eqsat::tools
