#include "fuzz/fuzz_support.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

// libsystemc.so defines main() and calls the extern "C" sc_main(); libFuzzer's main() runs
// instead, but the library's reference must resolve.
extern "C" int sc_main(int, char*[]) { return 0; }

namespace asim::fuzz {

namespace fs = std::filesystem;

namespace {

// Made on first use, removed when the process exits normally.
struct ScratchDir {
    std::string path;
    ScratchDir() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/asim-fuzz-XXXXXX";
        std::vector<char> buf(pattern.begin(), pattern.end());
        buf.push_back('\0');
        if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + pattern);
        path = buf.data();
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

const std::string& scratch_dir() {
    static const ScratchDir dir;
    return dir.path;
}

std::string write_scratch_file(const std::string& name, std::string_view contents) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path);
    return path;
}

}  // namespace asim::fuzz
