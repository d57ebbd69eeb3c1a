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
    std::string max_sim_time;  // per-point watchdog, passed to `run`; empty = none
    int jobs = 1;              // worker processes at a time
    bool restart = false;      // discard a previous sweep in out_dir
    bool progress = false;     // redraw one progress line (stderr is a terminal)
    std::string worker_binary = "/proc/self/exe";

    // Clusters (README "Clusters"): at most one of list, points, shard, collect, or the slurm
    // backend. Points and shards of one sweep may run at once in one directory (each takes the
    // directory's lock shared); a whole local sweep, --restart and a submission take it alone.
    bool list = false;                // print each point's id, status and command; run nothing
    std::vector<std::string> points;  // --point: run only these (ids or grid indices)
    std::string shard;                // --shard I/N: run the points whose index mod N is I
    bool collect = false;             // write results.csv from the finished points; run nothing
    std::string backend = "local";    // local, or slurm: submit an array job and a collect job
    std::vector<std::string> sbatch_args;  // extra sbatch options, for both jobs
    int slurm_tasks = 0;                   // array tasks (0: one per point, at most 1000)
};

// The backends `--backend` accepts, for --help and messages.
inline const char* backend_names() { return "local, slurm"; }

// Validates everything (grid, keys and units of every point's config, trace, output directory)
// before any point runs, throwing InputError; then runs the points that are not finished yet
// (all, or those --point / --shard select), lists them, collects them, or submits them to Slurm.
// Returns kExitOk, or kExitSimulationFailure when a point failed (or, for --collect, when some
// point has not finished).
int run_sweep(const SweepOptions& options);

}  // namespace asim::sweep
