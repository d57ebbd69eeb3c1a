// Foundation tiling: how an op becomes tiles on the AI cores' Cube pipelines (AIC) and vector
// pipelines (AIV). Simple and explicit, so that its timing is easy to check; the Compute issue
// replaces it with pluggable tilers (K split, FlashAttention variants, Cube-to-Vector path).
//
//  matmul     output blocks bm x bn (256 x 256 when L0C holds it, smaller when the op has too
//             few blocks to occupy every core), K in steps of bk (a 256 B row of the input
//             dtype, shrunk until the double-buffered A and B tiles fit L1); blocks dealt
//             round-robin to the AIC pipelines; the output is stored once per block.
//  attention  one work unit per (batch, head, 128-row Q tile), dealt round-robin to the AIC
//             pipelines; per 128-row K/V tile: Q K^T and P V on the Cube, online softmax on the
//             two vector cores of that AI core; causal masking skips K/V tiles wholly above the
//             diagonal.
//  vector ops elements (or whole rows) split evenly over all AIV pipelines, chunked so that
//             inputs and outputs of a chunk fill at most half the UB (double buffering).
//  memcpy     as a vector "copy" through the UB.
//
// Tensors are taken to be stored tile-contiguous (the blocked layout the MTEs produce), so a
// tile is one contiguous transfer at an address that depends only on the tile's coordinates:
// tiles re-read by several cores hit the same L2 lines, as they would in hardware.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "models/chip/aicore/aicore_params.h"
#include "models/chip/aicore/matrix_engine.h"
#include "models/chip/aicore/tile_pipeline.h"
#include "models/common/trace.h"

namespace asim {

// Where a matmul's tiles and elements live in the dense blocked layout they are read and written
// in: A in bm x bk blocks ordered (batch, block row, K step), B in bk x bn blocks ordered (batch,
// block column, K step), C in bm x bn blocks ordered (batch, block row, block column); each block
// row-major and only as large as it is (edge blocks are smaller), packed one after the other.
// Functional runs use it to put inputs where the tiles will read them and to find the results.
struct MatmulLayout {
    uint64_t batch = 1, m = 0, n = 0, k = 0;
    uint64_t bm = 0, bn = 0, bk = 0, mb = 0, nb = 0, kb = 0;
    uint32_t a_bits = 16, b_bits = 16, c_bits = 16;
    trace::Tensor a, b, c;
    // Byte addresses of the tiles: A block (bi, K step), B block (bj, K step), C block (bi, bj).
    uint64_t a_tile(uint64_t batch_index, uint64_t bi, uint64_t step) const;
    uint64_t b_tile(uint64_t batch_index, uint64_t bj, uint64_t step) const;
    uint64_t c_tile(uint64_t batch_index, uint64_t bi, uint64_t bj) const;
    // Byte addresses of elements A[b][i][kk], B[b][kk][j], C[b][i][j].
    uint64_t a_addr(uint64_t batch_index, uint64_t i, uint64_t kk) const;
    uint64_t b_addr(uint64_t batch_index, uint64_t kk, uint64_t j) const;
    uint64_t c_addr(uint64_t batch_index, uint64_t i, uint64_t j) const;

private:
    static uint64_t place(const trace::Tensor& t, uint64_t elements_before, uint32_t bits, uint64_t tile_elements);
};

struct OpPlan {
    // One entry per AIC pipeline and per AIV pipeline; an entry without tiles gets no work.
    std::vector<PipelineWork> cube_work;
    std::vector<PipelineWork> vector_work;
    std::optional<MatmulLayout> matmul_layout;  // matmul ops
};

class FoundationTiler {
public:
    FoundationTiler(const AiCoreParams& core, uint32_t ai_cores);

    // Throws InputError ("op N (kind): why") when the op cannot run on this die (a dtype the
    // matrix engine does not take, missing tensors, a tiling that does not fit the buffers,
    // collectives on a single die); the caller adds file and line.
    OpPlan plan(const trace::Op& op) const;

private:
    OpPlan plan_matmul(const trace::Op& op) const;
    OpPlan plan_attention(const trace::Op& op) const;
    OpPlan plan_vector(const trace::Op& op, const char* func, uint64_t elements, uint64_t row) const;

    const AiCoreParams& m_core;
    uint32_t m_ai_cores;
    std::unique_ptr<MatrixEngine> m_engine;  // computes the Cube stage's cycles per tile
};

}  // namespace asim
