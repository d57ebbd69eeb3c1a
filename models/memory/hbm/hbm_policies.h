// Schedulers and page policies of the HBM controller, chosen by name in YAML (`scheduler:`,
// `page_policy:`) from their registries (models/common/registry.h). A new one is a file that
// registers itself (hbm_policies.cpp has the built-in ones) and a line in CMakeLists.txt; its
// parameters sit beside the choice in `controller:`. The channel only calls the interfaces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/common/registry.h"
#include "models/memory/hbm/hbm_channel.h"

namespace asim {

enum class HbmCmdClass { kRow, kColumn, kAny };

inline bool hbm_cmd_in_class(HbmCmd c, HbmCmdClass k) {
    if (k == HbmCmdClass::kAny) return c != HbmCmd::kNone;
    const bool row = c == HbmCmd::kAct || c == HbmCmd::kPre;
    return k == HbmCmdClass::kRow ? row : (c == HbmCmd::kRead || c == HbmCmd::kWrite);
}

class HbmScheduler {
public:
    virtual ~HbmScheduler() = default;
    // The command of class `want` to issue at `now`, or cmd kNone. `rr` is the channel's
    // round-robin position over command queues (updated on a pick). When nothing is ready,
    // lowers `next_ready` to the earliest cycle at which a candidate becomes ready.
    virtual HbmPick pick(const HbmChannel& ch, HbmCmdClass want, uint64_t now, uint32_t& rr,
                         uint64_t& next_ready) const = 0;
};

class HbmPagePolicy {
public:
    virtual ~HbmPagePolicy() = default;
    // Whether the column command of entry `index` in queue `queue` closes its row (auto-precharge).
    virtual bool auto_precharge(const HbmChannel& ch, uint32_t queue, uint32_t index) const = 0;
};

Registry<HbmScheduler>& hbm_scheduler_registry();
Registry<HbmPagePolicy>& hbm_page_policy_registry();

}  // namespace asim
