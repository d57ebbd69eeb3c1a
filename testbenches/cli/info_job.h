// `ascend-sim info`: a platform's derived peaks, bandwidths and capacities.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace asim {

// Returns the report text. Throws InputError on a bad platform.
std::string info_job(const std::string& platform, const std::vector<std::string>& overrides);
// The same figures as JSON in base units (B, B/s, FLOP/s, Hz, ps), with the network of supernode
// platforms and the implementations registered for each pluggable part (`info --json`).
nlohmann::json info_json(const std::string& platform, const std::vector<std::string>& overrides);

}  // namespace asim
