// How a job plugs into the ascend-sim command line: it adds its subcommand (with options bound to
// state it owns) and returns the action to run when that subcommand was given. Each job lives in
// its own file; main.cpp only lists them. In a folder of its own, which includes no testbench, so
// that the testbench folders and testbenches/cli (which includes their jobs) form no cycle.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace asim {

struct Command {
    CLI::App* subcommand = nullptr;
    // Runs the job; returns the exit code. Throws InputError (exit 2) or SimulationError (exit 1).
    std::function<int()> action;
};

// Preset names, for option help texts.
std::string platform_help();

Command add_run_command(CLI::App& app);
Command add_info_command(CLI::App& app);
Command add_params_command(CLI::App& app);      // testbenches/cli/params_command.cpp
Command add_sweep_command(CLI::App& app);       // testbenches/cli/sweep_command.cpp
Command add_mem_replay_command(CLI::App& app);  // testbenches/mem_replay/mem_replay_command.cpp
Command add_figures_command(CLI::App& app);     // testbenches/figures/figures_command.cpp
Command add_trace_command(CLI::App& app);       // testbenches/trace_gen/trace_command.cpp
Command add_cosim_command(CLI::App& app);       // testbenches/prefetch_scheduler/cosim_command.cpp
Command add_validate_fidelity_command(
    CLI::App& app);  // testbenches/supernode/validate_fidelity_command.cpp

}  // namespace asim
