// accucheck list [--json]: every registered backend with its formats, stated bound and class.
#include <algorithm>
#include <cstdio>

#include "accucheck/backend.h"
#include "accucheck/json.h"
#include "cli.h"

namespace accucheck::cli {

int list_command(Args& args) {
  const bool json = args.flag("json");
  load_plugins(args);
  if (!args.positionals().empty()) throw UsageError("list takes no arguments");
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
          .field("summary", b.summary)
          .end_object();
    }
    w.end_array().end_object();
    std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  // Columns as wide as their longest entry (plugin names can be long).
  int name_width = 7, bound_width = 12;
  for (const auto& b : backends) {
    name_width = std::max(name_width, static_cast<int>(b.name.size()));
    bound_width = std::max(bound_width, static_cast<int>(b.bound_text().size()));
  }
  std::printf("%-*s %-6s %-7s %-5s %-*s %s\n", name_width, "backend", "device", "storage", "acc", bound_width, "stated bound",
              "determinism");
  for (const auto& b : backends) {
    std::printf("%-*s %-6s %-7s %-5s %-*s %s%s\n", name_width, b.name.c_str(), std::string(name(b.device)).c_str(),
                std::string(name(b.storage)).c_str(), std::string(name(b.accumulation)).c_str(), bound_width,
                b.bound_text().c_str(), std::string(name(b.determinism)).c_str(),
                b.origin == "builtin" ? "" : ("  [plugin " + b.origin + "]").c_str());
  }
  std::printf("%zu backends\n", backends.size());
  return kExitOk;
}

}  // namespace accucheck::cli
