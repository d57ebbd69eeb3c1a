// gzip (RFC 1952) compression of a whole buffer in memory, for outputs written on request as
// .gz (timeline.json.gz: Perfetto and chrome://tracing open it as it is).
#pragma once

#include <string>
#include <string_view>

namespace asim {

// The gzip file holding `data`; throws std::runtime_error if zlib fails (out of memory).
std::string gzip_compress(std::string_view data);

}  // namespace asim
