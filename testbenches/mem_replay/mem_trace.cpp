#include "testbenches/mem_replay/mem_trace.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "models/common/errors.h"

namespace asim {

MemTraceReader::MemTraceReader(const std::string& path) : m_path(path), m_buf(1 << 16) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) throw TraceError(path + ": cannot open memory trace");
    gzbuffer(f, 1 << 16);
    m_file = f;
}

MemTraceReader::~MemTraceReader() {
    if (m_file != nullptr) gzclose(static_cast<gzFile>(m_file));
}

bool MemTraceReader::fill(std::string& error) {
    // Keep the unread tail, then read more behind it.
    const std::size_t tail = m_end - m_pos;
    std::memmove(m_buf.data(), m_buf.data() + m_pos, tail);
    m_pos = 0;
    m_end = tail;
    if (m_eof) return false;
    if (m_end == m_buf.size()) {  // a long line: grow, up to the limit
        if (m_buf.size() >= kMaxLineBytes) {
            error = m_path + ":" + std::to_string(m_line + 1) + ": line longer than " +
                    std::to_string(kMaxLineBytes >> 20) +
                    " MiB (expected '0xADDR READ|WRITE CYCLE')";
            return false;
        }
        m_buf.resize(std::min(m_buf.size() * 2, kMaxLineBytes));
    }
    const int n = gzread(static_cast<gzFile>(m_file), m_buf.data() + m_end,
                         static_cast<unsigned>(m_buf.size() - m_end));
    int err = 0;
    if (n < 0) {
        // zlib's text already starts with the path it was opened with.
        const std::string what = gzerror(static_cast<gzFile>(m_file), &err);
        error = what.rfind(m_path + ": ", 0) == 0 ? what : m_path + ": " + what;
        return false;
    }
    if (n == 0) {
        gzerror(static_cast<gzFile>(m_file), &err);
        if (err == Z_BUF_ERROR) {
            error = m_path + ": truncated gzip file";
            return false;
        }
        m_eof = true;
        return false;
    }
    m_end += static_cast<std::size_t>(n);
    return true;
}

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
}  // namespace

bool MemTraceReader::next(MemRecord& r) {
    std::string error;
    if (read(r, error)) return true;
    if (!error.empty()) throw TraceError(error);
    return false;
}

bool MemTraceReader::read(MemRecord& r, std::string& error) {
    error.clear();
    for (;;) {
        const char* nl =
            static_cast<const char*>(std::memchr(m_buf.data() + m_pos, '\n', m_end - m_pos));
        if (nl == nullptr) {
            if (fill(error)) continue;
            if (!error.empty()) return false;
            if (m_pos == m_end) return false;
            nl = m_buf.data() + m_end;  // last line without a newline
        }
        const char* p = m_buf.data() + m_pos;
        const char* e = nl;
        m_pos = static_cast<std::size_t>(nl - m_buf.data()) + (nl < m_buf.data() + m_end ? 1 : 0);
        ++m_line;
        while (p < e && is_space(*p)) ++p;
        while (e > p && is_space(e[-1])) --e;
        if (p == e || *p == '#') continue;  // blank lines and comments
        const char* const line = p;         // the line's text is copied only into an error message
        auto bad = [&, e](const std::string& why) {
            error = m_path + ":" + std::to_string(m_line) + ": " + why + " in '" +
                    std::string(line,
                                static_cast<std::size_t>(std::min<std::ptrdiff_t>(e - line, 80))) +
                    "' (expected '0xADDR READ|WRITE CYCLE')";
            return false;
        };
        // Address: hexadecimal with 0x.
        if (e - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
            return bad("address must start with 0x");
        p += 2;
        uint64_t addr = 0;
        int digits = 0;
        for (; p < e && !is_space(*p); ++p, ++digits) {
            const char c = *p;
            uint64_t d;
            if (c >= '0' && c <= '9')
                d = static_cast<uint64_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                d = static_cast<uint64_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                d = static_cast<uint64_t>(c - 'A' + 10);
            else
                return bad(std::string("bad hexadecimal digit '") + c + "'");
            if (digits >= 16) return bad("address wider than 64 bits");
            addr = addr << 4 | d;
        }
        if (digits == 0) return bad("empty address");
        while (p < e && is_space(*p)) ++p;
        const char* op = p;
        while (p < e && !is_space(*p)) ++p;
        const std::size_t kind_len = static_cast<std::size_t>(p - op);
        if (kind_len == 4 && std::memcmp(op, "READ", 4) == 0)
            r.is_write = false;
        else if (kind_len == 5 && std::memcmp(op, "WRITE", 5) == 0)
            r.is_write = true;
        else
            return bad("operation must be READ or WRITE, got '" + std::string(op, kind_len) + "'");
        while (p < e && is_space(*p)) ++p;
        if (p == e) return bad("missing cycle");
        uint64_t cycle = 0;
        for (; p < e && !is_space(*p); ++p) {
            if (*p < '0' || *p > '9') return bad("cycle must be a non-negative decimal integer");
            if (cycle > (~uint64_t{0} - 9) / 10) return bad("cycle too large");
            cycle = cycle * 10 + static_cast<uint64_t>(*p - '0');
        }
        while (p < e && is_space(*p)) ++p;
        if (p != e) return bad("unexpected text after the cycle");
        r.addr = addr;
        r.cycle = cycle;
        return true;
    }
}

}  // namespace asim
