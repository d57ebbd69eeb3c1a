#include "models/memory/memory_system.h"

#include "models/memory/hbm/hbm.h"
#include "models/memory/hbm_flat/hbm_flat.h"

namespace asim {

L2AndHbm make_l2_and_hbm(const L2Params& l2, const HbmParams& hbm, StatsRegistry& stats) {
    L2AndHbm m;
    if (hbm.fidelity == HbmFidelity::kJedec) {
        m.hbm = std::make_unique<Hbm>("hbm", hbm, stats);
    } else {
        m.hbm = std::make_unique<HbmFlat>("hbm", hbm.flat_params(), stats);
    }
    m.l2 = std::make_unique<L2Cache>("l2", l2, stats);
    m.l2->hbm_out.bind(m.hbm->l2_target());
    m.l2->set_target_waits(m.hbm->waits());
    return m;
}

}  // namespace asim
