// `ascend-sim info`.
#include <iostream>
#include <memory>

#include "models/common/errors.h"
#include "platforms/platform.h"
#include "testbenches/cli/info_job.h"
#include "testbenches/command/command.h"

namespace asim {

static Command add_info_command(CLI::App& app) {
    struct State {
        std::string platform = kDefaultPlatform;
        std::vector<std::string> overrides;
        bool json = false;
    };
    auto s = std::make_shared<State>();
    CLI::App* cmd = app.add_subcommand("info",
                                       "print a platform's derived peak compute per dtype, "
                                       "bandwidths and capacities");
    cmd->add_option("--platform,-p", s->platform, platform_help())->capture_default_str();
    cmd->add_option("--set", s->overrides, "override a config key: KEY=VALUE (repeatable)");
    cmd->add_flag(
        "--json", s->json,
        "the same as JSON in base units (B, B/s, FLOP/s, Hz, ps), with the network of supernode "
        "platforms and the registered implementations of each pluggable part");
    return {cmd, [s] {
                if (s->json) {
                    std::cout << info_json(s->platform, s->overrides).dump(2) << "\n";
                    return kExitOk;
                }
                std::cout << info_job(s->platform, s->overrides);
                return kExitOk;
            }};
}

ASIM_REGISTER_COMMAND("info", add_info_command);

}  // namespace asim
