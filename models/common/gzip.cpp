#include "models/common/gzip.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <zlib.h>

namespace asim {

std::string gzip_compress(std::string_view data) {
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        throw std::runtime_error("gzip: cannot initialise zlib");
    }
    std::string out;
    out.reserve(data.size() / 8);
    std::array<char, 1 << 16> buf;
    const char* in = data.data();
    std::size_t left = data.size();
    int flush = Z_NO_FLUSH;
    // zlib counts in 32-bit units: the input goes in pieces of at most 1 GiB (zlib's usage
    // example).
    do {
        const std::size_t chunk = std::min<std::size_t>(left, std::size_t{1} << 30);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
        z.avail_in = static_cast<uInt>(chunk);
        in += chunk;
        left -= chunk;
        flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = reinterpret_cast<Bytef*>(buf.data());
            z.avail_out = static_cast<uInt>(buf.size());
            if (deflate(&z, flush) == Z_STREAM_ERROR) {
                deflateEnd(&z);
                throw std::runtime_error("gzip: compression failed");
            }
            out.append(buf.data(), buf.size() - z.avail_out);
        } while (z.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&z);
    return out;
}

}  // namespace asim
