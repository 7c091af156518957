// The floating-point environment accucheck's results depend on, and guarding it from guests.
//
// Every bound (BOUNDS.md) and the exact parser assume IEEE 754's default environment: round to
// nearest even, subnormals kept (no flush-to-zero, no denormals-are-zero), every exception
// masked. A guest can change it behind our back: a shared library built with -ffast-math sets
// FTZ and DAZ in the MXCSR from its constructor (gcc and clang link crtfastmath.o into it), a
// backend may call fesetround. So every place foreign code runs saves the environment, compares
// afterwards, restores it and says who changed it: Backend::run (built-in backends), the plugin
// loader and its workers (core/plugins/plugin_worker.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace accucheck {

// The control state that changes arithmetic results (the sticky exception flags are not part of
// it: raising inexact is what arithmetic does).
struct FpEnvironment {
  std::uint32_t sse_control = 0;  // x86-64: MXCSR without its six status flags; elsewhere 0
  std::uint32_t fpu_control = 0;  // x86-64: the x87 control word; AArch64: FPCR; elsewhere the fenv rounding mode
  bool operator==(const FpEnvironment&) const = default;
};

FpEnvironment current_fp_environment();
// IEEE 754's default: round to nearest even, no FTZ/DAZ, every exception masked.
FpEnvironment default_fp_environment();
void set_fp_environment(const FpEnvironment& environment);

// What differs, in words: "flush-to-zero and denormals-are-zero switched on (MXCSR 0x1f80 ->
// 0x9fc0)"; "" when nothing does.
std::string describe_fp_change(const FpEnvironment& before, const FpEnvironment& after);

// Saves the environment at construction; changed() says whether it differs now, and restore()
// sets the saved one back.
class FpEnvironmentGuard {
 public:
  FpEnvironmentGuard() : saved_(current_fp_environment()) {}
  const FpEnvironment& saved() const { return saved_; }
  // "" when unchanged, else describe_fp_change(saved, now); restores the saved environment.
  std::string check_and_restore() const {
    const FpEnvironment now = current_fp_environment();
    if (now == saved_) return "";
    set_fp_environment(saved_);
    return describe_fp_change(saved_, now);
  }

 private:
  FpEnvironment saved_;
};

}  // namespace accucheck
