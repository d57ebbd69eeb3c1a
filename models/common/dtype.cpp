#include "models/common/dtype.h"

namespace asim {

std::optional<DType> dtype_from_string(std::string_view text) {
    for (DType t :
         {DType::kFp32, DType::kTf32, DType::kFp16, DType::kBf16, DType::kFp8, DType::kHif8,
          DType::kInt8, DType::kFp4, DType::kHif4, DType::kInt4, DType::kInt32}) {
        if (text == to_string(t)) return t;
    }
    return std::nullopt;
}

}  // namespace asim
