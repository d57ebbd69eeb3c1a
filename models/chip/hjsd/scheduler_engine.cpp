#include "models/chip/hjsd/scheduler_engine.h"

namespace asim::hjsd {

Registry<SchedulerEngine, const EngineSpec&>& engine_registry() {
    static Registry<SchedulerEngine, const EngineSpec&> registry("H-JSD engine");
    return registry;
}

ASIM_REGISTER(engine_registry(), tlm, "the C++ reference core (prefetch_scheduler_core.h)", {},
              [](const ParamValues&, const EngineSpec& spec) {
                  return std::make_unique<CoreEngine>(spec.queue_depth, spec.partitions,
                                                      spec.registers);
              });

}  // namespace asim::hjsd
