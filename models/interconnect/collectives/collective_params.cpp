#include "models/interconnect/collectives/collective_params.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

const std::vector<RingBreak>& ring_break_choices() {
    static const std::vector<RingBreak> all{RingBreak::cost, RingBreak::forward, RingBreak::star};
    return all;
}

const char* to_string(RingBreak r) {
    switch (r) {
        case RingBreak::cost:
            return "cost";
        case RingBreak::forward:
            return "forward";
        case RingBreak::star:
            return "star";
    }
    return "?";
}

RingBreak parse_ring_break(const std::string& s) {
    std::string names;
    for (RingBreak r : ring_break_choices()) {
        if (s == to_string(r)) return r;
        names += std::string(names.empty() ? "" : ", ") + to_string(r);
    }
    throw InputError(fmt::format("unknown ring_break '{}' (choices: {})", s, names));
}

bool CollectiveParams::uses_aiv(CollectiveOp op) const {
    return std::find(aiv_direct.begin(), aiv_direct.end(), op) != aiv_direct.end();
}

std::string CollectiveParams::problems() const {
    std::string p;
    if (chunk_bytes == 0) p += "chunk: must be > 0\n";
    if (reduce_bytes_per_s < 0) p += "reduce_bandwidth: must be >= 0\n";
    if (launch_overhead_ps < 0) p += "launch_overhead: must be >= 0\n";
    if (sdma_start_ps < 0) p += "sdma_start: must be >= 0\n";
    if (aiv_start_ps < 0) p += "aiv_start: must be >= 0\n";
    if (notify_overhead_ps < 0) p += "notify_overhead: must be >= 0\n";
    return p;
}

}  // namespace asim
