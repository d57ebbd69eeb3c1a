#include "tests/chip/die_harness.h"

#include <gtest/gtest.h>

#include <sstream>

#include "models/chip/die/die.h"
#include "models/common/clock_domain.h"
#include "models/common/failure_sink.h"
#include "models/common/kernel.h"
#include "models/common/trace.h"
#include "platforms/platform.h"
#include "testbenches/trace_replay/summary.h"

namespace asim::test {

nlohmann::json run_die(const std::string& trace_text, const std::vector<std::string>& overrides) {
    set_kernel_time_resolution();
    const Platform platform = load_platform(kDefaultPlatform, overrides);
    trace::TraceReader reader(std::make_unique<std::istringstream>(trace_text), "test-trace");
    StatsRegistry stats;
    FailureSink failures;
    Die die("die", platform.die, stats, failures);
    die.dispatcher().set_trace(&reader);
    run_kernel();  // sc_start, and ASan told the thread is on its own stack again
    failures.rethrow_if_failed();
    EXPECT_TRUE(die.dispatcher().finished());
    die.finalize_stats();
    return make_summary(die, 0.0);
}

std::string single_op_trace(nlohmann::json op) {
    const nlohmann::json header = {
        {"format", "ascend-sim-trace"}, {"version", 1}, {"name", "test"}, {"dies", 1}, {"die", 0}};
    op["id"] = 0;
    return header.dump() + "\n" + op.dump() + "\n";
}

nlohmann::json tensor(const std::string& name, uint64_t addr, uint64_t bytes,
                      const std::string& stream) {
    return {{"name", name}, {"addr", addr}, {"bytes", bytes}, {"stream", stream}};
}

}  // namespace asim::test
