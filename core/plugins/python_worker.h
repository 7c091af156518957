// Where Python backends run for the CLI (internal to core; plugin_loader.cpp is its one user).
//
// `--python FILE.py` starts a Python worker: a process forked from accucheck and exec'd into the
// user's interpreter (ACCUCHECK_PYTHON, else `python3` on PATH: any CPython >= 3.9 with numpy or,
// for backends of arrays="torch", torch; nothing compiled for it), running accucheck._worker
// (python/accucheck/_worker.py) from the package this build ships. It loads FILE.py and serves calls over worker
// protocol 1: messages of a 4-byte little-endian length and JSON on a socket, arrays in a memfd both map
// (docs/python.md). One worker per file; the containment is the plugin worker's (guest_process.h): a raise, a wrong
// result, a crash, an exit, a hang, output, a changed floating-point environment is that call's
// failure or a note, and the next call starts a new worker that loads the file again.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "plugins/plugin_worker.h"

namespace accucheck::python_worker {

inline constexpr int kProtocol = 1;

struct ServedBackend {
  std::string name, storage, accumulation, bound, determinism, kind;  // as the decorator recorded them
  bool fp8_inputs = false;
};

struct FileDescription {
  std::vector<ServedBackend> backends;
  std::string python, executable;  // the interpreter that ran the file
  std::string libraries;  // what the worker found: "numpy 2.5.5" or "no numpy", ", torch 2.9.1 (CUDA 13.0, ...)"
  std::string fp_change;  // how loading the file changed the floating-point environment ("" if not)
  std::string output;     // what it wrote while loading, escaped
};

using FileId = std::size_t;

// The interpreter a worker runs: ACCUCHECK_PYTHON, else `python3` (found on PATH).
std::string interpreter();
// The folder holding the package `accucheck` whose _worker the interpreter runs:
// ACCUCHECK_PYTHON_PACKAGE, else the build's.
std::string package_directory();

// Starts a worker for `file` (absolute) and loads it. Throws PluginError naming `display`: the
// interpreter cannot start or lacks numpy, the file raised, it crashed, exited or hung while loading.
std::pair<FileId, FileDescription> open_file(const std::string& display, const std::string& file,
                                             const PluginOptions& options);

// Runs backend `index` of file `id` on a region that `fill` writes, as plugin_worker::call_plugin.
plugin_worker::CallResult call_backend(FileId id, std::size_t index, const std::string& what,
                                       const PluginOptions& options, const plugin_worker::CallLayout& layout,
                                       const std::function<void(unsigned char* base)>& fill);

}  // namespace accucheck::python_worker
