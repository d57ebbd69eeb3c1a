// Streaming reader of DRAMSim3-format memory traces: one request per line,
// `0x<HEXADDR> READ|WRITE <cycle>`; `.gz` files are read through zlib (plain files too).
// Memory use is one buffer, whatever the trace length; a line may be at most kMaxLineBytes long.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace asim {

struct MemRecord {
    uint64_t addr = 0;
    uint64_t cycle = 0;
    bool is_write = false;
};

class MemTraceReader {
public:
    // Longer lines are errors: a request line is a few dozen bytes, and memory must not grow with
    // a file that has no newline (a device, a gzip bomb).
    static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

    // Throws TraceError when the file cannot be opened.
    explicit MemTraceReader(const std::string& path);
    ~MemTraceReader();
    MemTraceReader(const MemTraceReader&) = delete;
    MemTraceReader& operator=(const MemTraceReader&) = delete;

    // The next record; false at the end. Throws TraceError ("FILE:LINE: ...") on a bad line.
    bool next(MemRecord& r);
    // The same without exceptions, for readers on a SystemC thread's stack (an exception thrown
    // there confuses AddressSanitizer, which does not know the coroutine stacks): false with
    // `error` set on a bad line, false with `error` empty at the end.
    bool read(MemRecord& r, std::string& error);
    uint64_t line() const { return m_line; }
    const std::string& path() const { return m_path; }

private:
    bool fill(std::string& error);  // false at the end, or with `error` set
    std::string m_path;
    void* m_file = nullptr;  // gzFile
    std::vector<char> m_buf;
    std::size_t m_pos = 0, m_end = 0;
    bool m_eof = false;
    uint64_t m_line = 0;
};

}  // namespace asim
