// The die's memory below the cores: the L2 with the HBM model behind it, at the fidelity the
// platform names (`die.hbm.fidelity`). Built in one place so the die and the memory testbenches
// (mem-replay --target l2, figures l2) time the same hierarchy from the same parameters.
#pragma once

#include <memory>

#include "models/common/stats.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/interfaces/hbm_model.h"
#include "models/memory/l2/l2_cache.h"
#include "models/memory/tiers/tier_router.h"

namespace asim {

struct L2AndHbm {
    std::unique_ptr<HbmModel> hbm;
    std::unique_ptr<L2Cache> l2;
    std::unique_ptr<TierRouter>
        tiers;  // with a memory pool (DESIGN §5b): between the L2 and the HBM
};

// The pool a die's memory reaches beyond its HBM: its parameters, the shared devices, and the
// die's index among the owners of remote_hbm.
struct PoolAccess {
    const DsmParams* params = nullptr;
    DsmPool* pool = nullptr;
    uint32_t die = 0;
    uint64_t region_top = 0;  // staging and tiering regions are carved below this HBM address
};

// Creates the modules "hbm" and "l2" under the module being constructed and binds the L2's
// `hbm_out` to the HBM; with a pool (`pool.params` enabled) the L2 binds to a TierRouter "dsm"
// that forwards the die's own addresses to the HBM. The caller owns all of them and binds
// initiators to `l2->core_in`.
L2AndHbm make_l2_and_hbm(const L2Params& l2, const HbmParams& hbm, StatsRegistry& stats,
                         const PoolAccess& pool = {});

}  // namespace asim
