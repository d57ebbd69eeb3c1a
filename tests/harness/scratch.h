// Scratch paths for tests: unique to the test process and removed when it ends, so the suite
// leaves nothing in the temp dir. They are kept (and listed on stderr) when a test of the process
// failed, to look at, or when ASIM_KEEP_SCRATCH is set.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

namespace asim::test {

// Removes the registered scratch paths after the last test of the program.
class ScratchCleanup : public ::testing::Environment {
public:
    void add(const std::filesystem::path& p) { m_paths.push_back(p); }
    void TearDown() override {
        const bool keep = !::testing::UnitTest::GetInstance()->Passed() ||
                          std::getenv("ASIM_KEEP_SCRATCH") != nullptr;
        for (const std::filesystem::path& p : m_paths) {
            std::error_code ec;
            if (!std::filesystem::exists(p, ec)) continue;
            if (keep) {
                std::cerr << "scratch kept: " << p.string() << "\n";
            } else {
                std::filesystem::remove_all(p, ec);
            }
        }
        m_paths.clear();
    }

private:
    std::vector<std::filesystem::path> m_paths;
};

// One per test program, registered with googletest before main runs (googletest owns it).
inline ScratchCleanup* const g_scratch_cleanup =
    static_cast<ScratchCleanup*>(::testing::AddGlobalTestEnvironment(new ScratchCleanup));

// A path in the test temp dir, unique to this process and `prefix`/`name`, removed if present
// now and when the program ends. `name` comes last, so its extension is the path's.
inline std::string scratch_path(const std::string& prefix, const std::string& name) {
    const std::filesystem::path p =
        std::filesystem::path(::testing::TempDir()) /
        ("asim-" + prefix + "-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(p);
    g_scratch_cleanup->add(p);
    return p.string();
}

}  // namespace asim::test
