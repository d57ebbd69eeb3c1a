// Runs a replay job in a child process and returns the `summary` of its stats.json. SystemC
// elaborates once per process, so jobs that need several independent runs (figures gemm, the fast
// fidelity's calibration, validate-fidelity) fork one per run; the parent must not have
// elaborated anything itself. A child's exit 2 becomes an InputError, any other failure a
// SimulationError, both naming `what`.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace asim {

// `job` runs in the child and writes OUT/stats.json; returns the parsed summary.
nlohmann::json run_in_child(const std::function<void()>& job, const std::string& out_dir,
                            const std::string& what);

}  // namespace asim
