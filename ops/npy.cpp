#include "npy.hpp"

#include "diagnostic.hpp"
#include "output_file.hpp"
#include "source_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace eqsat::ops {

namespace {

static_assert(std::endian::native == std::endian::little, "npy I/O assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw DiagnosticError(SourceLocation{path, 0, 0}, message);
}

std::string_view descr_of(DType d) {
  switch (d) {
    case DType::Bool:
      return "|b1";
    case DType::I32:
      return "<i4";
    case DType::I64:
      return "<i8";
    case DType::F32:
      return "<f4";
    case DType::F64:
      break;
  }
  return "<f8";
}

std::optional<DType> dtype_of_descr(std::string_view descr) {
  for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
    const std::string_view ours = descr_of(d);
    // A one-byte type may carry any byte-order mark.
    if (descr == ours || (d == DType::Bool && (descr == "<b1" || descr == ">b1" || descr == "b1")))
      return d;
  }
  return std::nullopt;
}

// A cursor over the header dictionary, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  TensorType parse() {
    std::optional<DType> dtype;
    std::optional<bool> fortran;
    std::optional<Dims> shape;
    expect('{');
    while (!peek('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        const std::string descr = quoted();
        dtype = dtype_of_descr(descr);
        if (!dtype) fail(path_, fmt::format("unsupported .npy dtype '{}'", descr));
      } else if (key == "fortran_order") {
        fortran = word() == "True";
      } else if (key == "shape") {
        shape = tuple();
      } else {
        fail(path_, fmt::format("unknown key '{}' in .npy header", key));
      }
      if (!peek('}')) expect(',');
    }
    if (!dtype || !fortran || !shape) fail(path_, "incomplete .npy header");
    if (*fortran) fail(path_, "Fortran-ordered .npy files are not supported; save in C order");
    const TensorType type{*dtype, *shape};
    if (!checked_num_bytes(type))
      fail(path_,
           fmt::format(".npy shape {} is too large: its size in bytes does not fit in 64 bits",
                       to_string(type)));
    return type;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(char c) {
    skip();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(path_, fmt::format("malformed .npy header: expected '{}'", c));
    ++pos_;
  }
  std::string quoted() {
    skip();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      fail(path_, "malformed .npy header: expected a quoted string");
    const char q = s_[pos_++];
    const std::size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) fail(path_, "malformed .npy header: unterminated string");
    std::string out(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  std::string word() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  Dims tuple() {
    Dims dims;
    expect('(');
    while (!peek(')')) {
      const std::string n = word();
      std::int64_t d = 0;
      const auto [end, error] = std::from_chars(n.data(), n.data() + n.size(), d);
      if (n.empty() || !std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(c); }))
        fail(path_, "malformed .npy header: bad shape");
      if (error == std::errc::result_out_of_range || end != n.data() + n.size())
        fail(path_, fmt::format(".npy shape dimension {} does not fit in 64 bits", n));
      dims.push_back(d);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return dims;
  }

  std::string_view s_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

// Opens `path` and reads its header; leaves the stream at the data.
TensorType read_header(std::ifstream& in, const std::string& path) {
  // A directory opens as a stream on Linux; say what it is, not "bad magic".
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) fail(path, cannot_read_message(path));
  char magic[8];
  if (!in.read(magic, 8) || std::string_view(magic, 6) != kMagic)
    fail(path, "not a .npy file (bad magic string)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) fail(path, "truncated .npy header");
    header_len = b[0] | b[1] << 8;
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) fail(path, "truncated .npy header");
    header_len = b[0] | b[1] << 8 | b[2] << 16 | static_cast<std::uint32_t>(b[3]) << 24;
  } else {
    fail(path, fmt::format("unsupported .npy format version {}", major));
  }
  if (header_len > (1u << 24)) fail(path, "malformed .npy header: too long");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) fail(path, "truncated .npy header");
  return HeaderParser(header, path).parse();
}

}  // namespace

TensorType read_npy_type(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  return read_header(in, path);
}

Array read_npy(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  const TensorType type = read_header(in, path);
  // Compare with what the file holds before allocating: a header may
  // declare far more data than the file (or the machine) has.
  const std::int64_t declared = *checked_num_bytes(type);
  const auto data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const std::int64_t available = in.tellg() - data_start;
  in.seekg(data_start);
  if (!in || available < declared)
    fail(path, fmt::format("truncated .npy data: the header declares {} bytes, the file holds {}",
                           declared, std::max<std::int64_t>(available, 0)));
  Array a(type.dtype, type.dims);
  if (a.nbytes() > 0 && !in.read(reinterpret_cast<char*>(a.bytes()), a.nbytes()))
    fail(path, fmt::format("truncated .npy data: expected {} bytes", a.nbytes()));
  if (type.dtype == DType::Bool)
    for (auto& b : a.span<bool>()) b = reinterpret_cast<unsigned char&>(b) != 0;
  return a;
}

void write_npy(const std::string& path, const Array& a) {
  std::string shape;
  for (int i = 0; i < a.rank(); ++i) shape += fmt::format("{}{}", i ? ", " : "", a.shape()[i]);
  if (a.rank() == 1) shape += ",";  // NumPy writes (3,) for one dimension
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                 descr_of(a.dtype()), shape);
  // Pad with spaces and a newline so the data starts on a 64-byte boundary.
  const bool v2 = dict.size() + 11 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ').push_back('\n');
  std::string header(kMagic);
  header.push_back(static_cast<char>(v2 ? 2 : 1));
  header.push_back(0);
  const std::uint32_t len = static_cast<std::uint32_t>(dict.size());
  header.push_back(static_cast<char>(len & 0xff));
  header.push_back(static_cast<char>(len >> 8 & 0xff));
  if (v2) {
    header.push_back(static_cast<char>(len >> 16 & 0xff));
    header.push_back(static_cast<char>(len >> 24));
  }
  header += dict;
  const std::string_view data(reinterpret_cast<const char*>(a.bytes()), a.nbytes());
  write_file_atomically(path, {header, data});
}

}  // namespace eqsat::ops
