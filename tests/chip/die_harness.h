// Runs a die on a trace given as text, in this process (one TEST = one process = one
// elaboration), and returns the run's summary block.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace asim::test {

nlohmann::json run_die(const std::string& trace_text,
                       const std::vector<std::string>& overrides = {});

// A trace with one op (JSON object without "id"), header included.
std::string single_op_trace(nlohmann::json op);

// A tensor record for traces.
nlohmann::json tensor(const std::string& name, uint64_t addr, uint64_t bytes,
                      const std::string& stream);

}  // namespace asim::test
