// The spellings of an enum's values, one table for both directions: name() for output (tables,
// JSON, case files) and parse() for input (flags, case files). The table lists every value in
// enum order, {value, "spelling"}; the constructor is consteval and refuses a table out of
// order; with N taken from the enum (its last value + 1), a new enumerator without a spelling
// fails the build too.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace accucheck {

template <class Enum, std::size_t N>
class EnumNames {
 public:
  using Entry = std::pair<Enum, std::string_view>;

  consteval explicit EnumNames(const Entry (&entries)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      // Not a constant expression when the table is out of enum order: a compile error.
      if (static_cast<std::size_t>(entries[i].first) != i) throw "EnumNames: entries must be in enum order";
      names_[i] = entries[i].second;
    }
  }

  // "?" for a value outside the table (a corrupted byte, never a declared enumerator).
  constexpr std::string_view name(Enum value) const {
    const auto index = static_cast<std::size_t>(value);
    return index < N ? names_[index] : std::string_view("?");
  }

  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (std::size_t i = 0; i < N; ++i)
      if (names_[i] == text) return static_cast<Enum>(i);
    return std::nullopt;
  }

  static constexpr std::size_t size() { return N; }

 private:
  std::array<std::string_view, N> names_{};
};

}  // namespace accucheck
