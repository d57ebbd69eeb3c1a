#include "models/chip/aicore/tiling.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "models/common/errors.h"

namespace asim {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t round_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }
uint64_t bytes_of(uint64_t elements, uint32_t bits) { return ceil_div(elements * bits, 8); }

[[noreturn]] void refuse(const trace::Op& op, const std::string& why) {
    throw InputError("op " + std::to_string(op.id) + " (" + std::string(trace::to_string(op.kind)) +
                     "): " + why);
}

// Refuses `op` unless the product of `dims` (its MACs) times 8 fits in 63 bits: FLOPs (x 2) and
// byte counts of 32-bit elements (x 4) must not wrap the 64-bit counters and addresses.
void refuse_overflow(const trace::Op& op, std::initializer_list<uint64_t> dims, const char* what) {
    uint64_t product = 8;
    for (uint64_t d : dims) {
        if (__builtin_mul_overflow(product, d, &product) || product >= (uint64_t{1} << 63)) {
            refuse(op, std::string("dimensions overflow: ") + what + " x 8 must fit in 63 bits");
        }
    }
}

// Address of tile `index` of size `bytes` inside `t`, wrapping inside the tensor.
uint64_t tile_addr(const trace::Tensor& t, uint64_t index, uint64_t bytes) {
    if (t.bytes <= bytes) return t.addr;
    return t.addr + (index * bytes) % (t.bytes - bytes + 1);
}

// Storage bits per element of `t` when it holds `elements` (at least 4, at most 32).
uint32_t tensor_bits(const trace::Tensor& t, uint64_t elements, uint32_t fallback) {
    if (elements == 0) return fallback;
    const uint64_t bits = t.bytes * 8 / elements;
    return static_cast<uint32_t>(std::clamp<uint64_t>(bits, 4, 32));
}

struct MatmulGeometry {
    uint64_t batch, m, n, k;
    uint64_t bm, bn, bk;
    uint64_t mb, nb, kb;  // block counts
    uint32_t a_bits, b_bits, c_bits;
    uint64_t group_rows;  // block order (block_of): 0 row-major, else rows per group
    CubeFractal f;        // tile layout unit
    const MatrixEngine* engine;
    DType dtype;
    double l1_to_l0a, l1_to_l0b;
    trace::Tensor a, b, c;
};

struct BlockCoord {
    uint64_t batch, bi, bj;
};

// Output block `index` of the order the cores take blocks in (core c takes c, c + cores, ...).
// Row-major when group_rows is 0. Otherwise the grouped order of CATLASS's
// GemmIdentityBlockSwizzle (direction Zn): groups of group_rows block rows (the last group
// keeps the rest), column by column inside a group, every second group's columns right to left
// so that a group starts on the B columns the previous one ended on.
BlockCoord block_of(uint64_t mb, uint64_t nb, uint64_t group_rows, uint64_t index) {
    const uint64_t per_batch = mb * nb;
    const uint64_t batch = index / per_batch, local = index % per_batch;
    if (group_rows == 0) return {batch, local / nb, local % nb};
    const uint64_t group = local / (group_rows * nb), in_group = local % (group_rows * nb);
    const uint64_t first_row = group * group_rows;
    const uint64_t rows = std::min(group_rows, mb - first_row);
    const uint64_t column = in_group / rows;
    return {batch, first_row + in_group % rows, group % 2 == 1 ? nb - 1 - column : column};
}

BlockCoord block_of(const MatmulGeometry& g, uint64_t index) {
    return block_of(g.mb, g.nb, g.group_rows, index);
}

// The block order that reads least from HBM. The cores take consecutive blocks, so `cores`
// consecutive blocks (a wave) run at about the same time and step through K together: at each
// K step the wave reads the A tile of every block row and the B tile of every block column it
// covers, each once from HBM and then from the L2 for the wave's other blocks, while the L2
// cannot keep a panel from one wave to the next once the operands exceed it. A wave therefore
// fetches about (rows x A panel + columns x B panel), and row-major order makes a wave of a
// wide matrix cover every column: the whole of B once per wave, HBM traffic growing as n^4 for
// n x n x n (a 16384^3 bf16 GEMM read 29.4 GiB of its 1 GiB of operands, and the L2's MSHRs
// saturated). Grouping block rows bounds a wave's footprint (9 rows x 8 columns of 72 blocks):
// traffic grows as the work, n^3. Chooses, over the first kOrderWaves waves, the group height
// with the smallest summed footprint, row-major unless a grouping is strictly smaller.
constexpr uint64_t kOrderWaves = 16;

uint64_t choose_group_rows(uint64_t mb, uint64_t nb, uint64_t cores, double a_panel,
                           double b_panel) {
    if (cores < 2 || mb < 2 || nb < 2 || mb * nb <= cores) return 0;  // one wave: order is moot
    const uint64_t blocks = std::min(mb * nb, kOrderWaves * cores);
    std::vector<uint64_t> row_wave(mb), col_wave(nb);
    auto footprint = [&](uint64_t group_rows) {
        std::fill(row_wave.begin(), row_wave.end(), ~uint64_t{0});
        std::fill(col_wave.begin(), col_wave.end(), ~uint64_t{0});
        double bytes = 0;
        for (uint64_t i = 0; i < blocks; ++i) {
            const BlockCoord b = block_of(mb, nb, group_rows, i);
            const uint64_t wave = i / cores;
            if (row_wave[b.bi] != wave) {
                row_wave[b.bi] = wave;
                bytes += a_panel;
            }
            if (col_wave[b.bj] != wave) {
                col_wave[b.bj] = wave;
                bytes += b_panel;
            }
        }
        return bytes;
    };
    uint64_t best = 0;
    double best_bytes = footprint(0);
    for (uint64_t rows = 1; rows <= std::min(mb, cores); ++rows) {
        const double bytes = footprint(rows);
        if (bytes < best_bytes) {
            best = rows;
            best_bytes = bytes;
        }
    }
    return best;
}

MatmulLayout layout_of(const MatmulGeometry& g) {
    MatmulLayout l;
    l.batch = g.batch;
    l.m = g.m;
    l.n = g.n;
    l.k = g.k;
    l.bm = g.bm;
    l.bn = g.bn;
    l.bk = g.bk;
    l.mb = g.mb;
    l.nb = g.nb;
    l.kb = g.kb;
    l.a_bits = g.a_bits;
    l.b_bits = g.b_bits;
    l.c_bits = g.c_bits;
    l.a = g.a;
    l.b = g.b;
    l.c = g.c;
    return l;
}

// The blocks of a last, partial wave cut along K: blocks [first, first + count), whose
// count x kb K steps are spread evenly over all the cores (core c takes steps [I c / P,
// I (c + 1) / P) of I = count x kb in block order, so a core's range may end one block and start
// the next). Each piece's partial sums go, by atomic add, to 32-bit accumulators at
// `accumulators` (split block i at accumulators + i x bm x bn x 4), or into C itself (`into_c`).
struct MatmulSplit {
    uint64_t first = 0, count = 0;
    uint64_t accumulators = 0;
    bool into_c = false;
};

// One AIC pipeline's share of a matmul: whole blocks core, core + stride, ... below
// split.first, then its range of the split blocks' K steps.
class MatmulTiles : public TileSource {
public:
    MatmulTiles(const MatmulGeometry& g, const MatmulSplit& split, uint64_t core, uint64_t cores)
        : m_g(g), m_layout(layout_of(g)), m_split(split), m_block(core), m_stride(cores) {
        const uint64_t steps = split.count * g.kb;
        m_step = steps * core / cores;
        m_step_end = steps * (core + 1) / cores;
        m_in_split = m_block >= m_split.first;
        if (m_in_split) enter_split_step();
    }

    bool next(Tile& tile) override {
        if (m_in_split && m_step >= m_step_end) return false;
        const auto [batch, bi, bj] = block_of(m_g, m_block);
        const uint64_t rows = std::min(m_g.bm, m_g.m - bi * m_g.bm);
        const uint64_t cols = std::min(m_g.bn, m_g.n - bj * m_g.bn);
        const uint64_t depth = std::min(m_g.bk, m_g.k - m_k * m_g.bk);
        const uint64_t a_bytes = bytes_of(rows * depth, m_g.a_bits);
        const uint64_t b_bytes = bytes_of(depth * cols, m_g.b_bits);
        tile.add_load(m_layout.a_tile(batch, bi, m_k), a_bytes, m_g.a.stream);
        tile.add_load(m_layout.b_tile(batch, bj, m_k), b_bytes, m_g.b.stream);
        tile.mte1_cycles =
            std::max(static_cast<Cycles>(static_cast<double>(a_bytes) / m_g.l1_to_l0a + 0.999),
                     static_cast<Cycles>(static_cast<double>(b_bytes) / m_g.l1_to_l0b + 0.999));
        tile.cube_cycles = m_g.engine->cycles(rows, cols, depth, m_g.dtype);
        tile.starts_output_block = m_first_step;
        tile.mm_rows = static_cast<uint32_t>(rows);
        tile.mm_cols = static_cast<uint32_t>(cols);
        tile.mm_depth = static_cast<uint32_t>(depth);
        m_first_step = false;
        if (m_in_split) {
            ++m_step;
            if (m_step < m_step_end && m_step % m_g.kb != 0) {
                ++m_k;
                return true;
            }
            // The piece ends: FixPipe adds its 32-bit partial sums to the block's accumulators.
            tile.add_store(m_split.into_c ? m_layout.c_tile(batch, bi, bj)
                                          : m_split.accumulators +
                                                (m_block - m_split.first) * m_g.bm * m_g.bn * 4,
                           rows * cols * 4, m_g.c.stream);
            tile.atomic_add = true;
            tile.store_bits = 32;
            if (m_step < m_step_end) enter_split_step();
            return true;
        }
        if (++m_k < m_g.kb) return true;
        tile.add_store(m_layout.c_tile(batch, bi, bj), bytes_of(rows * cols, m_g.c_bits),
                       m_g.c.stream);
        m_block += m_stride;
        m_k = 0;
        m_first_step = true;
        if (m_block >= m_split.first) {
            m_in_split = true;
            if (m_step < m_step_end) enter_split_step();
        }
        return true;
    }

private:
    // Block and K step of split step m_step; a new piece (a new output block in L0C) starts.
    void enter_split_step() {
        m_block = m_split.first + m_step / m_g.kb;
        m_k = m_step % m_g.kb;
        m_first_step = true;
    }

    MatmulGeometry m_g;
    MatmulLayout m_layout;
    MatmulSplit m_split;
    uint64_t m_block;
    uint64_t m_stride;
    uint64_t m_step = 0, m_step_end = 0;  // this core's range of the split blocks' K steps
    uint64_t m_k = 0;
    bool m_in_split = false;
    bool m_first_step = true;
};

// The vector stages around a K split, one AIV pipeline's share of the split blocks' rows:
// zero-filling the 32-bit accumulators before (kZeroFill), or converting them into C's format
// after (kCastFrom32), in row chunks that fit half the UB.
class SplitFixupTiles : public TileSource {
public:
    SplitFixupTiles(const MatmulGeometry& g, const MatmulSplit& split, Tile::Function function,
                    uint64_t row_begin, uint64_t row_end, uint64_t chunk_rows,
                    const AiCoreParams* core)
        : m_g(g),
          m_layout(layout_of(g)),
          m_split(split),
          m_function(function),
          m_row(row_begin),
          m_end(row_end),
          m_chunk(chunk_rows),
          m_core(core) {}

    bool next(Tile& tile) override {
        if (m_row >= m_end) return false;
        // Rows are numbered over the split blocks: block (row / bm), row (row % bm) of it.
        const uint64_t index = m_row / m_g.bm, r0 = m_row % m_g.bm;
        const auto [batch, bi, bj] = block_of(m_g, m_split.first + index);
        const uint64_t rows_in_block = std::min(m_g.bm, m_g.m - bi * m_g.bm);
        const uint64_t cols = std::min(m_g.bn, m_g.n - bj * m_g.bn);
        const uint64_t rows = std::min({m_chunk, m_g.bm - r0, m_end - m_row});
        const uint64_t used = r0 >= rows_in_block
                                  ? 0
                                  : std::min(rows, rows_in_block - r0);  // edge blocks are shorter
        m_row += rows;
        if (used == 0) return next(tile);
        const uint64_t acc =
            m_split.into_c ? m_layout.c_tile(batch, bi, bj) + r0 * cols * 4
                           : m_split.accumulators + index * m_g.bm * m_g.bn * 4 + r0 * cols * 4;
        const uint64_t elements = used * cols;
        if (m_function == Tile::Function::kZeroFill) {
            tile.add_store(acc, elements * 4, m_g.c.stream);
            tile.vector_cycles = m_core->vector_cycles("copy", elements, 4);
        } else {
            tile.add_load(acc, elements * 4, m_g.c.stream);
            tile.add_store(m_layout.c_tile(batch, bi, bj) + bytes_of(r0 * cols, m_g.c_bits),
                           bytes_of(elements, m_g.c_bits), m_g.c.stream);
            tile.vector_cycles = m_core->vector_cycles("cast", elements, 4);
            tile.store_bits = m_g.c_bits;
        }
        tile.function = m_function;
        tile.starts_output_block = true;
        return true;
    }

private:
    MatmulGeometry m_g;
    MatmulLayout m_layout;
    MatmulSplit m_split;
    Tile::Function m_function;
    uint64_t m_row, m_end, m_chunk;
    const AiCoreParams* m_core;
};

}  // namespace

// Tiles sit where a dense blocked layout puts them: each block right after the previous one,
// edge blocks only as large as they are, so the blocks of a tensor of exactly m x k (k x n,
// m x n) elements fill it without gaps or overlaps. A tensor smaller than that (a trace that
// sized it for another dtype) wraps, for timing only.
uint64_t MatmulLayout::place(const trace::Tensor& t, uint64_t elements_before, uint32_t bits,
                             uint64_t tile_elements) {
    const uint64_t offset = bytes_of(elements_before, bits), bytes = bytes_of(tile_elements, bits);
    if (offset + bytes <= t.bytes) return t.addr + offset;
    return t.bytes <= bytes ? t.addr : t.addr + offset % (t.bytes - bytes + 1);
}

uint64_t MatmulLayout::a_tile(uint64_t batch_index, uint64_t bi, uint64_t step) const {
    const uint64_t rows = std::min(bm, m - bi * bm), depth = std::min(bk, k - step * bk);
    return place(a, batch_index * m * k + bi * bm * k + rows * step * bk, a_bits, rows * depth);
}

uint64_t MatmulLayout::b_tile(uint64_t batch_index, uint64_t bj, uint64_t step) const {
    const uint64_t cols = std::min(bn, n - bj * bn), depth = std::min(bk, k - step * bk);
    return place(b, batch_index * k * n + bj * bn * k + cols * step * bk, b_bits, depth * cols);
}

uint64_t MatmulLayout::c_tile(uint64_t batch_index, uint64_t bi, uint64_t bj) const {
    const uint64_t rows = std::min(bm, m - bi * bm), cols = std::min(bn, n - bj * bn);
    return place(c, batch_index * m * n + bi * bm * n + rows * bj * bn, c_bits, rows * cols);
}

uint64_t MatmulLayout::a_addr(uint64_t batch_index, uint64_t i, uint64_t kk) const {
    const uint64_t bi = i / bm, step = kk / bk;
    const uint64_t depth = std::min(bk, k - step * bk);
    return a_tile(batch_index, bi, step) + ((i - bi * bm) * depth + (kk - step * bk)) * a_bits / 8;
}

uint64_t MatmulLayout::b_addr(uint64_t batch_index, uint64_t kk, uint64_t j) const {
    const uint64_t bj = j / bn, step = kk / bk;
    const uint64_t cols = std::min(bn, n - bj * bn);
    return b_tile(batch_index, bj, step) + ((kk - step * bk) * cols + (j - bj * bn)) * b_bits / 8;
}

uint64_t MatmulLayout::c_addr(uint64_t batch_index, uint64_t i, uint64_t j) const {
    const uint64_t bi = i / bm, bj = j / bn;
    const uint64_t cols = std::min(bn, n - bj * bn);
    return c_tile(batch_index, bi, bj) + ((i - bi * bm) * cols + (j - bj * bn)) * c_bits / 8;
}

namespace {

struct AttentionGeometry {
    trace::AttentionShape s;
    uint64_t q_tile = 128, kv_tile = 128;
    uint64_t q_tiles, kv_tiles;
    // Query heads stacked into one Q tile (their rows one above the other): the heads that share
    // a K/V head, when their queries are fewer than a tile's rows (decode, short chunks). 1: a Q
    // tile holds rows of one head.
    uint64_t packed_heads = 1;
    uint32_t bits;
    const MatrixEngine* engine;
    DType dtype;
    const AiCoreParams* core;
    uint32_t vector_cores;
    double l0c_to_ub, ub_to_l1;
    trace::Tensor q, k, v, o;
};

class AttentionTiles : public TileSource {
public:
    AttentionTiles(const AttentionGeometry& g, uint64_t first_unit, uint64_t stride)
        : m_g(g), m_unit(first_unit), m_stride(stride) {}

    // The units of work: one per Q tile of a head, or with packing one per group of packed heads.
    static uint64_t units(const AttentionGeometry& g) {
        const auto& s = g.s;
        if (g.packed_heads > 1) return s.batch * ceil_div(s.heads, g.packed_heads);
        return s.batch * s.heads * g.q_tiles;
    }

    bool next(Tile& tile) override {
        const auto& s = m_g.s;
        while (true) {
            if (m_unit >= units(m_g)) return false;
            if (m_kv < kv_limit()) break;
            m_unit += m_stride;
            m_kv = 0;
        }
        uint64_t head, batch, q_rows, q_tile_bytes;
        if (m_g.packed_heads > 1) {
            // Packed: the unit's heads (all of one K/V head's group: packed_heads divides it),
            // every query of each.
            const uint64_t groups = ceil_div(s.heads, m_g.packed_heads);
            head = m_unit % groups * m_g.packed_heads;
            batch = m_unit / groups;
            q_rows = std::min(m_g.packed_heads, s.heads - head) * s.q_len;
            q_tile_bytes = bytes_of(m_g.packed_heads * s.q_len * s.head_dim, m_g.bits);
        } else {
            const uint64_t qt = m_unit % m_g.q_tiles;
            head = m_unit / m_g.q_tiles % s.heads;
            batch = m_unit / m_g.q_tiles / s.heads;
            q_rows = std::min(m_g.q_tile, s.q_len - qt * m_g.q_tile);
            q_tile_bytes = bytes_of(m_g.q_tile * s.head_dim, m_g.bits);
        }
        const uint64_t kv_head = head / (s.heads / s.kv_heads);
        const uint64_t kv_rows = std::min(m_g.kv_tile, s.kv_len - m_kv * m_g.kv_tile);
        const uint64_t d = s.head_dim;
        const uint64_t kv_tile_bytes = bytes_of(m_g.kv_tile * d, m_g.bits);
        const uint64_t kv_index = (batch * s.kv_heads + kv_head) * m_g.kv_tiles + m_kv;
        if (m_kv == 0) {
            tile.add_load(tile_addr(m_g.q, m_unit, q_tile_bytes), bytes_of(q_rows * d, m_g.bits),
                          m_g.q.stream);
        }
        tile.add_load(tile_addr(m_g.k, kv_index, kv_tile_bytes), bytes_of(kv_rows * d, m_g.bits),
                      m_g.k.stream);
        tile.add_load(tile_addr(m_g.v, kv_index, kv_tile_bytes), bytes_of(kv_rows * d, m_g.bits),
                      m_g.v.stream);
        // S = Q K^T ([q_rows x d] x [d x kv_rows]), then O += P V ([q_rows x kv_rows] x [kv_rows x
        // d]).
        tile.cube_cycles = m_g.engine->cycles(q_rows, kv_rows, d, m_g.dtype) +
                           m_g.engine->cycles(q_rows, d, kv_rows, m_g.dtype);
        tile.mte1_cycles = 0;  // K and V go L1 -> L0B while the Cube works on the previous tile
        // The direct Cube-to-Vector path: the fp32 scores S from L0C to the UB, the
        // probabilities P (input dtype) from the UB back to L1 for P V.
        tile.c2v_cycles = static_cast<Cycles>(
            std::ceil(static_cast<double>(q_rows * kv_rows * 4) / m_g.l0c_to_ub) +
            std::ceil(static_cast<double>(bytes_of(q_rows * kv_rows, m_g.bits)) / m_g.ub_to_l1));
        // Online softmax over the q_rows x kv_rows scores, in fp32, split over the AIVs.
        tile.vector_cycles = ceil_div(m_g.core->vector_cycles("softmax", q_rows * kv_rows, 4),
                                      std::max<uint32_t>(1, m_g.vector_cores));
        tile.starts_output_block = m_kv == 0;
        if (++m_kv == kv_limit()) {
            tile.add_store(tile_addr(m_g.o, m_unit, q_tile_bytes), bytes_of(q_rows * d, m_g.bits),
                           m_g.o.stream);
        }
        return true;
    }

private:
    // K/V tiles this unit's Q tile attends to.
    uint64_t kv_limit() const {
        const auto& s = m_g.s;
        // A packed tile holds every query of its heads, the last of which sees every key.
        if (!s.causal || m_g.packed_heads > 1) return m_g.kv_tiles;
        const uint64_t qt = m_unit % m_g.q_tiles;
        const uint64_t last_q = std::min(s.q_len, (qt + 1) * m_g.q_tile);  // exclusive
        // Query i (0-based) sees keys [0, kv_len - q_len + i].
        const uint64_t keys = s.kv_len - s.q_len + last_q;
        return std::min(m_g.kv_tiles, ceil_div(keys, m_g.kv_tile));
    }

    AttentionGeometry m_g;
    uint64_t m_unit;
    uint64_t m_stride;
    uint64_t m_kv = 0;
};

class VectorTiles : public TileSource {
public:
    VectorTiles(std::vector<trace::Tensor> ins, std::vector<trace::Tensor> outs, uint64_t total,
                uint64_t begin, uint64_t end, uint64_t chunk, const AiCoreParams* core,
                std::string func, uint32_t bits)
        : m_ins(std::move(ins)),
          m_outs(std::move(outs)),
          m_total(total),
          m_pos(begin),
          m_end(end),
          m_chunk(chunk),
          m_core(core),
          m_func(std::move(func)),
          m_bits(bits) {}

    bool next(Tile& tile) override {
        if (m_pos >= m_end) return false;
        const uint64_t n = std::min(m_chunk, m_end - m_pos);
        for (const auto& t : m_ins) {
            tile.add_load(t.addr + share(t.bytes, m_pos),
                          share(t.bytes, m_pos + n) - share(t.bytes, m_pos), t.stream);
        }
        for (const auto& t : m_outs) {
            tile.add_store(t.addr + share(t.bytes, m_pos),
                           share(t.bytes, m_pos + n) - share(t.bytes, m_pos), t.stream);
        }
        tile.vector_cycles = m_core->vector_cycles(m_func, n, std::max<uint32_t>(1, m_bits / 8));
        tile.starts_output_block = true;
        m_pos += n;
        return true;
    }

private:
    // Byte offset in a tensor of `bytes` that corresponds to element `e` of the op.
    uint64_t share(uint64_t bytes, uint64_t e) const {
        return static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) * e / m_total);
    }
    std::vector<trace::Tensor> m_ins, m_outs;
    uint64_t m_total, m_pos, m_end, m_chunk;
    const AiCoreParams* m_core;
    std::string m_func;
    uint32_t m_bits;
};

// The layout unit of op's operands in L1/L0: the Cube fractal of its dtype, whichever engine
// computes; refuses the op when the matrix engine does not take its dtype.
CubeFractal fractal_for(const AiCoreParams& core, const MatrixEngine& engine, const trace::Op& op) {
    if (!engine.supports(op.dtype)) refuse(op, engine.unsupported_reason(op.dtype));
    const auto it = core.cube_fractals.find(op.dtype);
    if (it != core.cube_fractals.end()) return it->second;
    // A dtype only the systolic engine takes: 16 x (32 B of elements) x 16, as the Cube's are.
    const uint32_t k = std::max<uint32_t>(1, 256 / dtype_bits(op.dtype));
    return CubeFractal{16, k, 16};
}

}  // namespace

Registry<MatmulScheduler>& matmul_scheduler_registry() {
    static Registry<MatmulScheduler> registry("matmul scheduler");
    return registry;
}

namespace {
// A scheduler that is one function of the cost.
template <MatmulSchedule (*Schedule)(const MatmulCost&)>
class FunctionScheduler final : public MatmulScheduler {
public:
    MatmulSchedule schedule(const MatmulCost& cost) const override { return Schedule(cost); }
};
}  // namespace

ASIM_REGISTER(matmul_scheduler_registry(), blocked, "whole blocks in waves over the cores", {},
              [](const ParamValues&) {
                  return std::make_unique<FunctionScheduler<schedule_blocked>>();
              });
ASIM_REGISTER(
    matmul_scheduler_registry(), split_k,
    "whole waves, then the K steps of a last partial wave spread over every core with atomic adds "
    "in GM when that is sooner (Stream-K hybrid)",
    {}, [](const ParamValues&) { return std::make_unique<FunctionScheduler<schedule_split_k>>(); });

MatmulSchedule schedule_blocked(const MatmulCost& cost) { return {cost.blocks, false}; }

// Whole waves stay whole; the K steps of the r blocks of a last, partial wave are spread evenly
// over all the cores (the data-parallel + one-wave Stream-K hybrid: Osama et al., "Stream-K",
// PPoPP 2023) when that finishes sooner than a last wave of whole blocks, counting the partial
// sums' atomic stores (a core's range may touch two blocks) and the two extra stages.
MatmulSchedule schedule_split_k(const MatmulCost& cost) {
    const MatmulSchedule whole{cost.blocks, false};
    if (cost.cores < 2 || cost.k_steps < 2) return whole;
    const uint64_t waves = cost.blocks / cost.cores, rest = cost.blocks % cost.cores;
    if (rest == 0) return whole;
    const uint64_t steps_per_core = ceil_div(rest * cost.k_steps, cost.cores);
    const uint64_t pieces_per_core = steps_per_core >= cost.k_steps ? 1 : 2;
    const double last_whole = static_cast<double>(cost.k_steps) * cost.step_cycles;
    const double last_split = static_cast<double>(steps_per_core) * cost.step_cycles +
                              static_cast<double>(pieces_per_core) * cost.partial_cycles +
                              static_cast<double>(rest) * cost.fixup_cycles + 2 * cost.stage_cycles;
    if (last_split >= last_whole) return whole;
    return {waves * cost.cores, true};
}

namespace {
// Latency of one extra stage of an op, for the split-K decision only: its first L2 round trip
// and the barrier between stages (estimate: a few hundred cycles, about one L2 miss).
constexpr double kStageCycles = 500;
}  // namespace

Tiler::Tiler(const AiCoreParams& core, uint32_t ai_cores, Workspace workspace)
    : m_core(core),
      m_ai_cores(ai_cores),
      m_workspace(workspace),
      m_engine(make_matrix_engine(core)),
      m_scheduler_name(core.matmul_scheduler) {
    if (!matmul_scheduler_registry().contains(m_scheduler_name)) {
        throw ConfigError("die.aicore.tiling.matmul: " +
                          matmul_scheduler_registry().unknown_message(m_scheduler_name));
    }
    m_scheduler = matmul_scheduler_registry().make(m_scheduler_name, {});
}

OpPlan Tiler::plan(const trace::Op& op) const {
    switch (op.kind) {
        case trace::OpKind::kMatmul:
            return plan_matmul(op);
        case trace::OpKind::kFusedAttention:
            return plan_attention(op);
        case trace::OpKind::kElementwise:
        case trace::OpKind::kActivation:
        case trace::OpKind::kNorm:
        case trace::OpKind::kSoftmax:
        case trace::OpKind::kReduce:
            return plan_vector(
                op, op.vector.func.c_str(), op.vector.elements(),
                op.kind == trace::OpKind::kElementwise || op.kind == trace::OpKind::kActivation
                    ? 1
                    : op.vector.cols);
        case trace::OpKind::kMemcpy:
            // Element = byte: the copy streams copy_bytes through the UBs.
            return plan_vector(op, "copy", std::max<uint64_t>(1, op.copy_bytes), 1);
        case trace::OpKind::kCollective:
            refuse(op, "collectives need a supernode platform; a single die cannot run them");
    }
    refuse(op, "unsupported op kind");
}

namespace {

// The output block (bm x bn) and K step (bk) that fit the core's buffers, and the block counts;
// refuses the op when no tiling fits.
void size_matmul_blocks(const trace::Op& op, const AiCoreParams& core, uint32_t ai_cores,
                        MatmulGeometry& g) {
    const auto& s = op.matmul;
    const uint32_t bits = g.a_bits;
    // Output block: as large as L0C allows (fp32 accumulators), up to 256 x 256.
    g.bm = std::min<uint64_t>(256, round_up(s.m, g.f.m));
    g.bn = std::min<uint64_t>(256, round_up(s.n, g.f.n));
    while (g.bm * g.bn * 4 > core.l0c_bytes && g.bn > g.f.n) g.bn /= 2;
    while (g.bm * g.bn * 4 > core.l0c_bytes && g.bm > g.f.m) g.bm /= 2;
    // Too few blocks to occupy every core: shrink blocks (N first) down to 64.
    auto blocks = [&] { return s.batch * ceil_div(s.m, g.bm) * ceil_div(s.n, g.bn); };
    while (blocks() < ai_cores && (g.bn > 64 || g.bm > 64)) {
        if (g.bn >= g.bm && g.bn > 64) {
            g.bn /= 2;
        } else {
            g.bm /= 2;
        }
    }
    // K step: one 256 B row of the input dtype, shrunk until double-buffered A and B fit L1.
    g.bk = std::max<uint64_t>(g.f.k, 256 * 8 / bits);
    while (2 * bytes_of((g.bm + g.bn) * g.bk, bits) > core.l1_bytes && g.bk > g.f.k) g.bk /= 2;
    // MTE1 moves a whole A (bm x bk) and B (bk x bn) tile into L0A / L0B.
    while ((bytes_of(g.bm * g.bk, bits) > core.l0a_bytes ||
            bytes_of(g.bk * g.bn, bits) > core.l0b_bytes) &&
           g.bk > g.f.k) {
        g.bk /= 2;
    }
    g.bk = std::min(g.bk, round_up(s.k, g.f.k));
    if (2 * bytes_of((g.bm + g.bn) * g.bk, bits) > core.l1_bytes) {
        refuse(op, "no tile fits L1 (" + std::to_string(core.l1_bytes) + " B): double-buffered " +
                       std::to_string(g.bm) + "x" + std::to_string(g.bk) + " A and " +
                       std::to_string(g.bk) + "x" + std::to_string(g.bn) + " B tiles need " +
                       std::to_string(2 * bytes_of((g.bm + g.bn) * g.bk, bits)) + " B");
    }
    if (bytes_of(g.bm * g.bk, bits) > core.l0a_bytes ||
        bytes_of(g.bk * g.bn, bits) > core.l0b_bytes) {
        refuse(op, "no tile fits L0A/L0B (" + std::to_string(core.l0a_bytes) + " / " +
                       std::to_string(core.l0b_bytes) + " B): the smallest A and B tiles need " +
                       std::to_string(bytes_of(g.bm * g.bk, bits)) + " / " +
                       std::to_string(bytes_of(g.bk * g.bn, bits)) + " B");
    }
    if (g.bm * g.bn * 4 > core.l0c_bytes) {
        refuse(op, "no output block fits L0C (" + std::to_string(core.l0c_bytes) +
                       " B): " + std::to_string(g.bm) + "x" + std::to_string(g.bn) +
                       " fp32 accumulators need " + std::to_string(g.bm * g.bn * 4) + " B");
    }
    g.mb = ceil_div(s.m, g.bm);
    g.nb = ceil_div(s.n, g.bn);
    g.kb = ceil_div(s.k, g.bk);
    g.group_rows = choose_group_rows(g.mb, g.nb, ai_cores, static_cast<double>(g.bm) * g.a_bits,
                                     static_cast<double>(g.bn) * g.b_bits);
}

// Which blocks stay whole and which are cut along K (the scheduler's choice from the costs), and
// where the cut blocks' partial sums meet: C itself when it holds 32-bit values, else the
// workspace. Nothing is cut when the schedule keeps every block whole, no vector core can fix
// the sums up, or the workspace cannot hold them.
MatmulSplit split_matmul(const MatmulGeometry& g, const AiCoreParams& core, uint32_t ai_cores,
                         const MatmulScheduler& scheduler, const Workspace& workspace) {
    const uint64_t total_blocks = g.batch * g.mb * g.nb;
    const uint32_t engines = ai_cores * core.vector_cores;
    MatmulCost cost;
    cost.blocks = total_blocks;
    cost.cores = ai_cores;
    cost.k_steps = g.kb;
    const double load_cycles =
        static_cast<double>(bytes_of(g.bm * g.bk, g.a_bits) + bytes_of(g.bk * g.bn, g.b_bits)) /
        core.aic_gm_read;
    cost.step_cycles =
        std::max(static_cast<double>(g.engine->cycles(g.bm, g.bn, g.bk, g.dtype)), load_cycles);
    cost.partial_cycles = static_cast<double>(g.bm * g.bn * 4) / core.aic_gm_write;
    if (engines > 0) {
        const double block = static_cast<double>(g.bm * g.bn);
        cost.fixup_cycles = block *
                            (4 / core.aiv_gm_write + 4 / core.aiv_gm_read +
                             static_cast<double>(g.c_bits) / 8 / core.aiv_gm_write) /
                            engines;
    }
    cost.stage_cycles = kStageCycles;
    const MatmulSchedule schedule = scheduler.schedule(cost);
    MatmulSplit split;
    split.first = std::min(schedule.whole_blocks, total_blocks);
    split.count = total_blocks - split.first;
    split.into_c = g.c_bits == 32;
    split.accumulators = workspace.addr;
    const bool fits = split.into_c || split.count * g.bm * g.bn * 4 <= workspace.bytes;
    if (split.count == 0 || !schedule.split_rest || engines == 0 || !fits) {
        split = MatmulSplit{};
        split.first = total_blocks;
    }
    return split;
}

// A vector stage over the split blocks' accumulators (zero-fill before the Cube adds into them,
// the cast after), their rows shared out among the vector cores.
PlanStage split_fixup_stage(const MatmulGeometry& g, const MatmulSplit& split,
                            Tile::Function function, uint64_t bytes_per_element,
                            const AiCoreParams& core, uint32_t ai_cores) {
    const uint32_t engines = ai_cores * core.vector_cores;
    PlanStage stage;
    stage.cube_work.resize(ai_cores);
    stage.vector_work.resize(engines);
    const uint64_t rows = split.count * g.bm;
    const uint64_t chunk = std::max<uint64_t>(1, core.ub_bytes / 2 / (g.bn * bytes_per_element));
    for (uint32_t e = 0; e < engines; ++e) {
        const uint64_t r0 = rows * e / engines, r1 = rows * (e + 1) / engines;
        if (r0 == r1) continue;
        PipelineWork& w = stage.vector_work[e];
        w.tiles = std::make_unique<SplitFixupTiles>(g, split, function, r0, r1, chunk, &core);
        w.output_buffers = 2;
        w.input_dtype = g.dtype;
        w.output_bits = g.c_bits;
    }
    return stage;
}

}  // namespace

OpPlan Tiler::plan_matmul(const trace::Op& op) const {
    if (op.inputs.size() < 2 || op.outputs.empty()) {
        refuse(op, "a matmul needs two input tensors (A, B) and one output tensor (C)");
    }
    const auto& s = op.matmul;
    refuse_overflow(op, {s.batch, s.m, s.n, s.k}, "batch x m x n x k");
    MatmulGeometry g{};
    g.batch = s.batch;
    g.m = s.m;
    g.n = s.n;
    g.k = s.k;
    g.f = fractal_for(m_core, *m_engine, op);
    g.engine = m_engine.get();
    g.dtype = op.dtype;
    g.l1_to_l0a = m_core.l1_to_l0a;
    g.l1_to_l0b = m_core.l1_to_l0b;
    g.a = op.inputs[0];
    g.b = op.inputs[1];
    g.c = op.outputs[0];
    const uint32_t bits = dtype_bits(op.dtype);
    g.a_bits = bits;
    g.b_bits = bits;
    g.c_bits = tensor_bits(g.c, s.batch * s.m * s.n, 16);
    size_matmul_blocks(op, m_core, m_ai_cores, g);
    const MatmulSplit split = split_matmul(g, m_core, m_ai_cores, *m_scheduler, m_workspace);

    OpPlan plan;
    plan.cube_work.resize(m_ai_cores);
    plan.vector_work.resize(m_ai_cores * m_core.vector_cores);
    const uint32_t out_buffers = 2 * g.bm * g.bn * 4 <= m_core.l0c_bytes ? 2 : 1;
    for (uint32_t c = 0; c < m_ai_cores; ++c) {
        if (c >= split.first &&
            split.count * g.kb * (c + 1) / m_ai_cores == split.count * g.kb * c / m_ai_cores) {
            continue;  // no whole block and no K step of a split one
        }
        plan.cube_work[c].tiles = std::make_unique<MatmulTiles>(g, split, c, m_ai_cores);
        plan.cube_work[c].output_buffers = out_buffers;
        plan.cube_work[c].input_dtype = g.dtype;
        plan.cube_work[c].output_bits = g.c_bits;
    }
    if (split.count != 0) {
        plan.prologue =
            split_fixup_stage(g, split, Tile::Function::kZeroFill, 4, m_core, m_ai_cores);
        if (!split.into_c) {
            plan.epilogue = split_fixup_stage(g, split, Tile::Function::kCastFrom32,
                                              4 + bytes_of(1, g.c_bits), m_core, m_ai_cores);
        }
    }
    plan.matmul_layout = layout_of(g);
    return plan;
}

OpPlan Tiler::plan_attention(const trace::Op& op) const {
    if (op.inputs.size() < 3 || op.outputs.empty()) {
        refuse(op, "fused attention needs input tensors Q, K, V and an output tensor O");
    }
    AttentionGeometry g{};
    g.s = op.attention;
    refuse_overflow(op, {g.s.batch, g.s.heads, g.s.q_len, g.s.kv_len, g.s.head_dim},
                    "batch x heads x q_len x kv_len x head_dim");
    g.bits = dtype_bits(op.dtype);
    fractal_for(m_core, *m_engine, op);
    g.engine = m_engine.get();
    g.dtype = op.dtype;
    g.core = &m_core;
    g.vector_cores = m_core.vector_cores;
    g.l0c_to_ub = m_core.l0c_to_ub;
    g.ub_to_l1 = m_core.ub_to_l1;
    g.q = op.inputs[0];
    g.k = op.inputs[1];
    g.v = op.inputs[2];
    g.o = op.outputs[0];
    if (g.vector_cores == 0) refuse(op, "fused attention needs vector cores for the softmax");
    // Buffers: the resident Q tile and double-buffered K and V tiles in L1; the scores S and the
    // output accumulator O in L0C (fp32); each vector core's share of S in its UB (fp32).
    // Tiles of 128 rows, halved (the larger first, down to 16 rows) while a buffer cannot hold
    // them: large head dims (e.g. the generator's backward attention) take smaller tiles.
    const uint64_t d = g.s.head_dim;
    auto fit_all = [&] {
        return bytes_of(g.q_tile * d, g.bits) + 2 * 2 * bytes_of(g.kv_tile * d, g.bits) <=
                   m_core.l1_bytes &&
               bytes_of(g.q_tile * d, g.bits) <= m_core.l0a_bytes &&
               bytes_of(g.kv_tile * d, g.bits) <= m_core.l0b_bytes &&
               (g.q_tile * g.kv_tile + g.q_tile * d) * 4 <= m_core.l0c_bytes &&
               ceil_div(g.q_tile * g.kv_tile * 4, g.vector_cores) <= m_core.ub_bytes;
    };
    while (!fit_all() && (g.q_tile > 16 || g.kv_tile > 16)) {
        (g.kv_tile >= g.q_tile ? g.kv_tile : g.q_tile) /= 2;
    }
    g.q_tiles = ceil_div(g.s.q_len, g.q_tile);
    g.kv_tiles = ceil_div(g.s.kv_len, g.kv_tile);
    // Grouped- and multi-query attention with fewer queries per head than a tile's rows (decode):
    // the heads sharing a K/V head go into one Q tile, as decode kernels stack them (FlashDecoding;
    // Ascend's incremental flash attention), so the Cube gets group x q_len rows, not q_len, and
    // each K/V tile is loaded once for the group. The packed heads divide the group, so a tile
    // never mixes two K/V heads.
    const uint64_t group = g.s.kv_heads ? g.s.heads / g.s.kv_heads : 1;
    if (group > 1 && g.s.q_len < g.q_tile) {
        uint64_t packed = std::min(group, g.q_tile / g.s.q_len);
        while (group % packed != 0) --packed;
        g.packed_heads = packed;
    }
    const uint64_t l1_need =
        bytes_of(g.q_tile * d, g.bits) + 2 * 2 * bytes_of(g.kv_tile * d, g.bits);
    const uint64_t l0c_need = (g.q_tile * g.kv_tile + g.q_tile * d) * 4;
    const uint64_t ub_need = ceil_div(g.q_tile * g.kv_tile * 4, g.vector_cores);
    auto fits = [&](const char* buffer, uint64_t need, uint64_t have) {
        if (need > have) {
            refuse(op, std::string("the attention tiles do not fit ") + buffer + " (" +
                           std::to_string(have) + " B): " + std::to_string(g.q_tile) +
                           "-row Q and " + std::to_string(g.kv_tile) +
                           "-row K/V tiles of head_dim " + std::to_string(d) + " need " +
                           std::to_string(need) + " B");
        }
    };
    fits("L1", l1_need, m_core.l1_bytes);
    fits("L0A", bytes_of(g.q_tile * d, g.bits), m_core.l0a_bytes);
    fits("L0B", bytes_of(g.kv_tile * d, g.bits), m_core.l0b_bytes);
    fits("L0C", l0c_need, m_core.l0c_bytes);
    fits("the UB", ub_need, m_core.ub_bytes);

    OpPlan plan;
    plan.cube_work.resize(m_ai_cores);
    plan.vector_work.resize(static_cast<std::size_t>(m_ai_cores) * m_core.vector_cores);
    // K/V tiles loaded ahead: as many as L1 holds beside the resident Q tile (at least the two
    // of ping-pong, at most kMaxInputBuffers): V_i stays in L1 until P_i V_i, after the softmax,
    // so two buffers would stall the Cube behind the Cube-to-Vector round trip.
    const uint64_t kv_pair = 2 * bytes_of(g.kv_tile * d, g.bits);
    const uint32_t kv_buffers = static_cast<uint32_t>(std::clamp<uint64_t>(
        (m_core.l1_bytes - bytes_of(g.q_tile * d, g.bits)) / kv_pair, 2, kMaxInputBuffers));
    const uint64_t units = AttentionTiles::units(g);
    for (uint32_t c = 0; c < m_ai_cores && c < units; ++c) {
        plan.cube_work[c].tiles = std::make_unique<AttentionTiles>(g, c, m_ai_cores);
        plan.cube_work[c].output_buffers = 2;
        plan.cube_work[c].input_buffers = kv_buffers;
    }
    return plan;
}

OpPlan Tiler::plan_vector(const trace::Op& op, const char* func, uint64_t elements,
                          uint64_t row) const {
    if (op.inputs.size() > Tile::kMaxLoads || op.outputs.size() > Tile::kMaxStores) {
        refuse(op, "at most " + std::to_string(Tile::kMaxLoads) + " inputs and " +
                       std::to_string(Tile::kMaxStores) + " outputs per vector op");
    }
    const uint32_t engines = m_ai_cores * m_core.vector_cores;
    if (engines == 0) refuse(op, "this die has no vector cores");
    OpPlan plan;
    plan.cube_work.resize(m_ai_cores);
    plan.vector_work.resize(engines);

    // Bytes per element over all tensors, for the UB budget (half the UB: double buffering).
    uint64_t tensor_bytes = 0;
    for (const auto& t : op.inputs) tensor_bytes += t.bytes;
    for (const auto& t : op.outputs) tensor_bytes += t.bytes;
    const double per_elem =
        std::max(1.0, static_cast<double>(tensor_bytes) / static_cast<double>(elements));
    uint64_t chunk = static_cast<uint64_t>(static_cast<double>(m_core.ub_bytes / 2) / per_elem);
    if (chunk == 0) {
        refuse(op, "one element's inputs and outputs (" +
                       std::to_string(static_cast<uint64_t>(std::ceil(per_elem))) +
                       " B) do not fit half the UB (" + std::to_string(m_core.ub_bytes / 2) +
                       " B, double-buffered)");
    }
    // Chunks and shares start on 512 B boundaries of the op's dtype where possible (whole rows
    // when a row fits), as MTE2 transfers are most efficient 512 B aligned (D3): unaligned
    // boundaries would fetch the sector they share twice.
    const uint32_t bits = dtype_bits(op.dtype);
    const uint64_t aligned = std::max<uint64_t>(1, 512 * 8 / bits);
    if (row > 1 && chunk >= row) {
        chunk -= chunk % row;
    } else if (row <= 1 && chunk >= aligned) {
        chunk -= chunk % aligned;
        row = aligned;  // split across engines in aligned groups too
    }

    // Split in whole rows (or aligned groups) across engines.
    const uint64_t rows = ceil_div(elements, std::max<uint64_t>(1, row));
    for (uint32_t e = 0; e < engines; ++e) {
        const uint64_t r0 = rows * e / engines, r1 = rows * (e + 1) / engines;
        const uint64_t begin = std::min(elements, r0 * row), end = std::min(elements, r1 * row);
        if (begin >= end) continue;
        plan.vector_work[e].tiles = std::make_unique<VectorTiles>(
            op.inputs, op.outputs, elements, begin, end, chunk, &m_core, func, bits);
        plan.vector_work[e].output_buffers = 2;
    }
    return plan;
}

}  // namespace asim
