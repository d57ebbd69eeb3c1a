// How a job plugs into the ascend-sim command line: it adds its subcommand (with options bound to
// state it owns) and returns the action to run when that subcommand was given. Each job lives in
// its own file and registers itself; main.cpp lists none of them. In a folder of its own, which
// includes no testbench, so that the testbench folders and testbenches/cli form no cycle.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace asim {

struct Command {
    CLI::App* subcommand = nullptr;
    // Runs the job; returns the exit code. Throws InputError (exit 2) or SimulationError (exit 1).
    std::function<int()> action;
};

// Preset names, for option help texts.
std::string platform_help();

// The subcommands, registered by the files that define them (ASIM_REGISTER_COMMAND): a new job is
// its file and one line in testbenches/CMakeLists.txt; main.cpp adds whatever registered, in
// name order. The ascend-sim binary links the jobs whole, so a file nothing calls still registers.
struct CommandEntry {
    std::string name;  // the subcommand's name, as `add` names it (main.cpp checks)
    Command (*add)(CLI::App& app);
};

inline std::vector<CommandEntry>& command_registry() {
    static std::vector<CommandEntry> entries;
    return entries;
}

struct CommandRegistrar {
    CommandRegistrar(std::string name, Command (*add)(CLI::App& app)) {
        command_registry().push_back({std::move(name), add});
    }
};

// ASIM_REGISTER_COMMAND("name", add_function): at namespace scope, after add_function.
#define ASIM_REGISTER_COMMAND(name, add) \
    static const ::asim::CommandRegistrar asim_command_registrar_##add(name, &add)

}  // namespace asim
