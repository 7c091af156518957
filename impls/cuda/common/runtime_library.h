// NVIDIA libraries opened with dlopen when first needed rather than linked (cuBLAS: cublas.cpp,
// NCCL: nccl.cpp): a process that never calls them does not pay for loading them, and a build
// needs only their headers. Host code only.
#pragma once

#include <dlfcn.h>

#include <string>

namespace accucheck::cuda {

// `soname` where the dynamic loader finds it, else in `directory` (the toolkit's library
// directory, found at build time). nullptr when neither opens, with `error` saying why.
inline void* open_runtime_library(const std::string& soname, const std::string& directory, std::string& error) {
  for (const std::string& path : {soname, directory + "/" + soname})
    if (void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
  const char* why = dlerror();
  error = "cannot load " + soname + ": " + (why ? why : "dlopen failed");
  return nullptr;
}

}  // namespace accucheck::cuda
