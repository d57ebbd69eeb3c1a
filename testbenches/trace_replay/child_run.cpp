#include "testbenches/trace_replay/child_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "models/common/errors.h"

namespace asim {

nlohmann::json run_in_child(const std::function<void()>& job, const std::string& out_dir,
                            const std::string& what) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw SimulationError(what + ": fork failed");
    if (pid == 0) {
        int code = 0;
        try {
            job();
        } catch (const InputError& e) {
            std::cerr << "ascend-sim: error: " << e.what() << "\n";
            code = 2;
        } catch (const std::exception& e) {
            std::cerr << "ascend-sim: error: simulation failed: " << e.what() << "\n";
            code = 1;
        }
        std::cerr.flush();
        std::_Exit(code);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        const std::string message = what + " failed (exit " + std::to_string(code) + ")";
        if (code == 2) throw InputError(message);
        throw SimulationError(message);
    }
    std::ifstream in(std::filesystem::path(out_dir) / "stats.json");
    return nlohmann::json::parse(in);
}

}  // namespace asim
