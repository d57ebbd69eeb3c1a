#include "testbenches/trace_replay/functional_check.h"

#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "models/chip/aicore/functional_cube.h"
#include "models/common/errors.h"

namespace asim {

void FunctionalCheck::fill_if_untouched(const trace::Tensor& t, DType dtype, uint64_t op_id) {
    if (m_memory.touched(t.addr, t.bytes)) return;  // an earlier op's output: keep it
    std::mt19937_64 rng(m_seed * 0x9E3779B97F4A7C15ULL + op_id * 0x100000001B3ULL + t.addr);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const uint32_t bytes_per = dtype_bits(dtype) / 8;
    std::vector<uint8_t> data(t.bytes);
    const uint64_t n = t.bytes / bytes_per;
    for (uint64_t i = 0; i < n; ++i) {
        if (is_integer_dtype(dtype)) {
            data[i] = static_cast<uint8_t>(rng());
        } else {
            store_element(data.data(), bytes_per * 8, false, i, unit(rng));
        }
    }
    m_memory.write(t.addr, data.data(), data.size());
}

void FunctionalCheck::on_dispatch(const trace::Op& op, const OpPlan& plan) {
    if (op.kind != trace::OpKind::kMatmul || !plan.matmul_layout) return;
    const MatmulLayout& l = *plan.matmul_layout;
    if (!functional_supported(op.dtype)) {
        throw InputError(
            fmt::format("op {} (matmul): --functional computes int8, bf16, fp16 and fp32, not {}",
                        op.id, to_string(op.dtype)));
    }
    if (l.batch * l.m * l.n * l.k > kMaxMacs) {
        throw InputError(
            fmt::format("op {} (matmul): --functional checks matmuls up to 2^30 multiply-adds "
                        "(about 1024 per dimension); this one has {}",
                        op.id, l.batch * l.m * l.n * l.k));
    }
    if (is_integer_dtype(op.dtype) ? l.c_bits != 32 : (l.c_bits != 16 && l.c_bits != 32)) {
        throw InputError(fmt::format(
            "op {} (matmul): --functional needs C sized for {} elements ({} B for {} x {})", op.id,
            is_integer_dtype(op.dtype) ? "int32" : "bf16 or fp32", l.c.bytes, l.m, l.n));
    }
    fill_if_untouched(l.a, op.dtype, op.id);
    fill_if_untouched(l.b, op.dtype, op.id);
    Pending p{op, l, {}, {}};
    p.a.resize(l.batch * l.m * l.k);
    p.b.resize(l.batch * l.k * l.n);
    const uint32_t eb = dtype_bits(op.dtype) / 8;
    uint8_t buf[4];
    for (uint64_t bt = 0; bt < l.batch; ++bt) {
        for (uint64_t i = 0; i < l.m; ++i) {
            for (uint64_t kk = 0; kk < l.k; ++kk) {
                m_memory.read(l.a_addr(bt, i, kk), buf, eb);
                p.a[(bt * l.m + i) * l.k + kk] = load_element(buf, op.dtype, 0);
            }
        }
        for (uint64_t kk = 0; kk < l.k; ++kk) {
            for (uint64_t j = 0; j < l.n; ++j) {
                m_memory.read(l.b_addr(bt, kk, j), buf, eb);
                p.b[(bt * l.k + kk) * l.n + j] = load_element(buf, op.dtype, 0);
            }
        }
    }
    m_pending[op.id] = std::move(p);
}

void FunctionalCheck::on_complete(uint64_t op_id) {
    const auto it = m_pending.find(op_id);
    if (it == m_pending.end()) return;
    const Pending& p = it->second;
    const MatmulLayout& l = p.layout;
    const bool integer = is_integer_dtype(p.op.dtype);
    const double tolerance = integer
                                 ? 0.0
                                 : (l.c_bits == 16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -24)) +
                                       static_cast<double>(l.k) * std::ldexp(1.0, -24);
    m_max_tolerance = std::max(m_max_tolerance, tolerance);
    const DType out_type = integer ? DType::kInt32 : (l.c_bits == 16 ? DType::kBf16 : DType::kFp32);
    uint8_t buf[4];
    for (uint64_t bt = 0; bt < l.batch; ++bt) {
        for (uint64_t i = 0; i < l.m; ++i) {
            for (uint64_t j = 0; j < l.n; ++j) {
                double ref = 0, magnitude = 0;
                for (uint64_t kk = 0; kk < l.k; ++kk) {
                    const double prod =
                        p.a[(bt * l.m + i) * l.k + kk] * p.b[(bt * l.k + kk) * l.n + j];
                    ref += prod;
                    magnitude += std::fabs(prod);
                }
                m_memory.read(l.c_addr(bt, i, j), buf, l.c_bits / 8);
                double got = 0;
                if (out_type == DType::kInt32) {
                    int32_t v;
                    std::memcpy(&v, buf, 4);
                    got = v;
                } else {
                    got = load_element(buf, out_type, 0);
                }
                ++m_elements;
                const double error = std::fabs(got - ref);
                const double relative = magnitude > 0 ? error / magnitude : error;
                if (!integer) m_max_error = std::max(m_max_error, relative);
                if (integer ? got != ref : relative > tolerance) {
                    if (m_mismatches++ == 0) {
                        m_first_mismatch = fmt::format(
                            "op {} ({}): C[{}][{}][{}] = {} but the reference is {}", op_id,
                            p.op.name.empty() ? "matmul" : p.op.name, bt, i, j, got, ref);
                    }
                }
            }
        }
    }
    ++m_checked;
    m_pending.erase(it);
}

nlohmann::json FunctionalCheck::summary() const {
    return {{"matmuls_checked", m_checked},
            {"elements", m_elements},
            {"mismatches", m_mismatches},
            {"max_error_relative_to_sum_abs_products", m_max_error},
            {"tolerance", m_max_tolerance}};
}

}  // namespace asim
