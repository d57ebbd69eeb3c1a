// The class of a memory stream, carried on every transaction (payload extension) and every
// trace tensor. The L2 partitions by it; the H-JSD prefetches the weight class.
#pragma once

#include <optional>
#include <string_view>

namespace asim {

enum class StreamClass { kWeight, kActivation, kGeneral, kPrefetch };

constexpr std::string_view to_string(StreamClass c) {
    switch (c) {
        case StreamClass::kWeight:
            return "weight";
        case StreamClass::kActivation:
            return "activation";
        case StreamClass::kGeneral:
            return "general";
        case StreamClass::kPrefetch:
            return "prefetch";
    }
    return "?";
}

std::optional<StreamClass> stream_class_from_string(std::string_view text);

}  // namespace asim
