// The unit of work of an engine pipeline: one tile's loads, compute and stores.
#pragma once

#include <array>
#include <cstdint>

#include "models/common/clock_domain.h"
#include "models/common/stream_class.h"

namespace asim {

struct MemAccess {
    uint64_t addr = 0;
    uint64_t bytes = 0;
    StreamClass stream = StreamClass::kGeneral;
};

struct Tile {
    static constexpr std::size_t kMaxLoads = 4;
    static constexpr std::size_t kMaxStores = 2;
    std::array<MemAccess, kMaxLoads> loads{};  // GM -> L1/UB (MTE2)
    std::size_t load_count = 0;
    std::array<MemAccess, kMaxStores> stores{};  // L0C/UB -> GM (FixPipe / MTE3)
    std::size_t store_count = 0;
    Cycles mte1_cycles = 0;  // L1 -> L0A/L0B
    Cycles cube_cycles = 0;  // fractal issue cycles
    Cycles c2v_cycles = 0;  // Cube <-> Vector direct path (L0C -> UB and UB -> L1), fused attention
    Cycles vector_cycles = 0;  // SIMD cycles
    // First tile that writes a fresh output buffer (L0C for the Cube, UB for the vector cores).
    // Such a tile cannot start until the block `output_buffers` blocks back has been stored.
    bool starts_output_block = true;
    // A matmul tile's shape (functional runs): A is rows x depth, B depth x cols, both row-major
    // at loads[0] / loads[1]; the output block (rows x cols) is stored with the last K step.
    uint32_t mm_rows = 0, mm_cols = 0, mm_depth = 0;
    // The stores accumulate into 32-bit values in GM (FixPipe's atomic add, done by the L2)
    // instead of overwriting them: the partial sums of a K split.
    bool atomic_add = false;
    // Element width of a matmul tile's stored block in functional runs; 0: the work's output_bits.
    uint32_t store_bits = 0;
    // What a vector tile does to real bytes in a functional run (timing is the same either way).
    enum class Function : uint8_t {
        kNone,
        kZeroFill,   // writes zeros over its stores
        kCastFrom32  // converts its load of 32-bit accumulators into its store's format
    };
    Function function = Function::kNone;

    void add_load(uint64_t addr, uint64_t bytes, StreamClass stream) {
        if (bytes) loads[load_count++] = {addr, bytes, stream};
    }
    void add_store(uint64_t addr, uint64_t bytes, StreamClass stream) {
        if (bytes) stores[store_count++] = {addr, bytes, stream};
    }
};

// Produces the tiles of one op's share on one engine, lazily, so memory does not grow with the
// op's size.
class TileSource {
public:
    virtual ~TileSource() = default;
    virtual bool next(Tile& tile) = 0;
};

}  // namespace asim
