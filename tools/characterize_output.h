// What `accucheck characterize` prints and writes: the per-length table, the tree as indented
// text for small n, the JSON, and the HTML report (the tree as SVG, leaf depth against position).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "characterize/characterize.h"

namespace accucheck::cli {

// The table of one backend's lengths, its derived bound and relation, the small trees.
void print_characterization(const BackendCharacterization& c, std::FILE* out);

// The tree drawn as indented text: one line per node ("+ 4 leaves") and leaf, children indented.
std::string indented_tree(const SummationTree& tree);

// {"tool": "accucheck characterize", "backends": [...]} (docs/characterize.md lists the keys).
std::string characterization_json(const std::vector<BackendCharacterization>& all, std::uint64_t seed);

// One self-contained HTML file: per backend and length the table row, the tree as SVG (up to
// 256 leaves) and a plot of each leaf's depth against its position.
std::string characterization_html(const std::vector<BackendCharacterization>& all);
// The tree as an SVG drawing: leaves in order along the bottom, each node above its children.
std::string tree_svg(const SummationTree& tree);

}  // namespace accucheck::cli
