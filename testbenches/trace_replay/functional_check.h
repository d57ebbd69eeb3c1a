// `ascend-sim run --functional`: small GEMMs computed for real and checked.
//
// When a matmul is dispatched, its input tensors that nothing has written yet are filled with
// seeded pseudo-random values (int8 over the full range; bf16 / fp16 / fp32 uniform in [-1, 1)),
// at the places the tiler's blocked layout (MatmulLayout) says; A and B are snapshot. The die then
// moves the bytes through its DMA (MTE2 loads, FixPipe stores) and the Cube computes each tile
// (models/chip/aicore/functional_cube.h). When the op completes, C is read back from the layout
// and compared with a double-precision reference matmul of the snapshots:
//  - integer inputs: every element exactly;
//  - floating point: |C - ref| <= tol x sum_k |A_ik B_kj| per element, tol = u_out + K x 2^-24
//    (u_out = 2^-8 for a bf16 output, 2^-24 for fp32): the output's rounding plus fp32
//    accumulation over K terms.
// Other ops run timed but move no data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/chip/aicore/tiling.h"
#include "models/chip/die/op_dispatcher.h"
#include "models/common/functional_memory.h"

namespace asim {

class FunctionalCheck : public OpObserver {
public:
    static constexpr uint64_t kMaxMacs = uint64_t{1} << 30;  // about 1024^3: reference matmul time

    explicit FunctionalCheck(FunctionalMemory& memory, uint64_t seed = 1)
        : m_memory(memory), m_seed(seed) {}

    void on_dispatch(const trace::Op& op, const OpPlan& plan) override;
    void on_complete(uint64_t op_id) override;

    uint64_t matmuls_checked() const { return m_checked; }
    uint64_t mismatches() const { return m_mismatches; }
    // The first mismatch, or "" when every element was within tolerance.
    const std::string& first_mismatch() const { return m_first_mismatch; }
    nlohmann::json summary() const;

private:
    struct Pending {
        trace::Op op;
        MatmulLayout layout;
        std::vector<double> a, b;  // batch x m x k, batch x k x n
    };
    void fill_if_untouched(const trace::Tensor& t, DType dtype, uint64_t op_id);

    FunctionalMemory& m_memory;
    uint64_t m_seed;
    std::map<uint64_t, Pending> m_pending;
    uint64_t m_checked = 0, m_elements = 0, m_mismatches = 0;
    double m_max_error = 0;  // relative to sum |a b|, floating point only
    double m_max_tolerance = 0;
    std::string m_first_mismatch;
};

}  // namespace asim
