#include "input_value.hpp"

#include "ops/diagnostic.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace eqsat::tools {

namespace {

// Deeper nesting is refused before it can exhaust the stack.
constexpr int kMaxDepth = 32;

// A recursive-descent reader of one bracketed value: the shape and the
// numbers in row-major order. The first element at each depth fixes the
// shape; every other list must agree with it.
class ValueReader {
 public:
  ValueReader(std::string_view name, std::string_view text) : name_(name), text_(text) {}

  void read() {
    const Node root = read_node();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the value");
    for (const Node* n = &root; n->list; n = &n->items.front()) {
      shape_.push_back(static_cast<std::int64_t>(n->items.size()));
      if (n->items.empty()) break;
    }
    collect(root, 0);
  }
  const ops::Dims& shape() const { return shape_; }
  const std::vector<double>& numbers() const { return numbers_; }

  // A malformed value: `why`, quoting the text.
  [[noreturn]] void fail(const std::string& why) const {
    fail_plain(fmt::format("{} in {}", why, ops::capped_quote(text_)));
  }
  [[noreturn]] void fail_plain(const std::string& message) const {
    throw ops::DiagnosticError(
        ops::SourceLocation{fmt::format("--input {}", ops::capped_quote(name_)), 0, 0}, message);
  }

 private:
  struct Node {
    bool list = false;
    double number = 0;
    std::vector<Node> items;
  };

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  Node read_node() {
    if (++depth_ > kMaxDepth) fail("lists nested too deep");
    Node n;
    if (take('[')) {
      n.list = true;
      if (!take(']')) {
        do n.items.push_back(read_node());
        while (take(','));
        if (!take(']')) fail(fmt::format("expected ',' or ']' at character {}", pos_ + 1));
      }
    } else {
      n.number = read_number();
    }
    --depth_;
    return n;
  }

  double read_number() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ']' &&
           !std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    const std::string_view word = text_.substr(start, pos_ - start);
    if (word == "true") return 1;
    if (word == "false") return 0;
    const std::string_view digits = word.starts_with('+') ? word.substr(1) : word;
    double v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      fail(fmt::format("expected a number at character {}, got {}", start + 1,
                       ops::capped_quote(word)));
    return v;
  }

  // Appends the numbers under `n` (at `depth`), checking it has the shape.
  void collect(const Node& n, std::size_t depth) {
    if (depth == shape_.size()) {
      if (n.list) fail("lists nested unevenly");
      numbers_.push_back(n.number);
      return;
    }
    if (!n.list) fail("lists nested unevenly");
    if (static_cast<std::int64_t>(n.items.size()) != shape_[depth])
      fail(fmt::format("a list of {} elements where the first at its depth has {}", n.items.size(),
                       shape_[depth]));
    for (const Node& item : n.items) collect(item, depth + 1);
  }

  std::string_view name_, text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  ops::Dims shape_;
  std::vector<double> numbers_;
};

// Whether `v` is a value of `dtype` with nothing lost by the conversion.
bool fits(double v, ops::DType dtype) {
  switch (dtype) {
    case ops::DType::Bool:
      return v == 0 || v == 1;
    case ops::DType::I32:
      return v == std::trunc(v) && v >= -0x1p31 && v < 0x1p31;
    case ops::DType::I64:
      return v == std::trunc(v) && v >= -0x1p63 && v < 0x1p63;
    case ops::DType::F32:
      return !std::isfinite(v) || std::fabs(v) <= std::numeric_limits<float>::max();
    case ops::DType::F64:
      return true;
  }
  return false;
}

}  // namespace

bool looks_like_value(std::string_view text) {
  if (text.empty()) return false;
  const char c = text[0];
  const auto digit = [](char d) { return std::isdigit(static_cast<unsigned char>(d)) != 0; };
  if (c == '[' || c == '-' || c == '+' || digit(c)) return true;
  if (c == '.') return text.size() > 1 && digit(text[1]);
  return text == "inf" || text == "nan" || text == "true" || text == "false";
}

ops::Array parse_input_value(std::string_view name, std::string_view text, ops::DType dtype) {
  ValueReader reader(name, text);
  reader.read();
  ops::Array a(dtype, reader.shape());
  const std::vector<double>& numbers = reader.numbers();
  ops::visit_dtype(dtype, [&]<class T>(std::type_identity<T>) {
    T* p = a.data<T>();
    for (std::size_t i = 0; i < numbers.size(); ++i) {
      if (!fits(numbers[i], dtype))
        reader.fail_plain(
            reader.shape().empty()
                ? fmt::format("{} is not a value of {}", numbers[i], ops::dtype_name(dtype))
                : fmt::format("element {} ({}) is not a value of {}", i, numbers[i],
                              ops::dtype_name(dtype)));
      p[i] = static_cast<T>(numbers[i]);
    }
  });
  return a;
}

}  // namespace eqsat::tools
