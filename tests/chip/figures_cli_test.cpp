// `ascend-sim figures gemm|systolic` and the matrix engine on the command line: exact columns,
// figures that follow from the model's arithmetic, and bad input refused with exit 2 and
// nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "tests/harness/cli_runner.h"

namespace asim::test {
namespace {

const char* kColumns = "m,n,k,dtype,cycles,time_ns,tflops,utilization";

// The CSV block after the "# <table>" line of the output, as rows of fields.
std::vector<std::vector<std::string>> table(const std::string& output, const std::string& name) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(output.substr(output.find("# " + name + "\n") + name.size() + 3));
    std::string line;
    while (std::getline(in, line) && !line.empty()) {
        std::vector<std::string> fields;
        std::istringstream l(line);
        std::string f;
        while (std::getline(l, f, ',')) fields.push_back(f);
        rows.push_back(fields);
    }
    return rows;
}

TEST(FiguresCli, SystolicColumnsAndFoldArithmetic) {
    const std::string out = scratch_path("figures", "systolic");
    const CliResult r = run_cli(
        "figures systolic --rows 16 --cols 16 --dataflow os --shapes '64,64,64;16,16,100' --out " +
        out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = table(r.output, "systolic_gemm");
    ASSERT_EQ(rows.size(), 3u) << r.output;
    std::ostringstream header;
    for (std::size_t i = 0; i < rows[0].size(); ++i) header << (i ? "," : "") << rows[0][i];
    EXPECT_EQ(header.str(), kColumns);
    // 4 x 4 folds of 64 + 15 + 15 cycles; one fold of 100 + 30 at 1 GHz.
    EXPECT_EQ(rows[1][4], "1504");
    EXPECT_EQ(rows[1][5], "1504.000");
    EXPECT_NEAR(std::stod(rows[1][7]), 64.0 * 64 * 64 / (1504.0 * 256), 1e-6);
    EXPECT_EQ(rows[2][4], "130");
    EXPECT_EQ(read_text(out + "/systolic_gemm.csv").substr(0, std::string(kColumns).size()),
              kColumns);
    std::filesystem::remove_all(out);
}

TEST(FiguresCli, GemmRunsThroughTheDie) {
    const CliResult r = run_cli("figures gemm --shapes '512,512,512;2048,1024,256' --dtype fp8");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rows = table(r.output, "gemm");
    ASSERT_EQ(rows.size(), 3u) << r.output;
    std::ostringstream header;
    for (std::size_t i = 0; i < rows[0].size(); ++i) header << (i ? "," : "") << rows[0][i];
    EXPECT_EQ(header.str(), kColumns);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i][3], "fp8");
        const double cycles = std::stod(rows[i][4]), ns = std::stod(rows[i][5]);
        const double tflops = std::stod(rows[i][6]), util = std::stod(rows[i][7]);
        EXPECT_NEAR(cycles / ns, 1.65, 0.01);  // the die clock
        const double flops =
            2.0 * std::stod(rows[i][0]) * std::stod(rows[i][1]) * std::stod(rows[i][2]);
        EXPECT_NEAR(tflops, flops / ns * 1e-3, 1e-3 + 1e-6 * tflops);
        EXPECT_GT(util, 0.0);
        EXPECT_LE(util, 1.0);
        EXPECT_NEAR(tflops / util, 1946.4, 1.0);  // the fp8 peak: 72 x 8192 x 2 x 1.65 GHz
    }
    // A bigger GEMM takes longer.
    EXPECT_GT(std::stod(rows[2][4]), std::stod(rows[1][4]));
}

TEST(FiguresCli, GemmComparesMatrixEnginesOnTheSameShape) {
    const CliResult cube = run_cli("figures gemm --shapes '1024,1024,1024'");
    const CliResult sys = run_cli(
        "figures gemm --shapes '1024,1024,1024' --set die.aicore.matrix_engine.kind=systolic");
    ASSERT_EQ(cube.exit_code, 0) << cube.output;
    ASSERT_EQ(sys.exit_code, 0) << sys.output;
    // Same peak (64 x 64 cells = one 16x16x16 fractal per cycle), but the array pays fill,
    // drain and preload per fold: slower.
    EXPECT_GT(std::stod(table(sys.output, "gemm")[1][4]),
              std::stod(table(cube.output, "gemm")[1][4]));
}

TEST(FiguresCli, BadShapesExitTwoAndWriteNothing) {
    for (const std::string shapes :
         {"0,5,5", "a,b", "1,2", "1,2,3,4", "4,4,-4", "", "99999999999,1,1"}) {
        for (const std::string sub : {"gemm", "systolic"}) {
            const std::string out = scratch_path("figures", "bad");
            const CliResult r =
                run_cli("figures " + sub + " --shapes '" + shapes + "' --out " + out);
            EXPECT_EQ(r.exit_code, 2) << sub << " '" << shapes << "': " << r.output;
            EXPECT_NE(r.output.find("error"), std::string::npos) << r.output;
            EXPECT_FALSE(std::filesystem::exists(out)) << sub << " '" << shapes << "'";
        }
    }
    EXPECT_EQ(run_cli("figures systolic --shapes 4,4,4 --dataflow xs").exit_code, 2);
    EXPECT_EQ(run_cli("figures systolic --shapes 4,4,4 --rows 0").exit_code, 2);
    EXPECT_EQ(run_cli("figures gemm --shapes 4,4,4 --dtype int3").exit_code, 2);
}

TEST(FiguresCli, DtypeTheEngineLacksIsRefusedWithOpAndLine) {
    const std::string trace = scratch_path("figures", "fp8.jsonl");
    write_text(trace,
               "{\"format\":\"ascend-sim-trace\",\"version\":1}\n"
               "# a comment line\n"
               "{\"id\":4,\"op\":\"matmul\",\"dtype\":\"fp8\",\"m\":64,\"n\":64,\"k\":64,"
               "\"inputs\":[{\"addr\":0,\"bytes\":4096},{\"addr\":65536,\"bytes\":4096}],"
               "\"outputs\":[{\"addr\":131072,\"bytes\":8192}]}\n");
    const std::string out = scratch_path("figures", "fp8-out");
    const CliResult r = run_cli("run --trace " + trace +
                                " --set die.aicore.matrix_engine.kind=systolic --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(":3:"), std::string::npos) << r.output;  // trace line
    EXPECT_NE(r.output.find("op 4"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("systolic matrix engine does not support dtype fp8"), std::string::npos)
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
    const CliResult g = run_cli(
        "figures gemm --dtype fp8 --shapes 64,64,64 --set die.aicore.matrix_engine.kind=systolic");
    EXPECT_EQ(g.exit_code, 2) << g.output;
    EXPECT_NE(g.output.find("does not support dtype fp8"), std::string::npos) << g.output;
    std::filesystem::remove(trace);
}

}  // namespace
}  // namespace asim::test

namespace asim::test {
namespace {

// The generator makes FP4 GEMM traces (weights two per byte) that the die runs at the FP4 peak.
TEST(FiguresCli, GeneratedFp4TraceRunsAtTheFp4Peak) {
    const std::string dir = scratch_path("figures", "fp4gen");
    const CliResult g = run_cli(
        "trace gen --model llama3-8b --phase prefill --batch 1 --seq 512 --layers 1 --dtype fp4 "
        "--out " +
        dir);
    ASSERT_EQ(g.exit_code, 0) << g.output;
    std::string trace;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() == ".jsonl") trace = e.path().string();
    }
    ASSERT_FALSE(trace.empty()) << g.output;
    const std::string text = read_text(trace);
    EXPECT_NE(text.find("\"dtype\":\"fp4\""), std::string::npos);
    const std::string out = dir + "/run";
    const CliResult r = run_cli("run --trace " + trace + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(read_text(out + "/summary.txt").find("peak (fp4)"), std::string::npos)
        << read_text(out + "/summary.txt");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace asim::test
