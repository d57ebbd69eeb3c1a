// ascend-sim: the command line. One binary, a subcommand per job (DESIGN §8); each job adds its
// own subcommand (testbenches/cli/command.h).
// Exit codes: 0 success, 2 bad usage / configuration / trace, 1 simulation failure.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>

#include "models/common/errors.h"
#include "models/common/log.h"
#include "testbenches/cli/command.h"

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
    const std::vector<asim::Command> commands = {
        asim::add_run_command(app),
        asim::add_info_command(app),
        asim::add_sweep_command(app),
        asim::add_mem_replay_command(app),
        asim::add_figures_command(app),
        asim::add_trace_command(app),
        asim::add_cosim_command(app),
        asim::add_validate_fidelity_command(app),
    };

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
        for (const auto& c : commands) {
            if (c.subcommand->parsed()) return c.action();
        }
    } catch (const asim::InputError& e) {
        std::cerr << "ascend-sim: error: " << e.what() << "\n";
        return asim::kExitBadInput;
    } catch (const asim::SimulationError& e) {
        std::cerr << "ascend-sim: error: simulation failed: " << e.what() << "\n";
        return asim::kExitSimulationFailure;
    } catch (const std::exception& e) {
        std::cerr << "ascend-sim: error: " << e.what() << "\n";
        return asim::kExitSimulationFailure;
    }
    return asim::kExitBadInput;  // unreachable: CLI11 requires one subcommand
}
