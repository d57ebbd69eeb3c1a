// Running the ascend-sim binary from a test: its exit code and everything it printed, plus
// scratch paths (scratch.h) and small file helpers. Header-only because ASIM_BINARY is defined per
// test executable (tests/CMakeLists.txt).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <zlib.h>

#include "tests/harness/scratch.h"

namespace asim::test {

struct CliResult {
    int exit_code;
    std::string output;  // stdout and stderr
};

// Runs `ascend-sim ARGS` through the shell; -1 when it did not exit normally.
inline CliResult run_cli(const std::string& args) {
    const std::string cmd = std::string(ASIM_BINARY) + " " + args + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return {-1, "popen failed"};
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The text of a gzip file (a .json.gz output); empty when it cannot be read.
inline std::string read_gzip_text(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) return "";
    std::string text;
    char buf[65536];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    gzclose(f);
    return text;
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

}  // namespace asim::test
