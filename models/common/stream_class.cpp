#include "models/common/stream_class.h"

namespace asim {

std::optional<StreamClass> stream_class_from_string(std::string_view text) {
    for (StreamClass c : {StreamClass::kWeight, StreamClass::kActivation, StreamClass::kGeneral,
                          StreamClass::kPrefetch}) {
        if (text == to_string(c)) return c;
    }
    return std::nullopt;
}

}  // namespace asim
