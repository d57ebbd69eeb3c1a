// Issue 18, output safety: an output directory is replaced as a whole (no stale files), a bad
// output path is exit 2 before any simulation, nothing is written through a FIFO, device or
// symbolic link, and no staging folder outlives a run (interrupted or killed).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/harness/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using asim::test::CliResult;
using asim::test::read_text;
using asim::test::run_cli;
using asim::test::scratch_path;
using asim::test::write_text;

bool has(const CliResult& r, const std::string& text) {
    return r.output.find(text) != std::string::npos;
}

// A fresh folder to hold the paths a test plays with.
std::string playground(const std::string& name) {
    const std::string dir = scratch_path("out-safety", name);
    fs::create_directories(dir);
    return dir;
}

// Entries of `dir` whose name contains `part`.
int entries_with(const std::string& dir, const std::string& part) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().filename().string().find(part) != std::string::npos) ++n;
    }
    return n;
}

// A process id that no longer exists: a child that has exited and been reaped.
pid_t dead_pid() {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    int status = 0;
    waitpid(pid, &status, 0);
    return pid;
}

TEST(OutputSafety, RunReplacesTheWholeDirectory) {
    const std::string out = playground("replace") + "/out";
    ASSERT_EQ(run_cli("run --out " + out).exit_code, 0);
    EXPECT_TRUE(fs::exists(out + "/.ascend-sim-output"));
    write_text(out + "/timeline.json", "from an earlier run");
    ASSERT_EQ(run_cli("run --out " + out).exit_code, 0);
    EXPECT_FALSE(fs::exists(out + "/timeline.json"))
        << "a file of the earlier run stayed beside the new outputs";
    EXPECT_TRUE(fs::exists(out + "/stats.json"));
    EXPECT_EQ(entries_with(fs::path(out).parent_path().string(), "staging"), 0);
}

TEST(OutputSafety, BadOutPathIsExitTwoBeforeTheSimulation) {
    const std::string dir = playground("bad-path");
    write_text(dir + "/file", "keep me");
    const auto t0 = std::chrono::steady_clock::now();
    CliResult r = run_cli("run --out " + dir + "/file");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "ascend-sim: error: --out '" + dir + "/file' exists and is a regular file"))
        << r.output;
    EXPECT_FALSE(has(r, "simulated time")) << r.output;
    EXPECT_EQ(read_text(dir + "/file"), "keep me");
    // A folder that cannot be written.
    fs::create_directories(dir + "/ro");
    fs::permissions(dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
    if (geteuid() != 0) {  // root writes anyway
        r = run_cli("run --out " + dir + "/ro/out");
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(has(r, "cannot write in")) << r.output;
    }
    fs::permissions(dir + "/ro", fs::perms::owner_all);
    // Someone else's files are never replaced.
    fs::create_directories(dir + "/mine");
    write_text(dir + "/mine/notes.txt", "mine");
    r = run_cli("run --out " + dir + "/mine");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "holds files that ascend-sim did not write")) << r.output;
    EXPECT_EQ(read_text(dir + "/mine/notes.txt"), "mine");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST(OutputSafety, NeverWritesThroughFifosDevicesOrLinks) {
    const std::string dir = playground("special");
    ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
    fs::create_directories(dir + "/target");
    write_text(dir + "/target/x", "untouched");
    fs::create_directory_symlink(dir + "/target", dir + "/link");
    write_text(dir + "/plain.jsonl", "untouched");
    fs::create_symlink(dir + "/plain.jsonl", dir + "/file-link");
    const std::string et =
        std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/pytorch_et_small_transformer.json";

    CliResult r = run_cli("run --out " + dir + "/fifo");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "is a FIFO")) << r.output;
    r = run_cli("run --out " + dir + "/link");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "is a symbolic link")) << r.output;
    r = run_cli("trace import --from pytorch-et " + et + " --out " + dir + "/fifo");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "--out '" + dir + "/fifo' exists and is a FIFO")) << r.output;
    r = run_cli("trace import --from pytorch-et " + et + " --out " + dir + "/file-link");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "is a symbolic link")) << r.output;
    r = run_cli("trace import --from pytorch-et " + et + " --out /dev/null");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "is a character device")) << r.output;
    r = run_cli("cosim --cycles 1000 --waves /dev/full");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "--waves '/dev/full' exists and is a character device")) << r.output;

    struct stat st {};
    ASSERT_EQ(lstat((dir + "/fifo").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_TRUE(fs::is_symlink(dir + "/link"));
    EXPECT_TRUE(fs::is_symlink(dir + "/file-link"));
    EXPECT_EQ(read_text(dir + "/target/x"), "untouched");
    EXPECT_EQ(read_text(dir + "/plain.jsonl"), "untouched");
    // A regular file is replaced whole.
    r = run_cli("trace import --from pytorch-et " + et + " --out " + dir + "/plain.jsonl");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(read_text(dir + "/plain.jsonl").find("ascend-sim-trace"), std::string::npos);
    EXPECT_EQ(entries_with(dir, ".tmp-"), 0);
}

TEST(OutputSafety, StagingOfKilledRunsIsRemovedByTheNextRun) {
    const std::string dir = playground("stale");
    const std::string pid = std::to_string(dead_pid());
    fs::create_directories(dir + "/.out.staging-" + pid);
    write_text(dir + "/.out.staging-" + pid + "/stats.json", "half");
    fs::create_directories(dir + "/.out.old-" + pid);
    write_text(dir + "/.plain.jsonl.tmp-" + pid, "half");
    // A live process's staging is left alone.
    const std::string live = dir + "/.out.staging-" + std::to_string(getpid());
    fs::create_directories(live);
    ASSERT_EQ(run_cli("run --out " + dir + "/out").exit_code, 0);
    EXPECT_FALSE(fs::exists(dir + "/.out.staging-" + pid));
    EXPECT_FALSE(fs::exists(dir + "/.out.old-" + pid));
    EXPECT_TRUE(fs::exists(live));
    const std::string et =
        std::string(ASIM_SOURCE_DIR) + "/traces/fixtures/pytorch_et_small_transformer.json";
    ASSERT_EQ(run_cli("trace import --from pytorch-et " + et + " --out " + dir + "/plain.jsonl")
                  .exit_code,
              0);
    EXPECT_FALSE(fs::exists(dir + "/.plain.jsonl.tmp-" + pid));
    // Older versions staged inside the output directory itself.
    fs::create_directories(dir + "/old/.staging-" + pid);
    write_text(dir + "/old/.staging-" + pid + "/stats.json", "half");
    EXPECT_EQ(run_cli("run --out " + dir + "/old").exit_code, 0);
    EXPECT_FALSE(fs::exists(dir + "/old/.staging-" + pid));
}

TEST(OutputSafety, InterruptedRunLeavesNoStaging) {
    for (int sig : {SIGINT, SIGTERM}) {
        const std::string dir = playground("signal-" + std::to_string(sig));
        const std::string out = dir + "/fig";
        const pid_t pid = fork();
        if (pid == 0) {
            setpgid(0, 0);
            execl(ASIM_BINARY, ASIM_BINARY, "figures", "hbm", "--requests", "100000000", "--out",
                  out.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        ASSERT_GT(pid, 0);
        // The staging folder is made before the figures are computed, which takes minutes here.
        bool staged = false;
        for (int i = 0; i < 200 && !staged; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            staged = entries_with(dir, ".staging-") > 0;
        }
        EXPECT_TRUE(staged);
        kill(pid, sig);
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
        EXPECT_EQ(entries_with(dir, "staging"), 0) << "signal " << sig;
        EXPECT_FALSE(fs::exists(out));
    }
}

TEST(OutputSafety, SweepWorkersStillWriteTheirPoints) {
    const std::string out = playground("sweep") + "/sw";
    const CliResult r = run_cli("sweep --grid die.ai_cores=8,16 -j 2 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int points = 0;
    for (const auto& e : fs::directory_iterator(out + "/points")) {
        const std::string name = e.path().filename().string();
        EXPECT_NE(name[0], '.') << name;
        EXPECT_TRUE(fs::exists(e.path() / "stats.json")) << name;
        EXPECT_TRUE(fs::exists(e.path() / "stderr.txt")) << name;
        ++points;
    }
    EXPECT_EQ(points, 2);
}

}  // namespace
