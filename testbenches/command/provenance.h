// Provenance of an output: which build made it (the commit), how it was asked for (the command
// line) and from which configuration (a hash of the effective config), recorded in stats.json's
// `meta` so a figure can be traced back and rerun.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace asim {

// The commit the binary was built from ("<12 hex digits>", "+dirty" when the tree differed from
// it, "unknown" outside a git checkout).
const char* build_commit();

// Remembers the process's command line (main calls it once, before any job runs).
void record_command_line(int argc, const char* const* argv);
// The command line as a shell would take it back (arguments quoted where needed).
const std::string& command_line();

// FNV-1a 64 over `text`, or over a file's bytes (read in pieces), as 16 hex digits: enough to
// tell two configurations or files apart.
std::string fnv1a_hex(const std::string& text);
std::string fnv1a_hex_file(const std::string& path);

// `arg` quoted for a POSIX shell (unchanged when it needs no quotes).
std::string shell_quote(const std::string& arg);

// {"commit", "command_line", "config_fnv1a"} for stats.json's `meta`; `config_yaml` is the
// effective configuration (Platform::config.to_yaml()).
nlohmann::json provenance_json(const std::string& config_yaml);

}  // namespace asim
