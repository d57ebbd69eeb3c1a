#include "testbenches/figures/gemm_figures.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/chip/aicore/matrix_engine.h"
#include "models/common/errors.h"
#include "platforms/platform.h"
#include "testbenches/trace_replay/child_run.h"
#include "testbenches/trace_replay/run_job.h"

namespace asim {

const std::vector<std::string> kGemmColumns = {"m",      "n",       "k",      "dtype",
                                               "cycles", "time_ns", "tflops", "utilization"};

namespace {

constexpr uint64_t kMaxDim = uint64_t{1} << 31;

uint64_t parse_dim(const std::string& text, const std::string& entry) {
    std::size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
    const std::string t = b == std::string::npos ? "" : text.substr(b, e - b + 1);
    auto bad = [&](const std::string& why) {
        return InputError("--shapes: bad shape '" + entry + "': " + why +
                          " (expected M,N,K;M,N,K;... with positive integers)");
    };
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
        throw bad("'" + t + "' is not a number");
    if (t.size() > 10) throw bad(t + " is larger than 2^31");
    const uint64_t v = std::stoull(t);
    if (v == 0) throw bad("dimensions must be positive");
    if (v > kMaxDim) throw bad(t + " is larger than 2^31");
    return v;
}

uint64_t ceil_bytes(uint64_t elements, uint32_t bits) { return (elements * bits + 7) / 8; }
uint64_t align(uint64_t a) { return (a + (1ULL << 20) - 1) & ~((1ULL << 20) - 1); }  // 1 MiB

// The one-op trace of `s`: A activations, B weights, C written as bf16.
std::string gemm_trace(const GemmShape& s, const std::string& dtype, uint32_t bits) {
    const uint64_t a_bytes = ceil_bytes(s.m * s.k, bits), b_bytes = ceil_bytes(s.k * s.n, bits);
    const uint64_t c_bytes = ceil_bytes(s.m * s.n, 16);
    const uint64_t a = 0, b = align(a + a_bytes), c = align(b + b_bytes);
    return fmt::format(
        "{{\"format\":\"ascend-sim-trace\",\"version\":1,\"name\":\"gemm_{0}x{1}x{2}_{3}\"}}\n"
        "{{\"id\":0,\"op\":\"matmul\",\"name\":\"gemm\",\"dtype\":\"{3}\",\"m\":{0},\"n\":{1},"
        "\"k\":{2},"
        "\"inputs\":[{{\"name\":\"a\",\"addr\":{4},\"bytes\":{5},\"stream\":\"activation\"}},"
        "{{\"name\":\"b\",\"addr\":{6},\"bytes\":{7},\"stream\":\"weight\"}}],"
        "\"outputs\":[{{\"name\":\"c\",\"addr\":{8},\"bytes\":{9},\"stream\":\"activation\"}}]}}\n",
        s.m, s.n, s.k, dtype, a, a_bytes, b, b_bytes, c, c_bytes);
}

}  // namespace

std::vector<GemmShape> parse_gemm_shapes(const std::string& text) {
    std::vector<GemmShape> shapes;
    std::stringstream list(text);
    std::string entry;
    while (std::getline(list, entry, ';')) {
        if (entry.find_first_not_of(" \t") == std::string::npos)
            continue;  // "a;;b" or a trailing ';'
        std::vector<std::string> parts;
        std::stringstream e(entry);
        std::string part;
        while (std::getline(e, part, ',')) parts.push_back(part);
        if (parts.size() != 3 || entry.back() == ',') {
            throw InputError("--shapes: bad shape '" + entry + "': needs three numbers M,N,K");
        }
        shapes.push_back(
            {parse_dim(parts[0], entry), parse_dim(parts[1], entry), parse_dim(parts[2], entry)});
    }
    if (shapes.empty()) throw InputError("--shapes: no shape given (expected M,N,K;M,N,K;...)");
    return shapes;
}

FigureTable gemm_figures(const GemmFiguresOptions& o) {
    // Everything that can be wrong with the input is found before the first run.
    if (o.dtype != "bf16" && o.dtype != "fp8" && o.dtype != "fp4") {
        throw InputError("figures gemm: --dtype must be bf16, fp8 or fp4, not '" + o.dtype + "'");
    }
    const DType dtype = *dtype_from_string(o.dtype);
    const std::vector<GemmShape> shapes = parse_gemm_shapes(o.shapes);
    const Platform platform = load_platform(o.platform, o.overrides);
    const auto engine = make_matrix_engine(platform.die.core);
    if (!engine->supports(dtype))
        throw InputError("figures gemm: " + engine->unsupported_reason(dtype));
    const double peak = platform.die.peak_flops(dtype);
    const double hz = static_cast<double>(platform.die.clock_hz);
    const uint64_t capacity = platform.die.hbm.capacity_bytes();
    const uint32_t bits = dtype_bits(dtype);
    for (const GemmShape& s : shapes) {
        const uint64_t need =
            align(align(ceil_bytes(s.m * s.k, bits)) + ceil_bytes(s.k * s.n, bits)) +
            ceil_bytes(s.m * s.n, 16);
        if (s.m * s.k > (uint64_t{1} << 40) || s.k * s.n > (uint64_t{1} << 40) ||
            s.m * s.n > (uint64_t{1} << 40) || need > capacity) {
            throw InputError(
                fmt::format("--shapes: GEMM {},{},{} needs more than the die's {} B of HBM", s.m,
                            s.n, s.k, capacity));
        }
    }

    namespace fs = std::filesystem;
    const fs::path tmp = fs::temp_directory_path() / ("asim-gemm-" + std::to_string(::getpid()));
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    FigureTable t{"gemm", kGemmColumns, {}};
    try {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const GemmShape& s = shapes[i];
            const fs::path trace = tmp / ("gemm" + std::to_string(i) + ".jsonl");
            std::ofstream(trace) << gemm_trace(s, o.dtype, bits);
            RunOptions run;
            run.platform = o.platform;
            run.overrides = o.overrides;
            run.trace = trace.string();
            run.out_dir = (tmp / ("run" + std::to_string(i))).string();
            const nlohmann::json summary =
                run_in_child([&run] { run_job(run); }, run.out_dir,
                             fmt::format("figures gemm: the run of shape {},{},{}", s.m, s.n, s.k))
                    .at("summary");
            const double time_ns = summary.at("sim_time_ns").get<double>();
            const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) *
                                 static_cast<double>(s.k);
            const double achieved = time_ns > 0 ? flops / (time_ns * 1e-9) : 0.0;
            t.rows.push_back(
                {std::to_string(s.m), std::to_string(s.n), std::to_string(s.k), o.dtype,
                 fmt::format("{:.0f}", time_ns * 1e-9 * hz), fmt::format("{:.3f}", time_ns),
                 fmt::format("{:.3f}", achieved * 1e-12), fmt::format("{:.6f}", achieved / peak)});
        }
    } catch (...) {
        fs::remove_all(tmp);
        throw;
    }
    fs::remove_all(tmp);
    return t;
}

}  // namespace asim
