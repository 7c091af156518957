// The mxnet-16686 CPU reproduction's saved parameters (examples/data/mxnet-16686-cpu/*.npy),
// embedded into the binary at build time (embed_files.cmake), so that the scenario needs no
// data directory at run time.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace accucheck::scenarios {

struct EmbeddedFile {
  std::string_view name;  // the file name, without its directory
  std::span<const unsigned char> bytes;
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace accucheck::scenarios
