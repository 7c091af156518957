#include "accucheck/testing/backends.h"

#include <stdexcept>

namespace accucheck::test {

const Backend& registered_backend(const std::string& name) {
  const Backend* b = Registry::global().find(name);
  if (!b) throw std::runtime_error(name + " is not registered");
  return *b;
}

std::vector<double> results_of(const Backend& b, const Workload& w, const RunOptions& options) {
  std::vector<double> out(element_count(w));
  b.run(w, out, options);
  return out;
}

}  // namespace accucheck::test
