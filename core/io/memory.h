// How much memory accucheck may plan to use, so that inputs too large for this machine are
// refused with a clear error before anything is allocated (a Linux process that overcommits is
// killed later, without a message, rather than told std::bad_alloc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace accucheck {

// The memory this process may use: ACCUCHECK_MEMORY_LIMIT when set (bytes, or with a suffix
// K, M, G, T: powers of 1024), else the smallest of physical memory, RLIMIT_AS, RLIMIT_DATA
// and the cgroup's memory.max. Throws std::invalid_argument naming the variable when it is
// set to something that is not a size.
std::uint64_t memory_limit_bytes();
// Where memory_limit_bytes() came from: "physical memory", "RLIMIT_AS", "ACCUCHECK_MEMORY_LIMIT", ...
std::string memory_limit_source();

// "1.5 GiB", "12 KiB", "300 bytes".
std::string bytes_text(std::uint64_t bytes);

// nullopt when `needed` bytes fit in memory_limit_bytes(); else why not, in words:
// "needs about 8.0 GiB, more than the 4.0 GiB this process may use (RLIMIT_AS; set
// ACCUCHECK_MEMORY_LIMIT to override)".
std::optional<std::string> memory_shortfall(std::uint64_t needed);

}  // namespace accucheck
