// A small JSON writer: enough for the CLI's machine-readable output and reports.
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
  std::string out_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace accucheck

#include <map>
#include <memory>
#include <vector>

namespace accucheck {

// A parsed JSON value. Numbers keep their source text so that they can be parsed exactly.
struct JsonValue {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool boolean = false;
  std::string text;  // number token or string contents
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in document order

  const JsonValue* find(std::string_view key) const;
  std::string_view type_name() const;

  // Declared here, defined below where JsonValue is complete: clang with libstdc++ 12 rejects
  // the implicit ones (they need std::pair<std::string, JsonValue> complete inside the class).
  JsonValue();
  JsonValue(const JsonValue&);
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(const JsonValue&);
  JsonValue& operator=(JsonValue&&) noexcept;
  ~JsonValue();
};
inline JsonValue::JsonValue() = default;
inline JsonValue::JsonValue(const JsonValue&) = default;
inline JsonValue::JsonValue(JsonValue&&) noexcept = default;
inline JsonValue& JsonValue::operator=(const JsonValue&) = default;
inline JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
inline JsonValue::~JsonValue() = default;

struct JsonParseResult {
  JsonValue value;
  std::string error;  // "line L, column C: what is wrong"; empty on success
  bool ok() const { return error.empty(); }
};

// Strict JSON (RFC 8259) with limits: nesting depth 64, 256 MiB of text; a key given twice in
// one object is an error naming the key and where the object is ("pairs[0][1]"). Never throws.
JsonParseResult parse_json(std::string_view text);

}  // namespace accucheck
