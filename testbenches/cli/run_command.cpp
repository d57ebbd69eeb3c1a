// `ascend-sim run`.

#include <iostream>
#include <memory>

#include "models/common/errors.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/command/command.h"
#include "testbenches/supernode/supernode_job.h"
#include "testbenches/trace_replay/builtin_traces.h"
#include "testbenches/trace_replay/run_job.h"

namespace asim {

std::string platform_help() {
    std::string list;
    for (const auto& p : builtin_presets())
        list += (list.empty() ? "" : ", ") + std::string(p.name);
    return "preset name (" + list + ") or path to a platform YAML file";
}

namespace {

// ", timeline.json" (or .gz) for the list of outputs, when one is written.
std::string timeline_file(const RunOptions& run) {
    if (!run.timeline) return "";
    return run.timeline_gzip ? ", timeline.json.gz" : ", timeline.json";
}

}  // namespace

static Command add_run_command(CLI::App& app) {
    struct State {
        RunOptions run;
        std::string max_sim_time;
        std::string util_window;
        std::string timeline_window;
        std::string timeline_cores;
        std::string timeline_bucket;
        std::vector<std::string> die_overrides;
        std::string fidelity = "detailed";
        std::vector<uint32_t> detailed_dies;
        std::vector<std::string> faults;
    };
    auto s = std::make_shared<State>();
    s->run.platform = kDefaultPlatform;
    s->run.trace = kDefaultTrace;
    s->run.out_dir = "ascend-sim-out";
    CLI::App* cmd =
        app.add_subcommand("run",
                           "replay an op trace (or a trace set on a supernode) on a "
                           "platform; writes stats.json, stats.csv, summary.txt, config.yaml "
                           "and ops.csv (one row per op: start, end, FLOPs, HBM bytes, L2 hit "
                           "rate, what bound it) (and timeline.json with --timeline) to --out");
    cmd->add_option("--platform,-p", s->run.platform, platform_help())->capture_default_str();
    cmd->add_option("--trace,-t", s->run.trace,
                    "op trace (traces/FORMAT.md; .gz accepted), a built-in trace name, or a trace "
                    "set for several "
                    "dies (its index.json or directory; needs a platform with a network: section)")
        ->capture_default_str();
    cmd->add_option("--set", s->run.overrides,
                    "override a config key: KEY=VALUE (repeatable), e.g. --set die.l2.size=128MiB");
    cmd->add_option("--out,-o", s->run.out_dir, "output directory")->capture_default_str();
    cmd->add_option("--max-sim-time", s->max_sim_time,
                    "watchdog: stop with exit code 1 if the run has not finished by this much "
                    "simulated time (e.g. 10ms)");
    cmd->add_option("--die-set", s->die_overrides,
                    "trace sets: override a key for one die, DIE:KEY=VALUE (repeatable), e.g. "
                    "3:die.clock=1.2GHz");
    cmd->add_option("--fidelity", s->fidelity,
                    "trace sets: detailed (every die a full die model) or fast (per-op times "
                    "measured once per "
                    "distinct op on the detailed model)")
        ->capture_default_str();
    cmd->add_option("--detailed-dies", s->detailed_dies,
                    "trace sets with --fidelity fast: dies kept detailed");
    cmd->add_option(
        "--fault", s->faults,
        "trace sets: take a network link down, LINK@TIME (repeatable; added to the platform's "
        "network.faults), e.g. die3->die4@10us; without @TIME from the start");
    cmd->add_flag("--functional", s->run.functional,
                  "move real bytes and compute matmuls (int8, bf16, fp16, fp32; up to 2^30 "
                  "multiply-adds each), "
                  "inputs seeded pseudo-random, every result checked against a reference matmul");
    cmd->add_option("--util-window", s->util_window,
                    "window of the Cube utilisation curve the summary reports (mean, std, min over "
                    "windows); "
                    "at least 100ns")
        ->default_str("100us");
    cmd->add_flag(
        "--timeline", s->run.timeline,
        "also write timeline.json: a Perfetto / Chrome trace (ui.perfetto.dev) with the ops of "
        "each die (op id, FLOPs, HBM bytes, bound; arrows to the ops that wait for them), its "
        "collectives, a track per pipe (MTE2, MTE1, Cube, Vector, MTE3, FixPipe) per core, L2 / "
        "HBM bandwidth counters and the Cube utilisation per --util-window; a trace set adds a "
        "bandwidth counter per network link and shows pipes only of the cores --timeline-cores "
        "names");
    cmd->add_flag(
        "--timeline-gzip", s->run.timeline_gzip,
        "write the timeline gzip-compressed, as timeline.json.gz (Perfetto opens it as it is)");
    cmd->add_option(
        "--timeline-window", s->timeline_window,
        "record only START:END of simulated time, e.g. 100us:250us (either side may be empty)");
    cmd->add_option(
        "--timeline-cores", s->timeline_cores,
        "record the pipes of only these AI cores, e.g. 0-3,8 (default: all on a single die, none "
        "in a trace set)");
    cmd->add_option("--timeline-bucket", s->timeline_bucket,
                    "time resolution of the L2 / HBM bandwidth counters (default 1us)");
    return {
        cmd, [s] {
            if (!s->run.timeline && (!s->timeline_window.empty() || !s->timeline_cores.empty() ||
                                     !s->timeline_bucket.empty() || s->run.timeline_gzip)) {
                throw InputError(
                    "--timeline-window, --timeline-cores, --timeline-bucket and "
                    "--timeline-gzip need "
                    "--timeline");
            }
            if (!s->timeline_window.empty())
                parse_timeline_window(s->timeline_window, s->run.timeline_options);
            if (!s->timeline_cores.empty())
                parse_timeline_cores(s->timeline_cores, s->run.timeline_options);
            if (!s->timeline_bucket.empty()) {
                int64_t bucket = 0;
                try {
                    bucket = units::picoseconds(s->timeline_bucket);
                } catch (const units::UnitError& e) {
                    throw InputError(std::string("--timeline-bucket: ") + e.what());
                }
                if (bucket <= 0) throw InputError("--timeline-bucket: must be a positive time");
                s->run.timeline_options.counter_bucket = static_cast<Picoseconds>(bucket);
            }
            if (!s->max_sim_time.empty()) {
                try {
                    s->run.max_sim_time_ps = units::picoseconds(s->max_sim_time);
                } catch (const units::UnitError& e) {
                    throw InputError(std::string("--max-sim-time: ") + e.what());
                }
            }
            if (!s->util_window.empty()) {
                int64_t window = 0;
                try {
                    window = units::picoseconds(s->util_window);
                } catch (const units::UnitError& e) {
                    throw InputError(std::string("--util-window: ") + e.what());
                }
                if (window < 100'000)
                    throw InputError("--util-window: must be at least 100ns, got '" +
                                     s->util_window + "'");
                s->run.util_window_ps = window;
            }
            s->run.progress = true;  // on a terminal, or as ASCEND_SIM_PROGRESS says (progress.h)
            if (is_trace_set(s->run.trace)) {
                if (s->run.functional) {
                    throw InputError("--functional is for single-die traces, not trace sets");
                }
                SupernodeOptions so;
                so.platform = s->run.platform;
                so.index = s->run.trace;
                so.overrides = s->run.overrides;
                so.die_overrides = s->die_overrides;
                so.out_dir = s->run.out_dir;
                so.max_sim_time_ps = s->run.max_sim_time_ps;
                so.util_window_ps = s->run.util_window_ps;
                so.progress = s->run.progress;
                so.fidelity = s->fidelity;
                so.detailed_dies = s->detailed_dies;
                so.faults = s->faults;
                so.timeline = s->run.timeline;
                so.timeline_gzip = s->run.timeline_gzip;
                so.timeline_options = s->run.timeline_options;
                std::cout << run_supernode_job(so);
                std::cout << "\noutputs in " << s->run.out_dir
                          << "/ (stats.json, stats.csv, summary.txt, config.yaml, ops.csv"
                          << timeline_file(s->run) << ")\n";
                return kExitOk;
            }
            if (!s->die_overrides.empty() || s->fidelity != "detailed" ||
                !s->detailed_dies.empty() || !s->faults.empty()) {
                throw InputError(
                    "--die-set, --fidelity, --detailed-dies and --fault are for trace sets "
                    "(several dies)");
            }
            std::cout << run_job(s->run);
            std::cout << "\noutputs in " << s->run.out_dir
                      << "/ (stats.json, stats.csv, summary.txt, config.yaml, ops.csv"
                      << timeline_file(s->run) << ")\n";
            return kExitOk;
        }};
}

ASIM_REGISTER_COMMAND("run", add_run_command);

}  // namespace asim
