// One table of `ascend-sim figures`: written as NAME.csv and NAME.json (schemas/figures.schema.json
// describes the JSON) by every figures job.
#pragma once

#include <string>
#include <vector>

namespace asim {

struct FigureTable {
    std::string name;  // file stem, e.g. "hbm_load_latency"
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    std::string csv() const;
    std::string json() const;  // numbers as numbers, other cells as strings
};

}  // namespace asim
