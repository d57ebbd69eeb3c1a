// The `summary` block of stats.json (DESIGN §8 keys) and the human-readable summary table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace asim {

class AtomicOutputDir;
class Die;
class StatsRegistry;
struct Platform;

// Builds the summary from a finished die. `wall_s` is the run's wall time.
nlohmann::json make_summary(const Die& die, double wall_s);

// Writes a run's outputs (DESIGN §8) into `out`: stats.json (schema, meta, `summary`, the stats
// tree), stats.csv, summary.txt (`text`) and the effective config.yaml.
void write_run_outputs(AtomicOutputDir& out, const Platform& platform, const std::string& trace,
                       const nlohmann::json& summary, const StatsRegistry& stats, double wall_s,
                       const std::string& text);

// The table printed by `ascend-sim run` and written to summary.txt.
std::string format_summary(const nlohmann::json& summary, const std::string& platform_line,
                           const std::string& trace_line, uint64_t kernel_deltas);

}  // namespace asim
