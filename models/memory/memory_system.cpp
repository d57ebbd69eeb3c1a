#include "models/memory/memory_system.h"

#include "models/memory/hbm/hbm.h"
#include "models/memory/hbm_flat/hbm_flat.h"

namespace asim {

L2AndHbm make_l2_and_hbm(const L2Params& l2, const HbmParams& hbm, StatsRegistry& stats,
                         const PoolAccess& pool) {
    L2AndHbm m;
    if (hbm.fidelity == HbmFidelity::kJedec) {
        m.hbm = std::make_unique<Hbm>("hbm", hbm, stats);
    } else {
        m.hbm = std::make_unique<HbmFlat>("hbm", hbm.flat_params(), stats);
    }
    m.l2 = std::make_unique<L2Cache>("l2", l2, stats);
    if (pool.params && pool.params->enabled()) {
        m.tiers = std::make_unique<TierRouter>("dsm", *pool.params, *pool.pool, pool.die,
                                               hbm.capacity_bytes(), pool.region_top, stats);
        m.l2->hbm_out.bind(m.tiers->l2_in);
        m.tiers->hbm_out.bind(m.hbm->l2_target());
        pool.pool->attach_hbm(pool.die, m.hbm->l2_target(), hbm.flat_params().latency_ps);
    } else {
        m.l2->hbm_out.bind(m.hbm->l2_target());
    }
    m.l2->set_target_waits(m.hbm->waits());
    return m;
}

}  // namespace asim
