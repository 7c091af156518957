// A strict, bounded JSON reader for case files, result files and the Python worker's messages
// (json_parse.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
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

// Strict JSON (RFC 8259) with limits: values nested at most 64 levels below the top one, 256 MiB of text; a key given
// twice in one object is an error naming the key and where the object is ("pairs[0][1]"). Never throws.
JsonParseResult parse_json(std::string_view text);

}  // namespace accucheck
