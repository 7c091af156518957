// accucheck list [--json]: every registered backend with its formats, stated bound and class.
#include <cstdio>

#include "checking/backend.h"
#include "cli.h"
#include "io/json.h"

namespace accucheck::cli {

int list_command(CommandLine& cl) {
  bool json = false;
  BackendSources plugins;
  cl.flag("--json", json, "print the backends as JSON");
  cl.plugins(plugins);
  if (!cl.parse()) return kExitOk;
  load_plugins(plugins);
  const auto& backends = Registry::global().all();
  if (json) {
    JsonWriter w;
    w.begin_object().key("backends").begin_array();
    for (const auto& b : backends) {
      w.begin_object()
          .field("name", b.name)
          .field("device", name(b.device))
          .field("storage", name(b.storage))
          .field("accumulation", name(b.accumulation))
          .field("bound", b.bound_text())
          .field("bound_source", bound_source(b.bound.kind))
          .field("determinism", name(b.determinism))
          .field("origin", b.origin)
          .field("accepts_strides", b.accepts_strides)
          .field("summary", b.summary)
          .end_object();
    }
    w.end_array().end_object();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  BackendColumns width;
  for (const auto& b : backends) width.fit(b);
  std::printf("%-*s %-6s %-7s %-5s %-*s %s\n", width.name, "backend", "device", "storage", "acc", width.bound,
              "stated bound", "determinism");
  for (const auto& b : backends) {
    std::printf(
        "%-*s %-6s %-7s %-5s %-*s %s%s%s\n", width.name, b.name.c_str(), std::string(name(b.device)).c_str(),
        std::string(name(b.storage)).c_str(), std::string(name(b.accumulation)).c_str(), width.bound,
        b.bound_text().c_str(), std::string(name(b.determinism)).c_str(),
        b.origin == "builtin" ? "" : ("  [" + std::string(origin_kind(b.origin)) + " " + b.origin + "]").c_str(),
        b.accepts_strides ? " [strides]" : "");
  }
  std::printf("%zu backends\n", backends.size());
  return kExitOk;
}

}  // namespace accucheck::cli
