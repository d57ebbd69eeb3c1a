// `ascend-sim info`: a platform's derived peaks, bandwidths and capacities.
#pragma once

#include <string>
#include <vector>

namespace asim {

// Returns the report text. Throws InputError on a bad platform.
std::string info_job(const std::string& platform, const std::vector<std::string>& overrides);

}  // namespace asim
