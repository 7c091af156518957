#include "io/json.h"

namespace accucheck {

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
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

JsonWriter& JsonWriter::begin_object() {
  separator();
  out_ += '{';
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  separator();
  out_ += '[';
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view k) {
  separator();
  out_ += '"';
  out_ += json_escape(k);
  out_ += "\":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  separator();
  out_ += '"';
  out_ += json_escape(s);
  out_ += '"';
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::raw(std::string_view json) {
  separator();
  out_ += json;
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  separator();
  out_ += b ? "true" : "false";
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::int64_t i) {
  separator();
  out_ += std::to_string(i);
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::uint64_t i) {
  separator();
  out_ += std::to_string(i);
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(double d) {
  if (std::isnan(d)) return value(std::string_view("nan"));
  if (std::isinf(d)) return value(std::string_view(d > 0 ? "inf" : "-inf"));
  separator();
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", d);
  out_ += buffer;
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::null() {
  separator();
  out_ += "null";
  need_comma_ = true;
  return *this;
}

}  // namespace accucheck
