// Tiling: how an op becomes tiles on the AI cores' Cube pipelines (AIC) and vector pipelines
// (AIV). README.md ("Tiling") explains each choice; in short:
//
//  matmul     output blocks bm x bn (256 x 256 when L0C holds it, smaller when the op has too
//             few blocks to occupy every core), K in steps of bk (a 256 B row of the input
//             dtype, shrunk until the double-buffered A and B tiles fit L1), accumulated in L0C;
//             blocks dealt round-robin to the AIC pipelines, row-major or, when that shrinks
//             what a wave of concurrent blocks reads from HBM, in groups of block rows taken
//             column by column (CATLASS's block swizzle; tiling.cpp, choose_group_rows). How the
//             blocks are scheduled is chosen by name (die.aicore.tiling.matmul):
//               blocked  every block whole on one core (the last wave may leave cores idle);
//               split_k  (default) full waves whole, and the K steps of the blocks of a last,
//                        partial wave spread evenly over all the cores when the cost model says
//                        it pays (Stream-K's hybrid): the partial sums are added in GM by
//                        FixPipe's atomic add into 32-bit accumulators, zero-filled before
//                        (prologue) and converted to C's format after (epilogue) by the vector
//                        cores, as Ascend's multi-core split-K does.
//  attention  one work unit per (batch, head, Q tile), dealt round-robin to the AIC pipelines;
//             per K/V tile: Q K^T and P V on the Cube, S over the direct Cube-to-Vector path
//             (L0C -> UB) to the online softmax on the core's two vector cores and P back
//             (UB -> L1); causal masking skips K/V tiles wholly above the diagonal.
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
#include <string>
#include <utility>
#include <vector>

#include "models/chip/aicore/aicore_params.h"
#include "models/chip/aicore/matrix_engine.h"
#include "models/chip/aicore/tile_pipeline.h"
#include "models/common/registry.h"
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
    static uint64_t place(const trace::Tensor& t, uint64_t elements_before, uint32_t bits,
                          uint64_t tile_elements);
};

// Work for every engine: one entry per AIC pipeline and per AIV pipeline; an entry without
// tiles gets no work. A stage ends when every engine has finished its share.
struct PlanStage {
    std::vector<PipelineWork> cube_work;
    std::vector<PipelineWork> vector_work;
};

struct OpPlan {
    // The op's main stage.
    std::vector<PipelineWork> cube_work;
    std::vector<PipelineWork> vector_work;
    // Stages run one after the other: the prologue to completion, then the main stage, then the
    // epilogue (a K split zero-fills its accumulators first and converts them after).
    std::optional<PlanStage> prologue, epilogue;
    std::optional<MatmulLayout> matmul_layout;  // matmul ops
};

// How a matmul's output blocks are dealt to the cores: the first `whole_blocks` each on one
// core, round-robin; the K steps of the rest (when `split_rest`) spread evenly over all cores.
struct MatmulSchedule {
    uint64_t whole_blocks = 0;
    bool split_rest = false;
};

// What a matmul scheduler weighs, in cycles of one core.
struct MatmulCost {
    uint64_t blocks = 0;        // output blocks (batch x block rows x block columns)
    uint32_t cores = 0;         // AIC pipelines
    uint64_t k_steps = 0;       // K steps per block
    double step_cycles = 0;     // one K step of a full block: max(Cube, MTE2 load)
    double partial_cycles = 0;  // storing one block's 32-bit partial sums with atomic add
    double fixup_cycles = 0;    // zero-fill and conversion of one split block, all vector cores
    double stage_cycles = 0;    // latency of one extra stage (its first transfer, the barrier)
};
// How a matmul's blocks are spread over the cores, chosen by name (die.aicore.tiling.matmul)
// from matmul_scheduler_registry().
class MatmulScheduler {
public:
    virtual ~MatmulScheduler() = default;
    virtual MatmulSchedule schedule(const MatmulCost& cost) const = 0;
};
Registry<MatmulScheduler>& matmul_scheduler_registry();
MatmulSchedule schedule_blocked(const MatmulCost& cost);
MatmulSchedule schedule_split_k(const MatmulCost& cost);

// Where a K split keeps its 32-bit partial sums when C is narrower: a region of GM the die
// reserves (the top of HBM), large enough for one accumulator block per core.
struct Workspace {
    uint64_t addr = 0;
    uint64_t bytes = 0;
};

class Tiler {
public:
    Tiler(const AiCoreParams& core, uint32_t ai_cores, Workspace workspace = {});

    // Throws InputError ("op N (kind): why") when the op cannot run on this die (a dtype the
    // matrix engine does not take, missing tensors, a tiling that does not fit the buffers,
    // collectives on a single die); the caller adds file and line.
    OpPlan plan(const trace::Op& op) const;
    const std::string& matmul_scheduler() const { return m_scheduler_name; }

private:
    OpPlan plan_matmul(const trace::Op& op) const;
    OpPlan plan_attention(const trace::Op& op) const;
    OpPlan plan_vector(const trace::Op& op, const char* func, uint64_t elements,
                       uint64_t row) const;

    const AiCoreParams& m_core;
    uint32_t m_ai_cores;
    Workspace m_workspace;
    std::unique_ptr<MatrixEngine> m_engine;  // computes the Cube stage's cycles per tile
    std::string m_scheduler_name;
    std::unique_ptr<MatmulScheduler> m_scheduler;
};

}  // namespace asim
