// The grid of a sweep: `--grid` axes (a config key and its values), their Cartesian product in a
// fixed order, and the stable ids of its points. Values are kept as text with their units, so a
// point's overrides are exactly the `--set key=value` a user would type.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace asim::sweep {

struct GridAxis {
    std::string key;                  // dotted config key, e.g. die.l2.partitions.weight
    std::vector<std::string> values;  // as they go into --set, e.g. "4MiB"
    std::string spec;                 // the --grid argument, for messages
};

// Parses one --grid argument (throws InputError naming the argument):
//   KEY=V1,V2,...        a list; values are YAML scalars without commas, each used verbatim
//   KEY=A..B[:STEP]      a range from A up to B inclusive (B itself only when it lies on the
//                        grid), in steps of STEP: either plain integers (STEP defaults to 1), or
//                        quantities of one unit kind (size, time, frequency, bit rate, byte rate;
//                        STEP required), written in the largest of the three units given in
//                        which every value is whole, else in A's unit.
GridAxis parse_grid_spec(const std::string& spec);

// Largest number of points a sweep accepts; beyond it a typo (a step of 1B) is the likely cause.
constexpr std::size_t kMaxPoints = 10000;

struct GridPoint {
    std::size_t index = 0;            // position in grid order
    std::vector<std::string> values;  // one per axis
    std::string id;                   // directory name under DIR/points/
};

// The Cartesian product in grid order: the first axis varies slowest, the last fastest (nested
// loops in the order the --grid options were given). Throws InputError when it is empty or
// larger than kMaxPoints, or when two axes name the same key.
std::vector<GridPoint> cartesian_points(const std::vector<GridAxis>& axes);

// "<index>-<name>=<value>-...": the index zero-padded to the width of the largest index (at least
// 3 digits), then each axis as the last component of its key (the whole key when two axes share
// that component) and its value, with characters other than letters, digits and . + - = _
// replaced by '_' (4.8TB/s -> 4.8TB_s). The name part is cut at 100 characters; the index
// alone keeps ids unique.
std::string point_id(std::size_t index, std::size_t total, const std::vector<GridAxis>& axes,
                     const std::vector<std::string>& values);

// The point's overrides: "key=value" per axis, in axis order.
std::vector<std::string> point_overrides(const std::vector<GridAxis>& axes, const GridPoint& point);

}  // namespace asim::sweep
