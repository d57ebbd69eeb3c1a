// Runs the yosys tools of rtl/yosys (scripts/rtl_synth.sh, scripts/rtl_formal.sh) and reads their
// summary lines, for tests/rtl.
#pragma once

#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
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
    const std::string cmd =
        std::string(ASIM_SOURCE_DIR) + "/scripts/" + script + " " + args + " 2>&1";
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
// A word of [A-Za-z0-9_] starting at `pos` ("" when none); `pos` moves past it.
inline std::string take_word(const std::string& s, std::size_t& pos) {
    const std::size_t start = pos;
    while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_'))
        ++pos;
    return s.substr(start, pos - start);
}

// Whether `s` continues with `lit` at `pos` (after spaces when `skip_space`); `pos` moves past it.
inline bool take(const std::string& s, std::size_t& pos, const std::string& lit,
                 bool skip_space = false) {
    if (skip_space)
        while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    if (s.compare(pos, lit.size(), lit) != 0) return false;
    pos += lit.size();
    return true;
}

// The labels of the checker's assertions: lines "LABEL: assert (" (std::regex is avoided: GCC
// 12 warns falsely inside <regex> under the sanitizers, and warnings are errors).
inline std::vector<std::string> checker_assertions() {
    std::istringstream text(read_file(std::string(ASIM_SOURCE_DIR) +
                                      "/rtl/prefetch_scheduler/prefetch_scheduler_checker.sv"));
    std::vector<std::string> out;
    for (std::string line; std::getline(text, line);) {
        std::size_t pos = 0;
        take(line, pos, "", true);
        const std::string label = take_word(line, pos);
        if (!label.empty() && take(line, pos, ":", true) && take(line, pos, "assert", true) &&
            take(line, pos, "(", true))
            out.push_back(label);
    }
    return out;
}

}  // namespace asim::rtl_test
