// A small JSON writer: enough for the CLI's machine-readable output and reports (the reader:
// json_parse.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace accucheck {

std::string json_escape(std::string_view text);

// Builds one JSON value incrementally; commas are inserted automatically.
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(std::int64_t i);
  JsonWriter& value(std::uint64_t i);
  JsonWriter& value(int i) { return value(static_cast<std::int64_t>(i)); }
  JsonWriter& value(unsigned i) { return value(static_cast<std::uint64_t>(i)); }
  // Finite doubles print with 17 significant digits; NaN and infinities as the strings
  // "nan", "inf", "-inf" (JSON has no literal for them).
  JsonWriter& value(double d);
  JsonWriter& null();
  // A value already written as JSON text (the caller's responsibility that it is valid).
  JsonWriter& raw(std::string_view json);
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  const std::string& str() const { return out_; }
  // The text written so far, removed from the writer, which goes on where it was: a long
  // output printed in pieces instead of held whole.
  std::string take() { return std::exchange(out_, std::string()); }

 private:
  void separator();
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  std::string out_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace accucheck
