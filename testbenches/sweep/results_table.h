// results.csv of a sweep: one row per finished point, in grid order; the swept keys, then the
// run summary's scalars (nested objects flattened with '.'), then the point id. Wall-clock
// figures are left out, so that the file depends only on the sweep definition and the model:
// a resumed sweep and an uninterrupted one write the same bytes.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace asim::sweep {

// The summary's scalars as (dotted path, CSV text) pairs: numbers as nlohmann writes them (the
// shortest text that reads back to the same double), booleans true/false, strings verbatim.
// Keys named wall_s are dropped at every level.
std::vector<std::pair<std::string, std::string>> flatten_summary(const nlohmann::json& summary);

// Orders summary columns: the DESIGN §8 keys in their documented order (sim_time_ns first), then
// l2_partitions.*, prefetch.*, then the rest alphabetically.
bool summary_column_before(const std::string& a, const std::string& b);

struct ResultRow {
    std::string id;
    std::vector<std::string> values;  // swept values, one per key
    nlohmann::json summary;           // the point's stats.json "summary" block
};

// The whole CSV text. Columns: `keys`, the union of the rows' flattened summary keys (ordered by
// summary_column_before; a row without a key leaves its cell empty), then `point`.
std::string results_csv(const std::vector<std::string>& keys, const std::vector<ResultRow>& rows);

}  // namespace asim::sweep
