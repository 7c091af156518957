// A strict, bounded JSON reader for case files and result files. Every malformed input gives
// an error with line and column; nothing is read past the end; nesting is limited.
#include <cstdint>
#include <unordered_set>

#include "io/json_parse.h"
#include "numerics/number_parse.h"

namespace accucheck {
namespace {

constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxText = std::size_t{256} << 20;

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  bool document(JsonValue& out, std::string& error) {
    if (text_.size() > kMaxText) return fail("document larger than 256 MiB", error);
    if (text_.substr(0, kUtf8ByteOrderMark.size()) == kUtf8ByteOrderMark)
      position_ = kUtf8ByteOrderMark.size();  // RFC 8259 allows ignoring one
    skip_space();
    if (!value(out, 0, error)) return false;
    skip_space();
    if (position_ != text_.size()) return fail("unexpected text after the JSON value", error);
    return true;
  }

 private:
  bool fail(const std::string& what, std::string& error) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < position_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
    return false;
  }
  void skip_space() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\t' ||
                                        text_[position_] == '\n' || text_[position_] == '\r'))
      ++position_;
  }
  bool literal(std::string_view word) {
    if (text_.substr(position_, word.size()) != word) return false;
    position_ += word.size();
    return true;
  }

  bool value(JsonValue& out, int depth, std::string& error) {
    if (depth > kMaxDepth) return fail("nesting deeper than 64", error);
    if (position_ >= text_.size()) return fail("unexpected end of input", error);
    const char c = text_[position_];
    if (c == '{') return object(out, depth, error);
    if (c == '[') return array(out, depth, error);
    if (c == '"') {
      out.type = JsonValue::Type::string;
      return string(out.text, error);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(out, error);
    if (literal("true")) {
      out.type = JsonValue::Type::boolean;
      out.boolean = true;
      return true;
    }
    if (literal("false")) {
      out.type = JsonValue::Type::boolean;
      return true;
    }
    if (literal("null")) {
      out.type = JsonValue::Type::null;
      return true;
    }
    return fail("unexpected character '" + printable_bytes(text_.substr(position_, 1)) + "'", error);
  }

  bool object(JsonValue& out, int depth, std::string& error) {
    out.type = JsonValue::Type::object;
    if (opens_empty('}')) return true;
    std::unordered_set<std::string> large_object_keys;
    for (;;) {
      skip_space();
      if (position_ >= text_.size() || text_[position_] != '"') return fail("expected a string key", error);
      const std::size_t key_position = position_;
      std::string key;
      if (!string(key, error)) return false;
      // Duplicate keys are refused: RFC 8259 leaves their meaning open, and "first wins" would
      // silently replay another case than the file seems to say.
      if (is_duplicate_key(out, key, large_object_keys)) {
        position_ = key_position;
        return fail("duplicate key \"" + key + "\" in " + (path_.empty() ? "the top-level object" : path_text()),
                    error);
      }
      skip_space();
      if (position_ >= text_.size() || text_[position_] != ':') return fail("expected ':' after a key", error);
      ++position_;
      skip_space();
      JsonValue member;
      path_.push_back({&key, 0});
      if (!value(member, depth + 1, error)) return false;
      path_.pop_back();
      out.members.emplace_back(std::move(key), std::move(member));
      bool closed = false;
      if (!comma_or_close('}', "an object", closed, error)) return false;
      if (closed) return true;
    }
  }

  // Past an opening bracket: true (and past the closing one too) for an empty container.
  bool opens_empty(char close) {
    ++position_;
    skip_space();
    if (position_ >= text_.size() || text_[position_] != close) return false;
    ++position_;
    return true;
  }

  // After an object's member or an array's item: a ',' (more follow) or the closing bracket
  // (`closed`), consumed; anything else is an error.
  bool comma_or_close(char close, const char* container, bool& closed, std::string& error) {
    skip_space();
    if (position_ < text_.size() && (text_[position_] == ',' || text_[position_] == close)) {
      closed = text_[position_++] == close;
      return true;
    }
    return fail(std::string("expected ',' or '") + close + "' in " + container, error);
  }

  bool array(JsonValue& out, int depth, std::string& error) {
    out.type = JsonValue::Type::array;
    if (opens_empty(']')) return true;
    for (;;) {
      skip_space();
      JsonValue item;
      path_.push_back({nullptr, out.items.size()});
      if (!value(item, depth + 1, error)) return false;
      path_.pop_back();
      out.items.push_back(std::move(item));
      bool closed = false;
      if (!comma_or_close(']', "an array", closed, error)) return false;
      if (closed) return true;
    }
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool read_hex4(std::uint32_t& out, std::string& error) {
    if (position_ + 4 > text_.size()) return fail("truncated \\u escape", error);
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hex_digit(text_[position_ + i]);
      if (d < 0) return fail("bad \\u escape", error);
      out = out * 16 + static_cast<std::uint32_t>(d);
    }
    position_ += 4;
    return true;
  }

  static void append_utf8(std::string& s, std::uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xc0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xe0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      s += static_cast<char>(0xf0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  bool string(std::string& out, std::string& error) {
    ++position_;  // opening quote
    out.clear();
    while (position_ < text_.size()) {
      const char c = text_[position_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string", error);
      if (c != '\\') {
        out += c;
        continue;
      }
      if (position_ >= text_.size()) break;
      const char e = text_[position_++];
      // RFC 8259 sec. 7: the two-character escapes, and the characters they stand for.
      static constexpr std::string_view escape_letters = "\"\\/bfnrt", escaped = "\"\\/\b\f\n\r\t";
      if (const std::size_t k = escape_letters.find(e); k != std::string_view::npos) {
        out += escaped[k];
        continue;
      }
      switch (e) {
        case 'u': {
          std::uint32_t cp;
          if (!read_hex4(cp, error)) return false;
          if (cp >= 0xd800 && cp < 0xdc00) {  // a surrogate pair
            std::uint32_t low;
            if (!literal("\\u") || !read_hex4(low, error) || low < 0xdc00 || low >= 0xe000)
              return fail("unpaired surrogate in \\u escape", error);
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          } else if (cp >= 0xdc00 && cp < 0xe000) {
            return fail("unpaired surrogate in \\u escape", error);
          }
          append_utf8(out, cp);
          break;
        }
        default: --position_; return fail("bad escape '\\" + printable_bytes(std::string_view(&e, 1)) + "'", error);
      }
    }
    return fail("unterminated string", error);
  }

  bool number(JsonValue& out, std::string& error) {
    const std::size_t start = position_;
    auto digits = [&] {
      const std::size_t from = position_;
      while (position_ < text_.size() && text_[position_] >= '0' && text_[position_] <= '9') ++position_;
      return position_ > from;
    };
    if (text_[position_] == '-') ++position_;
    if (position_ < text_.size() && text_[position_] == '0')
      ++position_;
    else if (!digits())
      return fail("malformed number", error);
    if (position_ < text_.size() && text_[position_] == '.') {
      ++position_;
      if (!digits()) return fail("malformed number: digits expected after '.'", error);
    }
    if (position_ < text_.size() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      ++position_;
      if (position_ < text_.size() && (text_[position_] == '+' || text_[position_] == '-')) ++position_;
      if (!digits()) return fail("malformed number: digits expected in the exponent", error);
    }
    out.type = JsonValue::Type::number;
    out.text = std::string(text_.substr(start, position_ - start));
    return true;
  }

  // A linear search among the few keys of an ordinary object, a hash set beyond them.
  static bool is_duplicate_key(const JsonValue& object, const std::string& key, std::unordered_set<std::string>& seen) {
    constexpr std::size_t kLinearSearch = 16;
    if (object.members.size() < kLinearSearch) return object.find(key) != nullptr;
    if (seen.empty())
      for (const auto& member : object.members) seen.insert(member.first);
    return !seen.insert(key).second;
  }

  // Where the parser is: "pairs[0][1].row" (the key of the member being read, the index of the
  // item), for errors that the line and column alone make hard to place.
  struct PathStep {
    const std::string* key;  // nullptr: an array item
    std::size_t index;
  };
  std::string path_text() const {
    std::string text;
    for (const auto& step : path_) {
      if (step.key)
        text += (text.empty() ? "" : ".") + *step.key;
      else
        text += "[" + std::to_string(step.index) + "]";
    }
    return text;
  }

  std::string_view text_;
  std::size_t position_ = 0;
  std::vector<PathStep> path_;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::string_view JsonValue::type_name() const {
  switch (type) {
    case Type::null: return "null";
    case Type::boolean: return "a boolean";
    case Type::number: return "a number";
    case Type::string: return "a string";
    case Type::array: return "an array";
    case Type::object: return "an object";
  }
  return "?";
}

JsonParseResult parse_json(std::string_view text) {
  JsonParseResult result;
  Reader reader(text);
  reader.document(result.value, result.error);
  return result;
}

}  // namespace accucheck
