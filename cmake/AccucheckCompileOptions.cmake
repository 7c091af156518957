# Included by the top-level CMakeLists.txt: the compile and link options of every target.

# Floating-point semantics are part of the spec (DESIGN.md): no contraction into FMA,
# never -ffast-math (it also sets flush-to-zero for the whole process).
add_compile_options(
  $<$<COMPILE_LANGUAGE:CXX,C>:-ffp-contract=off>
  $<$<COMPILE_LANGUAGE:CXX,C>:-fno-fast-math>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall>
  $<$<COMPILE_LANGUAGE:CXX>:-Wextra>)

# Sanitizers (a list such as address,undefined) on every C/C++ file and on every link; a finding
# stops the program.
macro(accucheck_sanitize sanitizers)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${sanitizers}>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=all>)
  add_link_options(-fsanitize=${sanitizers})
endmacro()

if(ACCUCHECK_SANITIZE)
  accucheck_sanitize(${ACCUCHECK_SANITIZE})
endif()

# libFuzzer builds (the `fuzz` preset): every C/C++ file gets coverage instrumentation and the
# sanitizers; the fuzz targets alone link the engine (accucheck_fuzzer in AccucheckHelpers).
# With ACCUCHECK_FUZZ_EXTERNAL_FLAGS (OSS-Fuzz / ClusterFuzzLite) the builder's CFLAGS carry them.
# CUDA sources are left uninstrumented (COMPILE_LANGUAGE C/CXX only).
if(ACCUCHECK_FUZZ)
  # Not Boost.Multiprecision's internals (fuzzers/coverage-ignorelist.txt says why).
  add_compile_options(
    $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize-coverage-ignorelist=${PROJECT_SOURCE_DIR}/fuzzers/coverage-ignorelist.txt>)
endif()
if(ACCUCHECK_FUZZ AND NOT ACCUCHECK_FUZZ_EXTERNAL_FLAGS)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=fuzzer-no-link>)
  if(ACCUCHECK_FUZZ_SANITIZE)
    accucheck_sanitize(${ACCUCHECK_FUZZ_SANITIZE})
  endif()
endif()
