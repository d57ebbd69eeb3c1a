// What the Cube computes in a functional run: element formats and the tile product.
//
// A matmul tile's A operand is its rows x depth block and B its depth x cols block, each
// row-major as the MTEs deliver them (MatmulLayout in tiling.h); the accumulator is the output
// block in L0C. Integer inputs (int8) accumulate exactly in 64 bits and are stored as int32 (or
// int8 / int16 with wrap-around, as their tensor's size says). Floating-point inputs (bf16, fp16,
// fp32) accumulate in fp32, as the Cube's L0C does, and are rounded to nearest-even into the
// output's format (bf16 or fp32, by the output tensor's size).
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/dtype.h"

namespace asim {

bool functional_supported(DType t);
bool is_integer_dtype(DType t);

// Element `i` of a packed array of `t`.
double load_element(const uint8_t* data, DType t, uint64_t i);
// Stores `v` as element `i` of a packed array of `bits`-wide elements of the output's kind
// (integer outputs for integer inputs).
void store_element(uint8_t* data, uint32_t bits, bool integer, uint64_t i, double v);

// Element `i` of a packed array of 32-bit accumulators: int32 for integer inputs, else fp32.
double load_accumulator(const uint8_t* data, bool integer, uint64_t i);
// dst[i] += src[i] over `elements` 32-bit accumulators (FixPipe's atomic add into GM).
void add_accumulators(uint8_t* dst, const uint8_t* src, uint64_t elements, bool integer);

// acc[r * cols + c] += sum_d a[r * depth + d] * b[d * cols + c], in the accumulation arithmetic
// of `t` (fp32 for floating point, exact for integers).
void accumulate_tile(const uint8_t* a, const uint8_t* b, DType t, uint32_t rows, uint32_t cols,
                     uint32_t depth, std::vector<double>& acc);

}  // namespace asim
