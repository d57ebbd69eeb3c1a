// Runs the yosys tools of rtl/yosys (scripts/rtl_synth.sh, scripts/rtl_formal.sh) and reads their
// summary lines, for tests/rtl.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace asim::rtl_test {

struct ToolRun {
    int exit_code = -1;
    std::string output;  // stdout and stderr

    // The value after "key: " on the first line that starts with it, or "" when there is none.
    std::string value(const std::string& key) const {
        std::istringstream in(output);
        for (std::string line; std::getline(in, line);) {
            if (line.rfind(key + ": ", 0) == 0) return line.substr(key.size() + 2);
        }
        return "";
    }
    long long number(const std::string& key) const {
        const std::string v = value(key);
        return v.empty() ? -1 : std::stoll(v);
    }
};

inline ToolRun run_tool(const std::string& script, const std::string& args) {
    const std::string cmd = std::string(ASIM_SOURCE_DIR) + "/scripts/" + script + " " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ToolRun r;
    if (!p) return r;
    char buf[1024];
    while (fgets(buf, sizeof buf, p)) r.output += buf;
    const int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The labels of the checker's assertions, read from its source (not from the tool).
inline std::vector<std::string> checker_assertions() {
    const std::string text =
        read_file(std::string(ASIM_SOURCE_DIR) + "/rtl/prefetch_scheduler/prefetch_scheduler_checker.sv");
    const std::regex label(R"(\n\s*(\w+):\s*assert\s*\()");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), label); it != std::sregex_iterator(); ++it) {
        out.push_back((*it)[1]);
    }
    return out;
}

}  // namespace asim::rtl_test
