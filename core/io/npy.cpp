#include "io/npy.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>

#include "io/case_file.h"

namespace accucheck {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxHeaderLength = std::size_t{1} << 20;

struct DtypeInfo {
  NpyDtype dtype;
  std::string_view descr;
  std::size_t size;
};
constexpr DtypeInfo kDtypes[] = {
    {NpyDtype::f64, "<f8", 8}, {NpyDtype::f32, "<f4", 4}, {NpyDtype::f16, "<f2", 2}, {NpyDtype::u16, "<u2", 2},
    {NpyDtype::i32, "<i4", 4}, {NpyDtype::i64, "<i8", 8}, {NpyDtype::u8, "|u1", 1},  // numpy's descr for uint8: one
                                                                                     // byte has no byte order
};

[[noreturn]] void fail(const std::string& source, const std::string& what) { throw NpyError(source + ": " + what); }

std::string printable(std::string_view text, std::size_t limit = 40) {
  std::string out;
  for (char c : text.substr(0, limit)) {
    if (c >= 0x20 && c < 0x7f)
      out += c;
    else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

std::string shape_string(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// ---- the header: a Python dict literal ------------------------------------------------------

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
  };

  Header parse(const NpyLimits& limits) {
    Header h;
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    expect('{', "the header must be a Python dict literal starting with '{'");
    skip_space();
    while (!at('}')) {
      const std::string key = string_literal("a quoted key");
      skip_space();
      expect(':', "expected ':' after '" + key + "'");
      skip_space();
      if (key == "descr") {
        if (at('[')) fail(source_, "header: descr is a structured dtype (a list of fields); save a plain array");
        h.descr = string_literal("descr as a quoted dtype string");
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean("fortran_order");
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple("shape", limits);
        have_shape = true;
      } else {
        fail(source_, "header: unknown key '" + printable(key) + "' (a .npy header has descr, fortran_order, shape)");
      }
      skip_space();
      if (at(',')) {
        ++pos_;
        skip_space();
      } else if (!at('}')) {
        error("expected ',' or '}'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the closing '}'");
    if (!have_descr) fail(source_, "header: no 'descr' (dtype)");
    if (!have_order) fail(source_, "header: no 'fortran_order'");
    if (!have_shape) fail(source_, "header: no 'shape'");
    return h;
  }

 private:
  [[noreturn]] void error(const std::string& what) {
    fail(source_, "header: " + what + " at offset " + std::to_string(pos_) + " of '" + printable(text_, 120) + "'");
  }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void expect(char c, const std::string& what) {
    if (!at(c)) error(what);
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  std::string string_literal(const std::string& what) {
    if (!at('\'') && !at('"')) error("expected " + what);
    const char quote = text_[pos_++];
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') error("escapes in strings are not supported");
      ++pos_;
    }
    if (pos_ >= text_.size()) error("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  bool boolean(const std::string& key) {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    error(key + " must be True or False");
  }
  std::vector<std::size_t> tuple(const std::string& key, const NpyLimits& limits) {
    expect('(', key + " must be a tuple of integers");
    std::vector<std::size_t> values;
    skip_space();
    while (!at(')')) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        error(key + " must be a tuple of non-negative integers");
      std::uint64_t v = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        const unsigned digit = static_cast<unsigned>(text_[pos_] - '0');
        if (v > (std::uint64_t{1} << 62) / 10) fail(source_, "header: " + key + ": a dimension is absurdly large");
        v = v * 10 + digit;
        ++pos_;
      }
      if (at('L')) ++pos_;  // Python 2 longs
      if (values.size() >= limits.max_dimensions)
        fail(source_, "header: " + key + " has more than " + std::to_string(limits.max_dimensions) + " dimensions");
      values.push_back(static_cast<std::size_t>(v));
      skip_space();
      if (at(',')) {
        ++pos_;
        skip_space();
      } else if (!at(')')) {
        error("expected ',' or ')' in " + key);
      }
    }
    ++pos_;
    return values;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

struct Layout {
  int version = 1;
  std::size_t data_offset = 0;  // where the data starts
  NpyDtype dtype = NpyDtype::f32;
  std::vector<std::size_t> shape;
  std::uint64_t data_bytes = 0;
};

// The fixed prefix: magic, version, header length. Needs the first 12 bytes (or fewer when
// the file is shorter, which is an error). Returns the header's end offset.
std::size_t parse_prefix(std::span<const unsigned char> bytes, std::uint64_t file_size, const std::string& source,
                         int& version, std::size_t& header_start) {
  if (file_size < 10) fail(source, "too short to be a .npy file (" + std::to_string(file_size) + " bytes)");
  if (std::memcmp(bytes.data(), kMagic, 6) != 0) {
    std::string seen(reinterpret_cast<const char*>(bytes.data()), 6);
    fail(source, "not a .npy file: the magic string is '" + printable(seen) + "', not '\\x93NUMPY'");
  }
  const int major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(source,
         "format version " + std::to_string(major) + "." + std::to_string(minor) + " is not supported (1.0, 2.0, 3.0)");
  version = major;
  std::uint64_t header_length;
  if (major == 1) {
    header_length = bytes[8] | (std::uint64_t{bytes[9]} << 8);
    header_start = 10;
  } else {
    if (file_size < 12) fail(source, "too short to be a version " + std::to_string(major) + ".0 .npy file");
    header_length =
        bytes[8] | (std::uint64_t{bytes[9]} << 8) | (std::uint64_t{bytes[10]} << 16) | (std::uint64_t{bytes[11]} << 24);
    header_start = 12;
  }
  if (header_length > kMaxHeaderLength)
    fail(source, "header: length " + std::to_string(header_length) + " is absurd (at most " +
                     std::to_string(kMaxHeaderLength) + ")");
  if (header_start + header_length > file_size)
    fail(source, "header: length " + std::to_string(header_length) + " runs past the end of the file (" +
                     std::to_string(file_size) + " bytes): truncated");
  return header_start + static_cast<std::size_t>(header_length);
}

Layout parse_layout(std::span<const unsigned char> head, std::uint64_t file_size, const std::string& source,
                    const NpyLimits& limits) {
  Layout layout;
  std::size_t header_start = 0;
  const std::size_t header_end = parse_prefix(head, file_size, source, layout.version, header_start);
  const std::string_view text(reinterpret_cast<const char*>(head.data()) + header_start, header_end - header_start);
  for (unsigned char c : text)
    if (c >= 0x80 && layout.version < 3)
      fail(source, "header: non-ASCII byte in a version " + std::to_string(layout.version) + ".0 header");
  auto header = HeaderParser(text, source).parse(limits);
  const DtypeInfo* info = nullptr;
  for (const auto& d : kDtypes)
    if (d.descr == header.descr) info = &d;
  if (header.descr == "<u1" || header.descr == ">u1") info = &kDtypes[6];  // a byte order on one byte means nothing
  if (!info) {
    const std::string& d = header.descr;
    if (d.size() == 3 && d[0] == '>')
      fail(source, "header: dtype '" + printable(d) + "' is big-endian; save it as little-endian (arr.astype('<" +
                       d.substr(1) + "'))");
    fail(source, "header: dtype '" + printable(d) +
                     "' is not supported (float64 '<f8', float32 '<f4', float16 '<f2', bfloat16 bits as uint16 '<u2', "
                     "FP8 bits as uint8 '|u1', int32 '<i4', int64 '<i8')");
  }
  if (header.fortran_order)
    fail(source,
         "header: fortran_order is True: accucheck reads C-ordered arrays only (save numpy.ascontiguousarray(arr))");
  layout.dtype = info->dtype;
  layout.shape = header.shape;
  // The size, with overflow checks, before anything is allocated.
  std::uint64_t count = 1;
  for (std::size_t dim : layout.shape) {
    if (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / 2 / dim / info->size)
      fail(source, "header: shape " + shape_string(layout.shape) + " is absurdly large");
    count *= dim;
  }
  layout.data_bytes = count * info->size;
  if (layout.data_bytes > limits.max_bytes)
    fail(source, "header: shape " + shape_string(layout.shape) + " of " + std::string(info->descr) + " is " +
                     std::to_string(layout.data_bytes) + " bytes, more than the limit of " +
                     std::to_string(limits.max_bytes));
  layout.data_offset = header_end;
  const std::uint64_t available = file_size - header_end;
  if (available < layout.data_bytes)
    fail(source, "data: truncated: shape " + shape_string(layout.shape) + " of " + std::string(info->descr) +
                     " needs " + std::to_string(layout.data_bytes) + " bytes, the file has " +
                     std::to_string(available) + " after the header");
  if (available > layout.data_bytes)
    fail(source, "data: " + std::to_string(available - layout.data_bytes) +
                     " bytes after the end of the array (shape " + shape_string(layout.shape) + " of " +
                     std::string(info->descr) + " is " + std::to_string(layout.data_bytes) +
                     " bytes): not a single .npy array");
  return layout;
}

NpyArray array_from(const Layout& layout, const std::string& source) {
  NpyArray a;
  a.source = source;
  a.version = layout.version;
  a.dtype = layout.dtype;
  a.shape = layout.shape;
  return a;
}

}  // namespace

std::string_view npy_descr(NpyDtype d) {
  for (const auto& info : kDtypes)
    if (info.dtype == d) return info.descr;
  return "?";
}

std::size_t npy_item_size(NpyDtype d) {
  for (const auto& info : kDtypes)
    if (info.dtype == d) return info.size;
  return 0;
}

std::size_t NpyArray::count() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::string NpyArray::shape_text() const { return shape_string(shape); }

std::string npy_index_text(std::span<const std::size_t> shape, std::size_t flat) {
  if (shape.size() <= 1) return "(" + std::to_string(flat) + ")";
  std::vector<std::size_t> index(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    index[k] = flat % shape[k];
    flat /= shape[k];
  }
  std::string text = "(";
  for (std::size_t k = 0; k < index.size(); ++k) text += (k ? ", " : "") + std::to_string(index[k]);
  return text + ")";
}

namespace {

// An array assembled by hand (not by parse_npy) may disagree with itself: never read past data.
void check_size(const NpyArray& a) {
  const std::size_t size = npy_item_size(a.dtype);
  std::size_t n = 1;
  for (std::size_t d : a.shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d / size)
      fail(a.source, "shape " + a.shape_text() + " overflows");
    n *= d;
  }
  if (a.data.size() != n * size)
    fail(a.source, "data: " + std::to_string(a.data.size()) + " bytes for shape " + a.shape_text() + " of " +
                       std::string(npy_descr(a.dtype)) + " (" + std::to_string(n * size) + " needed)");
}

}  // namespace

std::optional<Format> NpyArray::float_format(bool u16_is_bf16, std::optional<Format> u8_fp8) const {
  if (u8_fp8 && !is_fp8(*u8_fp8)) throw std::invalid_argument("float_format: u8_fp8 must be e4m3 or e5m2");
  switch (dtype) {
    case NpyDtype::f64: return Format::f64;
    case NpyDtype::f32: return Format::f32;
    case NpyDtype::f16: return Format::f16;
    case NpyDtype::u16: return u16_is_bf16 ? std::optional<Format>(Format::bf16) : std::nullopt;
    case NpyDtype::u8: return u8_fp8;
    default: return std::nullopt;
  }
}

std::vector<double> NpyArray::floats(bool u16_is_bf16, std::optional<Format> u8_fp8) const {
  const auto f = float_format(u16_is_bf16, u8_fp8);
  if (!f) {
    if (dtype == NpyDtype::u16)
      fail(source, "dtype '<u2' (uint16) holds no floats; if these are bfloat16 bit patterns, say so (--bf16)");
    if (dtype == NpyDtype::u8)
      fail(source,
           "dtype '|u1' (uint8) holds no floats; if these are FP8 bit patterns, say which format (--fp8 e4m3 or e5m2)");
    fail(source, "dtype '" + std::string(npy_descr(dtype)) + "' is an integer type, a float array is needed here");
  }
  check_size(*this);
  const std::size_t n = count(), size = npy_item_size(dtype);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* p = data.data() + i * size;
    if (*f == Format::f64) {
      std::memcpy(&out[i], p, 8);
    } else if (*f == Format::f32) {
      float x;
      std::memcpy(&x, p, 4);
      out[i] = x;
    } else if (is_fp8(*f)) {
      out[i] = decode(*p, *f);
    } else {
      std::uint16_t bits;
      std::memcpy(&bits, p, 2);
      out[i] = decode(bits, *f);
    }
  }
  return out;
}

std::vector<std::int64_t> NpyArray::integers() const {
  if (dtype != NpyDtype::i32 && dtype != NpyDtype::i64 && dtype != NpyDtype::u16 && dtype != NpyDtype::u8)
    fail(source, "dtype '" + std::string(npy_descr(dtype)) +
                     "' is a float type, an integer array (int32 or int64) is needed here");
  check_size(*this);
  const std::size_t n = count();
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case NpyDtype::i32: {
        std::int32_t v;
        std::memcpy(&v, data.data() + i * 4, 4);
        out[i] = v;
        break;
      }
      case NpyDtype::i64: std::memcpy(&out[i], data.data() + i * 8, 8); break;
      case NpyDtype::u16: {
        std::uint16_t v;
        std::memcpy(&v, data.data() + i * 2, 2);
        out[i] = v;
        break;
      }
      case NpyDtype::u8: out[i] = data[i]; break;
      default:
        fail(source, "dtype '" + std::string(npy_descr(dtype)) +
                         "' is a float type, an integer array (int32 or int64) is needed here");
    }
  }
  return out;
}

NpyArray parse_npy(std::span<const unsigned char> bytes, const std::string& source, const NpyLimits& limits) {
  const Layout layout = parse_layout(bytes, bytes.size(), source, limits);
  NpyArray a = array_from(layout, source);
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(layout.data_offset), bytes.end());
  return a;
}

NpyArray read_npy(const std::string& path, const NpyLimits& limits) {
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
  struct stat st;
  if (fstat(fileno(file.get()), &st) != 0) fail(path, std::string("cannot stat (") + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a .npy file");
  if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  auto read_exactly = [&](unsigned char* out, std::size_t n) {
    if (n && std::fread(out, 1, n, file.get()) != n) fail(path, "read error or file changed while reading");
  };
  // The prefix, then the whole header, then (once its size is known to be sane) the data.
  std::vector<unsigned char> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 12)));
  read_exactly(head.data(), head.size());
  int version = 1;
  std::size_t header_start = 0;
  const std::size_t header_end = parse_prefix(head, size, path, version, header_start);
  const std::size_t have = head.size();
  head.resize(std::max(header_end, have));
  if (header_end > have) read_exactly(head.data() + have, header_end - have);
  const Layout layout = parse_layout(head, size, path, limits);
  NpyArray a = array_from(layout, path);
  // Bytes of the data already read with the prefix (a tiny header), then the rest.
  a.data.resize(static_cast<std::size_t>(layout.data_bytes));
  const std::size_t already = head.size() > layout.data_offset ? head.size() - layout.data_offset : 0;
  if (already) std::memcpy(a.data.data(), head.data() + layout.data_offset, already);
  read_exactly(a.data.data() + already, a.data.size() - already);
  return a;
}

std::vector<unsigned char> npy_bytes(NpyDtype dtype, std::span<const std::size_t> shape,
                                     std::span<const unsigned char> data) {
  std::string header = "{'descr': '" + std::string(npy_descr(dtype)) + "', 'fortran_order': False, 'shape': " +
                       shape_string(std::vector<std::size_t>(shape.begin(), shape.end())) + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes; end with '\n'.
  int version = 1;
  std::size_t prefix = 10;
  if (header.size() + 1 + 64 > 65535) {
    version = 2;
    prefix = 12;
  }
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<unsigned char> out(kMagic, kMagic + 6);
  out.push_back(static_cast<unsigned char>(version));
  out.push_back(0);
  const std::size_t n = header.size();
  out.push_back(static_cast<unsigned char>(n & 0xff));
  out.push_back(static_cast<unsigned char>((n >> 8) & 0xff));
  if (version == 2) {
    out.push_back(static_cast<unsigned char>((n >> 16) & 0xff));
    out.push_back(static_cast<unsigned char>((n >> 24) & 0xff));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<unsigned char> npy_bytes(Format format, std::span<const std::size_t> shape,
                                     std::span<const double> values) {
  NpyDtype dtype = NpyDtype::f64;
  switch (format) {
    case Format::f64: dtype = NpyDtype::f64; break;
    case Format::f32: dtype = NpyDtype::f32; break;
    case Format::f16: dtype = NpyDtype::f16; break;
    case Format::bf16: dtype = NpyDtype::u16; break;
    case Format::e4m3:
    case Format::e5m2: dtype = NpyDtype::u8; break;  // bit patterns, as for bf16
  }
  const std::size_t size = npy_item_size(dtype);
  std::vector<unsigned char> data(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    unsigned char* p = data.data() + i * size;
    if (format == Format::f64) {
      std::memcpy(p, &values[i], 8);
    } else if (format == Format::f32) {
      const float x = static_cast<float>(values[i]);
      std::memcpy(p, &x, 4);
    } else if (is_fp8(format)) {
      *p = static_cast<unsigned char>(encode(round_to_format(values[i], format), format));
    } else {
      const auto bits = static_cast<std::uint16_t>(encode(round_to_format(values[i], format), format));
      std::memcpy(p, &bits, 2);
    }
  }
  return npy_bytes(dtype, shape, data);
}

void write_npy(const std::string& path, Format format, std::span<const std::size_t> shape,
               std::span<const double> values) {
  std::size_t count = 1;
  for (std::size_t d : shape) count *= d;
  if (count != values.size())
    throw NpyError(path + ": shape " + shape_string(std::vector<std::size_t>(shape.begin(), shape.end())) + " holds " +
                   std::to_string(count) + " values, " + std::to_string(values.size()) + " given");
  const auto bytes = npy_bytes(format, shape, values);
  write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace accucheck
