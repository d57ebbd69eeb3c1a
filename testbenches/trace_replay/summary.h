// The `summary` block of stats.json (DESIGN §8 keys) and the human-readable summary table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace asim {

class Die;
struct Platform;

// Builds the summary from a finished die. `wall_s` is the run's wall time.
nlohmann::json make_summary(const Die& die, double wall_s);

// The table printed by `ascend-sim run` and written to summary.txt.
std::string format_summary(const nlohmann::json& summary, const std::string& platform_line,
                           const std::string& trace_line, uint64_t kernel_deltas);

}  // namespace asim
