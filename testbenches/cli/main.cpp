// ascend-sim: the command line. One binary, a subcommand per job (DESIGN §8).
// Exit codes: 0 success, 2 bad usage / configuration / trace, 1 simulation failure.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>

#include "models/common/errors.h"
#include "models/common/log.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/cli/info_job.h"
#include "testbenches/trace_replay/builtin_traces.h"
#include "testbenches/trace_replay/run_job.h"

namespace {

std::string preset_list() {
    std::string list;
    for (const auto& p : asim::builtin_presets()) list += (list.empty() ? "" : ", ") + std::string(p.name);
    return list;
}

int fail(int code, const std::string& message) {
    std::cerr << "ascend-sim: error: " << message << "\n";
    return code;
}

}  // namespace

// SystemC prints its banner before it calls sc_main, so the switch that silences it has to be
// set in main, which then hands over to the kernel as the library's own main would.
int main(int argc, char* argv[]) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
    // The kernel's informational reports (e.g. "simulation stopped by user" when a run is
    // stopped on an error) would only repeat what our own error message says.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);

    CLI::App app{"ascend-sim: cycle-approximate SystemC/TLM-2.0 model of an Ascend-960-class AI chip"};
    app.set_version_flag("--version", std::string("ascend-sim ") + ASIM_VERSION);
    app.require_subcommand(1);
    std::string log_spec;
    app.add_option("--log", log_spec,
                   "log levels: LEVEL or PATH=LEVEL[,PATH=LEVEL...] with LEVEL one of error, warn, "
                   "info, debug, trace (default warn)");

    // ---- run ----
    asim::RunOptions run;
    run.platform = asim::kDefaultPlatform;
    run.trace = asim::kDefaultTrace;
    run.out_dir = "ascend-sim-out";
    std::string max_sim_time;
    CLI::App* run_cmd = app.add_subcommand("run", "replay an op trace on a platform; writes stats.json, "
                                                  "stats.csv, summary.txt and config.yaml to --out");
    run_cmd->add_option("--platform,-p", run.platform,
                        "preset name (" + preset_list() + ") or path to a platform YAML file")
        ->capture_default_str();
    run_cmd->add_option("--trace,-t", run.trace,
                        "op trace (traces/FORMAT.md; .gz accepted) or a built-in trace name")
        ->capture_default_str();
    run_cmd->add_option("--set", run.overrides, "override a config key: KEY=VALUE (repeatable), e.g. "
                                                "--set die.l2.size=128MiB");
    run_cmd->add_option("--out,-o", run.out_dir, "output directory")->capture_default_str();
    run_cmd->add_option("--max-sim-time", max_sim_time,
                        "watchdog: stop with exit code 1 if the run has not finished by this much "
                        "simulated time (e.g. 10ms)");

    // ---- info ----
    std::string info_platform = asim::kDefaultPlatform;
    std::vector<std::string> info_overrides;
    CLI::App* info_cmd = app.add_subcommand("info", "print a platform's derived peak compute per dtype, "
                                                    "bandwidths and capacities");
    info_cmd->add_option("--platform,-p", info_platform,
                         "preset name (" + preset_list() + ") or path to a platform YAML file")
        ->capture_default_str();
    info_cmd->add_option("--set", info_overrides, "override a config key: KEY=VALUE (repeatable)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return asim::kExitBadInput;
    }

    try {
        if (!log_spec.empty()) asim::configure_logging(log_spec);
        if (run_cmd->parsed()) {
            if (!max_sim_time.empty()) {
                try {
                    run.max_sim_time_ps = asim::units::picoseconds(max_sim_time);
                } catch (const asim::units::UnitError& e) {
                    throw asim::InputError(std::string("--max-sim-time: ") + e.what());
                }
            }
            run.progress = isatty(STDERR_FILENO) != 0;
            std::cout << asim::run_job(run);
            std::cout << "\noutputs in " << run.out_dir << "/ (stats.json, stats.csv, summary.txt, config.yaml)\n";
        } else if (info_cmd->parsed()) {
            std::cout << asim::info_job(info_platform, info_overrides);
        }
    } catch (const asim::InputError& e) {
        return fail(asim::kExitBadInput, e.what());
    } catch (const asim::SimulationError& e) {
        return fail(asim::kExitSimulationFailure, std::string("simulation failed: ") + e.what());
    } catch (const std::exception& e) {
        return fail(asim::kExitSimulationFailure, e.what());
    }
    return asim::kExitOk;
}
