#include "io/json.h"

namespace accucheck {

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  // The characters written as a two-character escape, and their letters; other control
  // characters as \u00XX (RFC 8259 sec. 7).
  static constexpr std::string_view special = "\"\\\n\r\t", letters = "\"\\nrt";
  for (unsigned char c : text) {
    if (const std::size_t k = special.find(static_cast<char>(c)); k != std::string_view::npos) {
      out += '\\';
      out += letters[k];
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void JsonWriter::separator() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (need_comma_) out_ += ',';
}

JsonWriter& JsonWriter::open(char bracket) {
  separator();
  out_ += bracket;
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::close(char bracket) {
  out_ += bracket;
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::begin_object() { return open('{'); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array() { return open('['); }
JsonWriter& JsonWriter::end_array() { return close(']'); }
JsonWriter& JsonWriter::key(std::string_view k) {
  separator();
  out_ += '"' + json_escape(k) + "\":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) { return raw('"' + json_escape(s) + '"'); }
JsonWriter& JsonWriter::raw(std::string_view json) {
  separator();
  out_ += json;
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(bool b) { return raw(b ? "true" : "false"); }
JsonWriter& JsonWriter::value(std::int64_t i) { return raw(std::to_string(i)); }
JsonWriter& JsonWriter::value(std::uint64_t i) { return raw(std::to_string(i)); }
JsonWriter& JsonWriter::value(double d) {
  if (std::isnan(d)) return value(std::string_view("nan"));
  if (std::isinf(d)) return value(std::string_view(d > 0 ? "inf" : "-inf"));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", d);
  return raw(buffer);
}
JsonWriter& JsonWriter::null() { return raw("null"); }

}  // namespace accucheck
