#include "io/memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string_view>

namespace accucheck {
namespace {

constexpr std::uint64_t kUnlimited = ~std::uint64_t{0};

// "123", "64M", "2G", "1.5G": bytes with an optional binary suffix; nullopt when malformed.
std::optional<std::uint64_t> parse_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double scale = 1;
  switch (text.back()) {
    case 'K':
    case 'k': scale = 0x1p10; break;
    case 'M':
    case 'm': scale = 0x1p20; break;
    case 'G':
    case 'g': scale = 0x1p30; break;
    case 'T':
    case 't': scale = 0x1p40; break;
    default: break;
  }
  if (scale != 1) text.remove_suffix(1);
  const std::string digits(text);
  if (digits.empty() || digits.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !(value * scale < 0x1p64)) return std::nullopt;
  return static_cast<std::uint64_t>(value * scale);
}

struct Limit {
  std::uint64_t bytes = kUnlimited;
  std::string source = "no limit known";
  void consider(std::uint64_t candidate, const char* what) {
    if (candidate < bytes) {
      bytes = candidate;
      source = what;
    }
  }
};

std::uint64_t rlimit(int resource) {
  struct rlimit r;
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return r.rlim_cur;
}

// cgroup v2 memory.max ("max" or bytes), else v1's memory.limit_in_bytes.
std::uint64_t cgroup_limit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (in >> text && text.find_first_not_of("0123456789") == std::string::npos && !text.empty())
      return std::strtoull(text.c_str(), nullptr, 10);
  }
  return kUnlimited;
}

Limit current_limit() {
  Limit limit;
  if (const char* text = std::getenv("ACCUCHECK_MEMORY_LIMIT"); text && *text) {
    const auto size = parse_size(text);
    if (!size)
      throw std::invalid_argument(std::string("ACCUCHECK_MEMORY_LIMIT: '") + text +
                                  "' is not a size (bytes, or a number with K, M, G or T)");
    limit.consider(*size, "ACCUCHECK_MEMORY_LIMIT");
    return limit;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    limit.consider(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page), "physical memory");
  limit.consider(cgroup_limit(), "the cgroup's memory limit");
  limit.consider(rlimit(RLIMIT_AS), "RLIMIT_AS");
  limit.consider(rlimit(RLIMIT_DATA), "RLIMIT_DATA");
  return limit;
}

}  // namespace

std::uint64_t memory_limit_bytes() { return current_limit().bytes; }
std::string memory_limit_source() { return current_limit().source; }

std::string bytes_text(std::uint64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::optional<std::string> memory_shortfall(std::uint64_t needed) {
  const Limit limit = current_limit();
  if (needed <= limit.bytes) return std::nullopt;
  std::string why = "needs about " + bytes_text(needed) + ", more than the " + bytes_text(limit.bytes) +
                    " this process may use (" + limit.source;
  if (limit.source != "ACCUCHECK_MEMORY_LIMIT") why += "; ACCUCHECK_MEMORY_LIMIT overrides it";
  return why + ")";
}

}  // namespace accucheck
