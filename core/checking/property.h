// The properties a backend may promise (what each means: properties.h). Their names are part of
// a backend's registration (Backend::exemptions) and of case files (the property a finding broke).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace accucheck {

enum class Property : std::uint8_t { stated_bound, correctly_rounded, determinism, special_values, scaling, negation };
inline constexpr Property all_properties[] = {Property::stated_bound, Property::correctly_rounded,
                                              Property::determinism,  Property::special_values,
                                              Property::scaling,      Property::negation};
std::string_view name(Property p);
std::optional<Property> parse_property(std::string_view text);

}  // namespace accucheck
