// The Python loader library: a plugin (accucheck/plugin.h) that serves the backends a Python file
// registers with @accucheck.backend. `accucheck ... --python FILE.py` loads it through core's
// load_served_backends, which puts FILE.py's absolute path in ACCUCHECK_PLUGIN_ARGUMENT while it
// loads; like every plugin it runs in the plugin worker, so a backend that crashes the
// interpreter, hangs or exits is that backend's failure, never accucheck's.
//
// It embeds the project's interpreter (ACCUCHECK_LOADER_PYTHON, the venv of ci/install-deps.sh)
// in the worker, imports accucheck._backends from the build tree's package (one conversion from
// raw values to NumPy arrays, shared with the extension) and runs FILE.py. Each backend's
// accumulate function is a trampoline carrying its index into accucheck._backends' table.
#define PY_SSIZE_T_CLEAN  // "y#" takes Py_ssize_t lengths
#include <Python.h>
#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <utility>

#include "accucheck/plugin.h"

namespace {

constexpr std::size_t kMaxBackends = 512;  // over every file this worker loads

struct Served {
  std::string name, bound;
  int index = 0;  // in accucheck._backends._registered
};
std::deque<Served> served;                          // stable addresses for the name/bound pointers
std::array<accucheck_backend, kMaxBackends> table;  // what accucheck_plugin_backends returns, in slices
std::size_t table_used = 0;
PyObject* backends_module = nullptr;

// Prints the pending Python error (the worker captures stderr for the failure message).
int python_failed(const char* what) {
  std::fprintf(stderr, "accucheck python loader: %s\n", what);
  if (PyErr_Occurred()) {
    // BackendFailure's text alone: it already says what the backend did; anything else with its traceback.
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
    PyErr_Fetch(&type, &value, &trace);
    PyErr_NormalizeException(&type, &value, &trace);
    PyObject* failure = backends_module ? PyObject_GetAttrString(backends_module, "BackendFailure") : nullptr;
    const bool own = failure && value && PyObject_IsInstance(value, failure) == 1;
    Py_XDECREF(failure);
    if (own) {
      PyObject* text = PyObject_Str(value);
      if (text) std::fprintf(stderr, "%s\n", PyUnicode_AsUTF8(text));
      Py_XDECREF(text);
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(trace);
    } else {
      PyErr_Restore(type, value, trace);
      PyErr_Print();
    }
  }
  std::fflush(stderr);
  return 1;
}

// The interpreter of the build, with its venv's site-packages, and the build tree's package first.
bool start_python() {
  if (Py_IsInitialized()) return true;
  // Extension modules (numpy's) resolve Python's C API from the global scope, which a plugin
  // opened RTLD_LOCAL does not join: open libpython again, globally.
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&Py_Initialize), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // SIGINT and the rest stay the worker's
  config.parse_argv = 0;
  const char* interpreter = std::getenv("ACCUCHECK_PYTHON");
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name,
                                            interpreter && *interpreter ? interpreter : ACCUCHECK_LOADER_PYTHON);
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    std::fprintf(stderr, "accucheck python loader: cannot start Python %s: %s\n", ACCUCHECK_LOADER_PYTHON,
                 status.err_msg ? status.err_msg : "");
    return false;
  }
  const char* package = std::getenv("ACCUCHECK_PYTHON_PACKAGE");
  PyObject* sys_path = PySys_GetObject("path");  // borrowed
  PyObject* dir = PyUnicode_FromString(package && *package ? package : ACCUCHECK_LOADER_PACKAGE_DIR);
  if (sys_path && dir) PyList_Insert(sys_path, 0, dir);
  Py_XDECREF(dir);
  return true;
}

// What an adapter call returned (a new reference, or NULL with a Python error set), copied into
// the problem's result buffer: 0, or 1 after printing why (the worker shows it in the failure).
// Releases the result and the GIL taken for the call.
int take_result(PyObject* result, const char* function, void* out, Py_ssize_t bytes, PyGILState_STATE gil) {
  int rc = 0;
  if (!result) rc = python_failed("the backend failed");
  else if (!PyBytes_Check(result) || PyBytes_Size(result) != bytes) rc = python_failed(function);
  else std::memcpy(out, PyBytes_AsString(result), static_cast<std::size_t>(bytes));
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return rc;
}

// Dense and sparse calls: the problem's raw values as bytes to accucheck._backends, its answer back.
int call_dense(int index, const accucheck_dense_problem* p, std::size_t value_bytes) {
  const PyGILState_STATE gil = PyGILState_Ensure();
  const Py_ssize_t addend_bytes = static_cast<Py_ssize_t>(p->steps * p->elements * value_bytes);
  const Py_ssize_t buffer_bytes = static_cast<Py_ssize_t>(p->elements * value_bytes);
  PyObject* result = PyObject_CallMethod(backends_module, "_call_dense", "inny#y#", index, static_cast<Py_ssize_t>(p->steps),
                                         static_cast<Py_ssize_t>(p->elements), static_cast<const char*>(p->addends),
                                         addend_bytes, static_cast<const char*>(p->buffer), buffer_bytes);
  return take_result(result, "_call_dense returned no result", p->buffer, buffer_bytes, gil);
}

int call_sparse(int index, const accucheck_sparse_problem* p, std::size_t value_bytes) {
  const PyGILState_STATE gil = PyGILState_Ensure();
  const std::size_t pairs = p->step_offsets[p->steps];
  const Py_ssize_t table_bytes = static_cast<Py_ssize_t>(p->rows * p->dim * value_bytes);
  PyObject* result = PyObject_CallMethod(
      backends_module, "_call_sparse", "innny#y#y#y#", index, static_cast<Py_ssize_t>(p->rows), static_cast<Py_ssize_t>(p->dim),
      static_cast<Py_ssize_t>(p->steps), reinterpret_cast<const char*>(p->step_offsets),
      static_cast<Py_ssize_t>((p->steps + 1) * sizeof(std::size_t)), reinterpret_cast<const char*>(p->row_index),
      static_cast<Py_ssize_t>(pairs * sizeof(std::uint32_t)), static_cast<const char*>(p->row_values),
      static_cast<Py_ssize_t>(pairs * p->dim * value_bytes), static_cast<const char*>(p->table), table_bytes);
  return take_result(result, "_call_sparse returned no result", p->table, table_bytes, gil);
}

std::size_t value_bytes(accucheck_format f) { return f == ACCUCHECK_F64 ? 8 : f == ACCUCHECK_F32 ? 4 : 2; }

template <std::size_t I>
int dense_trampoline(const accucheck_dense_problem* p) {
  return call_dense(served[I].index, p, value_bytes(table[I].storage));
}
template <std::size_t I>
int sparse_trampoline(const accucheck_sparse_problem* p) {
  return call_sparse(served[I].index, p, value_bytes(table[I].storage));
}
using DenseFn = int (*)(const accucheck_dense_problem*);
using SparseFn = int (*)(const accucheck_sparse_problem*);
template <std::size_t... I>
constexpr std::array<std::pair<DenseFn, SparseFn>, kMaxBackends> make_trampolines(std::index_sequence<I...>) {
  return {std::pair<DenseFn, SparseFn>{&dense_trampoline<I>, &sparse_trampoline<I>}...};
}
constexpr auto trampolines = make_trampolines(std::make_index_sequence<kMaxBackends>{});

int code_of(PyObject* mapping, PyObject* key) {
  PyObject* value = PyDict_GetItemWithError(mapping, key);  // borrowed
  return value ? static_cast<int>(PyLong_AsLong(value)) : -1;
}

}  // namespace

extern "C" ACCUCHECK_PLUGIN_EXPORT const accucheck_backend* accucheck_plugin_backends(int abi, size_t* count) {
  *count = 0;
  if (abi != 2) return nullptr;
  const char* file = std::getenv("ACCUCHECK_PLUGIN_ARGUMENT");
  if (!file || !*file) {
    std::fprintf(stderr, "accucheck python loader: no Python file (load it with accucheck --python FILE.py)\n");
    return nullptr;
  }
  setenv("ACCUCHECK_IN_LOADER", "1", 1);  // (before Python reads the environment) core's plugin loader validates
  if (!start_python()) return nullptr;
  const PyGILState_STATE gil = PyGILState_Ensure();
  const std::size_t first = table_used;
  PyObject* loaded = nullptr;
  if (!backends_module && !(backends_module = PyImport_ImportModule("accucheck._backends"))) {
    python_failed("cannot import accucheck._backends (ACCUCHECK_PYTHON_PACKAGE names the folder holding the package)");
  } else if (!(loaded = PyObject_CallMethod(backends_module, "_load_file", "s", file))) {
    python_failed("the Python file failed while it ran");
  } else {
    PyObject* formats = PyObject_GetAttrString(backends_module, "FORMAT_CODES");
    PyObject* classes = PyObject_GetAttrString(backends_module, "DETERMINISM_CODES");
    const Py_ssize_t n = PyList_Size(loaded);
    for (Py_ssize_t i = 0; i < n && formats && classes; ++i) {
      if (table_used == kMaxBackends) {
        std::fprintf(stderr, "accucheck python loader: more than %zu Python backends\n", kMaxBackends);
        break;
      }
      PyObject* b = PyList_GetItem(loaded, i);  // borrowed
      PyObject* name = PyObject_GetAttrString(b, "name");
      PyObject* bound = PyObject_GetAttrString(b, "bound");
      PyObject* storage = PyObject_GetAttrString(b, "storage");
      PyObject* accumulation = PyObject_GetAttrString(b, "accumulation");
      PyObject* determinism = PyObject_GetAttrString(b, "determinism");
      PyObject* kind = PyObject_GetAttrString(b, "kind");
      PyObject* index = PyObject_GetAttrString(b, "index");
      if (name && bound && storage && accumulation && determinism && kind && index) {
        Served& s = served.emplace_back();
        s.name = PyUnicode_AsUTF8(name);
        s.bound = PyUnicode_AsUTF8(bound);
        s.index = static_cast<int>(PyLong_AsLong(index));
        const bool sparse = std::strcmp(PyUnicode_AsUTF8(kind), "sparse") == 0;
        accucheck_backend& entry = table[table_used];
        entry = accucheck_backend{};
        entry.name = s.name.c_str();
        entry.stated_bound = s.bound.c_str();
        entry.storage = static_cast<accucheck_format>(code_of(formats, storage));
        entry.accumulation = static_cast<accucheck_format>(code_of(formats, accumulation));
        entry.determinism = static_cast<accucheck_determinism>(code_of(classes, determinism));
        if (sparse) entry.accumulate_sparse = trampolines[table_used].second;
        else entry.accumulate_dense = trampolines[table_used].first;
        ++table_used;
      }
      Py_XDECREF(name);
      Py_XDECREF(bound);
      Py_XDECREF(storage);
      Py_XDECREF(accumulation);
      Py_XDECREF(determinism);
      Py_XDECREF(kind);
      Py_XDECREF(index);
    }
    Py_XDECREF(formats);
    Py_XDECREF(classes);
    if (PyErr_Occurred()) python_failed("reading the registered backends");
  }
  Py_XDECREF(loaded);
  PyGILState_Release(gil);
  *count = table_used - first;
  return table.data() + first;
}
