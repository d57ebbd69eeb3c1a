// The die's memory below the cores: the L2 with the HBM model behind it, at the fidelity the
// platform names (`die.hbm.fidelity`). Built in one place so the die and the memory testbenches
// (mem-replay --target l2, figures l2) time the same hierarchy from the same parameters.
#pragma once

#include <memory>

#include "models/common/stats.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/hbm/hbm_model.h"
#include "models/memory/l2/l2_cache.h"

namespace asim {

struct L2AndHbm {
    std::unique_ptr<HbmModel> hbm;
    std::unique_ptr<L2Cache> l2;
};

// Creates the modules "hbm" and "l2" under the module being constructed and binds the L2's
// `hbm_out` to the HBM. The caller owns both and binds initiators to `l2->core_in`.
L2AndHbm make_l2_and_hbm(const L2Params& l2, const HbmParams& hbm, StatsRegistry& stats);

}  // namespace asim
