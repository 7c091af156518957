// The standalone main of the fuzz targets in ordinary (g++, no libFuzzer) builds, as fmt's
// fuzzing/main.cc: every fuzz target also builds against this file, so CI replays every
// committed corpus file without clang.
//
//   fuzz_dense [FILE | DIR]...   runs LLVMFuzzerTestOneInput once per file (directories: every
//                                regular file below them, in name order); a missing DIR is
//                                skipped with a note. Exit 0 when all ran; a finding aborts.
//
// Skipped: dot files and sidecar notes (*.md, *.summary, README*). Arguments that start with
// '-' (libFuzzer flags) are ignored, so scripts can pass the same command line to both builds.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

// The file being replayed, named when a finding aborts (or any other fatal signal).
char current_file[4096] = "";

void name_the_input(int signal_number) {
  const char prefix[] = "\nreplay: the failing input is ";
  (void)!write(2, prefix, sizeof prefix - 1);
  (void)!write(2, current_file, std::strlen(current_file));
  (void)!write(2, "\n", 1);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

bool is_input(const fs::path& p) {
  const std::string name = p.filename().string();
  if (name.empty() || name[0] == '.') return false;
  if (name.rfind("README", 0) == 0) return false;
  const std::string ext = p.extension().string();
  return ext != ".md" && ext != ".summary";
}

void collect(const fs::path& p, std::vector<fs::path>& out) {
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::recursive_directory_iterator(p, ec))
      if (entry.is_regular_file() && is_input(entry.path())) found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  } else if (fs::exists(p, ec)) {
    out.push_back(p);
  } else {
    std::fprintf(stderr, "replay: %s does not exist; skipped\n", p.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (int s : {SIGABRT, SIGSEGV, SIGFPE, SIGBUS, SIGILL}) std::signal(s, name_the_input);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    collect(argv[i], inputs);
  }
  const bool verbose = std::getenv("ACCUCHECK_REPLAY_VERBOSE") != nullptr;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 2;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (verbose) std::fprintf(stderr, "Running: %s (%zu bytes)\n", path.c_str(), bytes.size());
    std::snprintf(current_file, sizeof current_file, "%s", path.c_str());
    // A heap copy of exactly the input's size, so that ASan sees any read past its end.
    std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[bytes.size() ? bytes.size() : 1]);
    std::copy(bytes.begin(), bytes.end(), data.get());
    LLVMFuzzerTestOneInput(data.get(), bytes.size());
  }
  std::printf("replayed %zu input(s)\n", inputs.size());
  return 0;
}
