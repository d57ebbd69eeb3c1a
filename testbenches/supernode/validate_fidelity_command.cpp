// `ascend-sim validate-fidelity --platform P --trace SET`: runs a trace set with every die
// detailed and again with every die fast (each in a child process: SystemC elaborates once per
// process) and reports the fast fidelity's error per op class (time summed over dies) and end to
// end (the step). Meant for 8 to 64 dies, where the detailed run is affordable.
// `ascend-sim validate-fidelity --memory [--platform P] [--trace T]`: runs a single-die trace with
// the JEDEC HBM (`die.hbm.fidelity=jedec`) and again with the flat one, and reports step time,
// HBM bytes and bandwidth, Cube utilisation and L2 hit rate side by side.
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include <optional>

#include "models/common/atomic_output.h"
#include "models/common/errors.h"
#include "platforms/platform.h"
#include "testbenches/command/command.h"
#include "testbenches/figures/hbm_figures.h"
#include "testbenches/supernode/supernode_job.h"
#include "testbenches/trace_replay/builtin_traces.h"
#include "testbenches/trace_replay/child_run.h"
#include "testbenches/trace_replay/run_job.h"

namespace asim {

namespace {

// Op class -> time summed over the dies, in us, from a run's stats tree.
std::map<std::string, double> class_times(const nlohmann::json& stats) {
    std::map<std::string, double> t;
    for (const auto& [die, tree] : stats.items()) {
        if (die.rfind("die", 0) != 0 || !tree.contains("dispatcher")) continue;
        for (const auto& [kind, c] : tree["dispatcher"]["by_class"].items()) {
            if (c["count"].get<uint64_t>() != 0) t[kind] += c["time_ps"].get<double>() * 1e-6;
        }
    }
    return t;
}

double error_pct(double fast, double detailed) {
    return detailed > 0 ? (fast - detailed) / detailed * 100 : 0.0;
}

// Runs `job(name, out_dir)` for both names, each in a child process writing under a scratch
// directory removed afterwards (also on failure); returns each run's stats.json. `what` names
// the runs in errors.
std::array<nlohmann::json, 2> run_both(
    const std::array<const char*, 2>& names, const std::string& what,
    const std::function<void(const char*, const std::string&)>& job) {
    const auto scratch =
        std::filesystem::temp_directory_path() / ("asim-fidelity-" + std::to_string(::getpid()));
    std::array<nlohmann::json, 2> runs;
    try {
        for (std::size_t i = 0; i < names.size(); ++i) {
            const std::string out = (scratch / names[i]).string();
            runs[i] =
                run_in_child([&] { job(names[i], out); }, out, what + ": the " + names[i] + " run");
        }
    } catch (...) {
        std::filesystem::remove_all(scratch);
        throw;
    }
    std::filesystem::remove_all(scratch);
    return runs;
}

// --memory: the same single-die trace with each HBM fidelity, each in a child process.
int validate_memory_fidelity(const RunOptions& base, const std::string& out_dir) {
    if (is_trace_set(base.trace)) {
        throw InputError("--trace: --memory compares one die's memory; '" + base.trace +
                         "' is a trace set (give one die's trace)");
    }
    std::optional<AtomicOutputDir> outputs;  // checked before the runs
    if (!out_dir.empty()) outputs.emplace(out_dir);
    const auto runs = run_both({"jedec", "flat"}, "validate-fidelity --memory",
                               [&](const char* name, const std::string& out) {
                                   RunOptions o = base;
                                   o.overrides.push_back(std::string("die.hbm.fidelity=") + name);
                                   o.out_dir = out;
                                   o.progress = true;
                                   o.progress_what =
                                       std::string("validate-fidelity --memory: ") + name + " run";
                                   run_job(o);
                               });
    struct Metric {
        const char* name;
        const char* key;
        double scale;
    };
    const Metric metrics[] = {{"step_us", "sim_time_ns", 1e-3},
                              {"hbm_read_GiB", "hbm_read_bytes", 1.0 / (1ULL << 30)},
                              {"hbm_write_GiB", "hbm_write_bytes", 1.0 / (1ULL << 30)},
                              {"hbm_bw_GBps", "hbm_bw_gbps", 1.0},
                              {"cube_utilization", "cube_utilization", 1.0},
                              {"l2_hit_rate", "l2_hit_rate", 1.0},
                              {"wall_s", "wall_s", 1.0}};
    FigureTable t{"memory_fidelity", {"metric", "jedec", "flat", "flat_error_pct"}, {}};
    for (const Metric& m : metrics) {
        const double j = runs[0]["summary"][m.key].get<double>() * m.scale;
        const double f = runs[1]["summary"][m.key].get<double>() * m.scale;
        t.rows.push_back({m.name, fmt::format("{:.4f}", j), fmt::format("{:.4f}", f),
                          fmt::format("{:+.2f}", error_pct(f, j))});
    }
    std::cout << t.csv();
    if (outputs) {
        outputs->write("memory_fidelity.csv", t.csv());
        outputs->write("memory_fidelity.json", t.json());
        outputs->commit();
    }
    return kExitOk;
}

}  // namespace

static Command add_validate_fidelity_command(CLI::App& app) {
    struct State {
        SupernodeOptions run;
        std::string out_dir;
        bool memory = false;
    };
    auto s = std::make_shared<State>();
    CLI::App* cmd = app.add_subcommand(
        "validate-fidelity",
        "run a trace set with every die detailed and again fast; report the fast "
        "fidelity's error per op class and end to end (with --memory: one "
        "die's trace with the JEDEC and the flat HBM)");
    cmd->add_option("--platform,-p", s->run.platform,
                    platform_help() + " (required for trace sets; with --memory default " +
                        kDefaultPlatform + ")");
    cmd->add_option(
        "--trace,-t", s->run.index,
        "trace set: its index.json or directory; with --memory one die's trace or a built-in name "
        "(default " +
            std::string(kDefaultTrace) + ")");
    cmd->add_option("--set", s->run.overrides, "override a config key: KEY=VALUE (repeatable)");
    cmd->add_option(
        "--out,-o", s->out_dir,
        "output directory (fidelity.csv, fidelity.json; with --memory memory_fidelity.csv, .json)");
    cmd->add_flag("--memory", s->memory,
                  "compare the HBM fidelities instead: one die's trace with die.hbm.fidelity=jedec "
                  "and =flat, "
                  "step time, HBM bytes, bandwidth, Cube utilisation and L2 hit rate side by side");
    return {cmd, [s] {
                if (s->memory) {
                    RunOptions o;
                    o.platform = s->run.platform.empty() ? kDefaultPlatform : s->run.platform;
                    o.trace = s->run.index.empty() ? kDefaultTrace : s->run.index;
                    o.overrides = s->run.overrides;
                    return validate_memory_fidelity(o, s->out_dir);
                }
                if (s->run.platform.empty())
                    throw InputError("--platform is required (a supernode preset)");
                if (s->run.index.empty()) throw InputError("--trace is required (a trace set)");
                if (!is_trace_set(s->run.index)) {
                    throw InputError("--trace: '" + s->run.index +
                                     "' is not a trace set (an index.json or its directory)");
                }
                std::optional<AtomicOutputDir> outputs;  // checked before the runs
                if (!s->out_dir.empty()) outputs.emplace(s->out_dir);
                const auto runs = run_both(
                    {"detailed", "fast"}, "validate-fidelity",
                    [&](const char* name, const std::string& out) {
                        SupernodeOptions o = s->run;
                        o.fidelity = name;
                        o.out_dir = out;
                        o.progress = true;
                        o.progress_what = std::string("validate-fidelity: ") + name + " run";
                        run_supernode_job(o);
                    });
                FigureTable t{"fidelity", {"class", "detailed_us", "fast_us", "error_pct"}, {}};
                const auto detailed = class_times(runs[0]["stats"]),
                           fast = class_times(runs[1]["stats"]);
                for (const auto& [kind, us] : detailed) {
                    const double f = fast.count(kind) ? fast.at(kind) : 0.0;
                    t.rows.push_back({kind, fmt::format("{:.3f}", us), fmt::format("{:.3f}", f),
                                      fmt::format("{:+.2f}", error_pct(f, us))});
                }
                const double step_d = runs[0]["summary"]["sim_time_ns"].get<double>() * 1e-3;
                const double step_f = runs[1]["summary"]["sim_time_ns"].get<double>() * 1e-3;
                t.rows.push_back({"end_to_end", fmt::format("{:.3f}", step_d),
                                  fmt::format("{:.3f}", step_f),
                                  fmt::format("{:+.2f}", error_pct(step_f, step_d))});
                std::cout << t.csv();
                std::cout << fmt::format(
                    "# wall: detailed {:.2f} s, fast {:.2f} s (of which calibration {:.2f} s)\n",
                    runs[0]["summary"]["wall_s"].get<double>(),
                    runs[1]["summary"]["wall_s"].get<double>(),
                    runs[1]["summary"]["fast_op_table"]["calibration_wall_s"].get<double>());
                if (outputs) {
                    outputs->write("fidelity.csv", t.csv());
                    outputs->write("fidelity.json", t.json());
                    outputs->commit();
                }
                return kExitOk;
            }};
}

ASIM_REGISTER_COMMAND("validate-fidelity", add_validate_fidelity_command);

}  // namespace asim
