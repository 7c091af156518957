#include "numerics/fp_environment.h"

#include <cfenv>
#include <cstdio>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace accucheck {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// MXCSR (Intel SDM vol. 1, 10.2.3): bits 0-5 sticky flags, 6 DAZ, 7-12 exception masks,
// 13-14 rounding control, 15 FTZ. x87 control word (8.1.5): bits 0-5 masks, 8-9 precision,
// 10-11 rounding.
constexpr std::uint32_t kMxcsrFlags = 0x3f, kDaz = 0x40, kFtz = 0x8000, kMxcsrRounding = 0x6000, kMxcsrMasks = 0x1f80;
constexpr std::uint32_t kX87Masks = 0x3f, kX87Precision = 0x300, kX87Rounding = 0xc00;
#endif

void append(std::string& text, const std::string& part) { text += (text.empty() ? "" : ", ") + part; }

std::string hex(std::uint32_t v) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%#x", v);
  return buffer;
}

}  // namespace

FpEnvironment current_fp_environment() {
  FpEnvironment e;
#if defined(__x86_64__) || defined(__i386__)
  e.sse_control = _mm_getcsr() & ~kMxcsrFlags;
  std::uint16_t cw;
  __asm__ volatile("fnstcw %0" : "=m"(cw));
  e.fpu_control = cw;
#elif defined(__aarch64__)
  std::uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  e.fpu_control = static_cast<std::uint32_t>(fpcr);
#else
  e.fpu_control = static_cast<std::uint32_t>(std::fegetround());
#endif
  return e;
}

FpEnvironment default_fp_environment() {
  FpEnvironment e;
#if defined(__x86_64__) || defined(__i386__)
  e.sse_control = kMxcsrMasks;  // 0x1f80: the power-on value
  e.fpu_control = 0x37f;        // all masked, 64-bit precision, round to nearest (the ABI's default)
#elif defined(__aarch64__)
  e.fpu_control = 0;
#else
  e.fpu_control = static_cast<std::uint32_t>(FE_TONEAREST);
#endif
  return e;
}

void set_fp_environment(const FpEnvironment& e) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr((_mm_getcsr() & kMxcsrFlags) | e.sse_control);
  const std::uint16_t cw = static_cast<std::uint16_t>(e.fpu_control);
  __asm__ volatile("fldcw %0" : : "m"(cw));
#elif defined(__aarch64__)
  const std::uint64_t fpcr = e.fpu_control;
  __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#else
  std::fesetround(static_cast<int>(e.fpu_control));
#endif
}

std::string describe_fp_change(const FpEnvironment& before, const FpEnvironment& after) {
  if (before == after) return "";
  std::string what;
#if defined(__x86_64__) || defined(__i386__)
  const std::uint32_t changed = before.sse_control ^ after.sse_control;
  const auto on_off = [&](std::uint32_t bit) { return (after.sse_control & bit) ? "on" : "off"; };
  if ((changed & kFtz) && (changed & kDaz) && on_off(kFtz) == on_off(kDaz))
    append(what, std::string("flush-to-zero and denormals-are-zero switched ") + on_off(kFtz));
  else {
    if (changed & kFtz) append(what, std::string("flush-to-zero switched ") + on_off(kFtz));
    if (changed & kDaz) append(what, std::string("denormals-are-zero switched ") + on_off(kDaz));
  }
  if (changed & kMxcsrRounding) append(what, "SSE rounding mode changed");
  if (changed & kMxcsrMasks) append(what, "SSE exception masks changed");
  const std::uint32_t x87 = before.fpu_control ^ after.fpu_control;
  if (x87 & kX87Rounding) append(what, "x87 rounding mode changed");
  if (x87 & kX87Precision) append(what, "x87 precision changed");
  if (x87 & kX87Masks) append(what, "x87 exception masks changed");
  if (what.empty()) append(what, "control bits changed");
  what += " (MXCSR " + hex(before.sse_control) + " -> " + hex(after.sse_control) + ", x87 control word " +
          hex(before.fpu_control) + " -> " + hex(after.fpu_control) + ")";
#else
  what = "floating-point control changed (" + hex(before.fpu_control) + " -> " + hex(after.fpu_control) + ")";
#endif
  return what;
}

}  // namespace accucheck
