#include "models/chip/aicore/functional_cube.h"

#include <cmath>
#include <cstring>

namespace asim {

namespace {

float from_bits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint32_t to_bits(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
}

// IEEE half to float, normals, subnormals, infinities and NaN.
float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
    const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0) {
        const float v = std::ldexp(static_cast<float>(man), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return from_bits(sign | 0x7f800000u | (man << 13));
    return from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_bf16(float f) {
    const uint32_t bits = to_bits(f);
    if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
    const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);  // nearest, ties to even
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace

bool functional_supported(DType t) {
    return t == DType::kInt8 || t == DType::kBf16 || t == DType::kFp16 || t == DType::kFp32;
}

bool is_integer_dtype(DType t) {
    return t == DType::kInt8 || t == DType::kInt4 || t == DType::kInt32;
}

double load_element(const uint8_t* data, DType t, uint64_t i) {
    switch (t) {
        case DType::kInt8:
            return static_cast<int8_t>(data[i]);
        case DType::kBf16: {
            uint16_t h;
            std::memcpy(&h, data + 2 * i, 2);
            return from_bits(static_cast<uint32_t>(h) << 16);
        }
        case DType::kFp16: {
            uint16_t h;
            std::memcpy(&h, data + 2 * i, 2);
            return half_to_float(h);
        }
        case DType::kFp32: {
            float f;
            std::memcpy(&f, data + 4 * i, 4);
            return f;
        }
        default:
            return 0.0;  // refused before a functional run starts (functional_supported)
    }
}

void store_element(uint8_t* data, uint32_t bits, bool integer, uint64_t i, double v) {
    if (integer) {
        const int64_t x = static_cast<int64_t>(v);
        if (bits == 8) data[i] = static_cast<uint8_t>(x);
        if (bits == 16) {
            const uint16_t y = static_cast<uint16_t>(x);
            std::memcpy(data + 2 * i, &y, 2);
        }
        if (bits == 32) {
            const uint32_t y = static_cast<uint32_t>(x);
            std::memcpy(data + 4 * i, &y, 4);
        }
        return;
    }
    const float f = static_cast<float>(v);
    if (bits == 32) std::memcpy(data + 4 * i, &f, 4);
    if (bits == 16) {
        const uint16_t h = float_to_bf16(f);
        std::memcpy(data + 2 * i, &h, 2);
    }
}

double load_accumulator(const uint8_t* data, bool integer, uint64_t i) {
    if (integer) {
        int32_t x;
        std::memcpy(&x, data + 4 * i, 4);
        return x;
    }
    return load_element(data, DType::kFp32, i);
}

void add_accumulators(uint8_t* dst, const uint8_t* src, uint64_t elements, bool integer) {
    for (uint64_t i = 0; i < elements; ++i) {
        if (integer) {
            int32_t a, b;
            std::memcpy(&a, dst + 4 * i, 4);
            std::memcpy(&b, src + 4 * i, 4);
            const uint32_t sum =
                static_cast<uint32_t>(a) + static_cast<uint32_t>(b);  // wraps, as int32 hardware
            std::memcpy(dst + 4 * i, &sum, 4);
        } else {
            store_element(dst, 32, false, i,
                          load_accumulator(dst, false, i) + load_accumulator(src, false, i));
        }
    }
}

void accumulate_tile(const uint8_t* a, const uint8_t* b, DType t, uint32_t rows, uint32_t cols,
                     uint32_t depth, std::vector<double>& acc) {
    std::vector<double> bv(static_cast<std::size_t>(depth) * cols);
    for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = load_element(b, t, i);
    const bool integer = is_integer_dtype(t);
    for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t c = 0; c < cols; ++c) {
            double& out = acc[static_cast<std::size_t>(r) * cols + c];
            if (integer) {
                int64_t sum = 0;
                for (uint32_t d = 0; d < depth; ++d) {
                    sum += static_cast<int64_t>(load_element(a, t, std::size_t{r} * depth + d)) *
                           static_cast<int64_t>(bv[std::size_t{d} * cols + c]);
                }
                out += static_cast<double>(sum);
            } else {
                float sum = static_cast<float>(out);  // L0C holds fp32
                for (uint32_t d = 0; d < depth; ++d) {
                    sum += static_cast<float>(load_element(a, t, std::size_t{r} * depth + d) *
                                              bv[std::size_t{d} * cols + c]);
                }
                out = sum;
            }
        }
    }
}

}  // namespace asim
