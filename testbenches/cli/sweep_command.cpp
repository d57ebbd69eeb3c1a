// `ascend-sim sweep`.
#include <unistd.h>

#include <memory>

#include "models/common/errors.h"
#include "platforms/platform.h"
#include "testbenches/command/command.h"
#include "testbenches/sweep/sweep_job.h"
#include "testbenches/trace_replay/builtin_traces.h"

namespace asim {

static Command add_sweep_command(CLI::App& app) {
    auto s = std::make_shared<sweep::SweepOptions>();
    s->platform = kDefaultPlatform;
    s->trace = kDefaultTrace;
    s->out_dir = "ascend-sim-sweep";
    CLI::App* cmd = app.add_subcommand(
        "sweep",
        "run a trace over the Cartesian grid of config values, one worker process per point; "
        "writes DIR/points/<id>/ (the run outputs), DIR/results.csv (one row per point: swept "
        "values, then the summary) and DIR/sweep.json; rerun the same command to resume");
    cmd->add_option("--platform,-p", s->platform, platform_help())->capture_default_str();
    cmd->add_option("--trace,-t", s->trace,
                    "op trace (traces/FORMAT.md; .gz accepted) or a built-in trace name")
        ->capture_default_str();
    cmd->add_option(
           "--grid,-g", s->grid,
           "a swept config key (repeatable; the first varies slowest): KEY=V1,V2,... (each "
           "value as --set takes it, no commas inside) or KEY=A..B[:STEP] (A up to B "
           "inclusive: plain integers with STEP default 1, e.g. die.ai_cores=8..72:8, or "
           "three quantities of one unit kind, e.g. "
           "die.l2.partitions.weight=0MiB..48MiB:4MiB)")
        ->required();
    cmd->add_option("--set", s->overrides,
                    "override a config key in every point: KEY=VALUE (repeatable)");
    cmd->add_option("-j,--jobs", s->jobs, "worker processes at a time")->capture_default_str();
    cmd->add_option("--out,-o", s->out_dir, "sweep directory")->capture_default_str();
    cmd->add_option("--max-sim-time", s->max_sim_time,
                    "watchdog per point, as for run (e.g. 10ms): a point that has not finished by "
                    "then fails");
    cmd->add_flag("--restart", s->restart,
                  "discard the points of an earlier sweep with another definition in --out and "
                  "start afresh (without it, such a directory is an error)");
    cmd->add_flag("--list", s->list,
                  "print each point's index, id, status (done, failed, running, pending) and the "
                  "command that runs it alone; run nothing");
    cmd->add_option("--point", s->points,
                    "run only this point (its id or grid index; repeatable) in --out, beside other "
                    "points or shards of the same sweep; results.csv is left to --collect");
    cmd->add_option(
        "--shard", s->shard,
        "run only the points whose grid index mod N is I (I/N, 0 <= I < N), beside other "
        "shards; results.csv is left to --collect");
    cmd->add_flag(
        "--collect", s->collect,
        "write results.csv and timing.csv from the points finished in --out; exit 1 while "
        "some point is not finished");
    cmd->add_option("--backend", s->backend,
                    std::string("where the points run: ") + sweep::backend_names() +
                        " (submit a Slurm array job of shards and a collect job after it; rerun to "
                        "resubmit what is not finished)")
        ->capture_default_str();
    cmd->add_option("--slurm-tasks", s->slurm_tasks,
                    "array tasks with --backend slurm (default: one per point, at most 1000)");
    cmd->add_option("--sbatch-arg", s->sbatch_args,
                    "an option for sbatch with --backend slurm, e.g. --sbatch-arg=--partition=gpu "
                    "(repeatable)")
        ->allow_extra_args(false);
    return {cmd, [s] {
                s->progress = isatty(STDERR_FILENO) != 0;
                return sweep::run_sweep(*s);
            }};
}

ASIM_REGISTER_COMMAND("sweep", add_sweep_command);

}  // namespace asim
