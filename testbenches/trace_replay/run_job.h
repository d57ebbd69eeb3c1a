// `ascend-sim run`: replay an op trace on a platform and write stats.json, stats.csv,
// summary.txt, config.yaml and ops.csv (op_table.h) atomically into the output directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/timeline.h"

namespace asim {

struct RunOptions {
    std::string platform;                // preset name or YAML path
    std::string trace;                   // trace file, or a built-in name ("builtin:...")
    std::vector<std::string> overrides;  // "--set key=value"
    std::string out_dir;
    int64_t max_sim_time_ps = 0;           // watchdog; 0 = none
    int64_t util_window_ps = 100'000'000;  // the Cube utilisation curve's window (--util-window)
    bool progress = false;              // progress line on stderr (testbenches/command/progress.h)
    std::string progress_what = "run";  // its label
    bool timeline = false;              // write timeline.json (Perfetto / Chrome trace events)
    TimelineOptions timeline_options;
    bool timeline_gzip = false;  // write it as timeline.json.gz
    bool functional = false;  // move real bytes, compute matmuls, check them (functional_check.h)
};

// Runs the job; returns the summary text (also written to summary.txt). Throws InputError for
// bad input (nothing is written), SimulationError when the simulation fails.
std::string run_job(const RunOptions& options);

}  // namespace asim
