// `ascend-sim mem-replay`.
#include <iostream>
#include <memory>

#include "models/common/errors.h"
#include "platforms/platform.h"
#include "testbenches/command/command.h"
#include "testbenches/mem_replay/mem_replay_job.h"

namespace asim {

static Command add_mem_replay_command(CLI::App& app) {
    auto s = std::make_shared<MemReplayOptions>();
    s->platform = "hbm2_8gb_x128";
    CLI::App* cmd = app.add_subcommand(
        "mem-replay",
        "replay a DRAMSim3-format memory trace (0xADDR READ|WRITE CYCLE; .gz accepted) into "
        "the platform's HBM timing model (--target hbm) or the die's L2 with its HBM behind it "
        "(--target l2, "
        "record cycles in L2 clock cycles); one summary line, DIR/stats.json with --out");
    cmd->add_option("--platform,-p", s->platform, platform_help())->capture_default_str();
    cmd->add_option("--mem-trace", s->trace, "memory trace file")->required();
    cmd->add_option("--issue-cap", s->issue_cap,
                    "requests entering the controller per cycle, 0 = as many as it accepts "
                    "(DRAMSim3's stock driver: 1)")
        ->capture_default_str();
    cmd->add_option("--target", s->target, "memory level the trace enters: hbm or l2")
        ->capture_default_str();
    cmd->add_option("--request-size", s->request_size,
                    "bytes per trace record (default: the device's transaction size for hbm, its "
                    "access unless die.hbm.controller.transaction is set, e.g. 64B "
                    "for HBM2 x128; "
                    "64B for l2)");
    cmd->add_option("--stream", s->stream,
                    "stream class of --target l2 requests: weight, activation or general")
        ->capture_default_str();
    cmd->add_option("--set", s->overrides, "override a config key: KEY=VALUE (repeatable)");
    cmd->add_option("--out,-o", s->out_dir, "output directory for stats.json and config.yaml");
    return {cmd, [s] {
                std::cout << mem_replay_job(*s) << "\n";
                return kExitOk;
            }};
}

ASIM_REGISTER_COMMAND("mem-replay", add_mem_replay_command);

}  // namespace asim
