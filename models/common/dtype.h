// Element data types of trace tensors and the matrix engine. Bits per element and the names
// used in traces and YAML ("bf16", "fp8", ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace asim {

enum class DType { kFp32, kTf32, kFp16, kBf16, kFp8, kHif8, kInt8, kFp4, kHif4, kInt4, kInt32 };

constexpr std::string_view to_string(DType t) {
    switch (t) {
        case DType::kFp32:
            return "fp32";
        case DType::kTf32:
            return "tf32";
        case DType::kFp16:
            return "fp16";
        case DType::kBf16:
            return "bf16";
        case DType::kFp8:
            return "fp8";
        case DType::kHif8:
            return "hif8";
        case DType::kInt8:
            return "int8";
        case DType::kFp4:
            return "fp4";
        case DType::kHif4:
            return "hif4";
        case DType::kInt4:
            return "int4";
        case DType::kInt32:
            return "int32";
    }
    return "?";
}

// Storage bits per element (tf32 is stored as 32 bits).
constexpr uint32_t dtype_bits(DType t) {
    switch (t) {
        case DType::kFp32:
        case DType::kTf32:
        case DType::kInt32:
            return 32;
        case DType::kFp16:
        case DType::kBf16:
            return 16;
        case DType::kFp8:
        case DType::kHif8:
        case DType::kInt8:
            return 8;
        case DType::kFp4:
        case DType::kHif4:
        case DType::kInt4:
            return 4;
    }
    return 0;
}

std::optional<DType> dtype_from_string(std::string_view text);

}  // namespace asim
