// `ascend-sim sweep`: the Cartesian grid of config keys, one worker process per point (SystemC
// elaborates once per process), resumable, with results.csv rewritten after every point.
// Layout of the output directory and the rules for resuming: testbenches/sweep/README.md.
#pragma once

#include <string>
#include <vector>

namespace asim::sweep {

struct SweepOptions {
    std::string platform;                // preset name or YAML path
    std::string trace;                   // trace file or built-in trace name
    std::vector<std::string> grid;       // --grid specs (grid.h)
    std::vector<std::string> overrides;  // --set key=value, applied to every point
    std::string out_dir;
    std::string max_sim_time;            // per-point watchdog, passed to `run`; empty = none
    int jobs = 1;                        // worker processes at a time
    bool restart = false;                // discard a previous sweep in out_dir
    bool progress = false;               // redraw one progress line (stderr is a terminal)
    std::string worker_binary = "/proc/self/exe";
};

// Validates everything (grid, keys and units of every point's config, trace, output directory)
// before any point runs, throwing InputError; then runs the points that are not finished yet.
// Returns kExitOk, or kExitSimulationFailure when a point failed.
int run_sweep(const SweepOptions& options);

}  // namespace asim::sweep
