#include "models/common/atomic_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

namespace asim {

namespace {
void write_whole(const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (!out) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
}
}  // namespace

AtomicOutputDir::AtomicOutputDir(std::string dir) : m_dir(std::move(dir)) {}

AtomicOutputDir::~AtomicOutputDir() {
    std::error_code ec;
    if (!m_staging.empty()) fs::remove_all(m_staging, ec);
    if (!m_committed && m_created_dir) fs::remove(m_dir, ec);  // only if still empty
}

void AtomicOutputDir::ensure_staging() {
    if (!m_staging.empty()) return;
    std::error_code ec;
    if (!fs::exists(m_dir, ec)) {
        if (!fs::create_directories(m_dir, ec) && ec) {
            throw std::runtime_error("cannot create output directory '" + m_dir +
                                     "': " + ec.message());
        }
        m_created_dir = true;
    } else if (!fs::is_directory(m_dir, ec)) {
        throw std::runtime_error("output path '" + m_dir + "' exists and is not a directory");
    }
    m_staging = (fs::path(m_dir) / (".staging-" + std::to_string(::getpid()))).string();
    fs::remove_all(m_staging, ec);
    if (!fs::create_directory(m_staging, ec)) {
        throw std::runtime_error("cannot create '" + m_staging + "': " + ec.message());
    }
}

void AtomicOutputDir::write(const std::string& name, const std::string& contents) {
    ensure_staging();
    write_whole((fs::path(m_staging) / name).string(), contents);
    m_names.push_back(name);
}

void AtomicOutputDir::commit() {
    ensure_staging();
    for (const auto& name : m_names) {
        std::error_code ec;
        fs::rename(fs::path(m_staging) / name, fs::path(m_dir) / name, ec);
        if (ec) throw std::runtime_error("cannot move '" + name + "' into '" + m_dir + "': " + ec.message());
    }
    m_committed = true;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
    const fs::path target(path);
    const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp-" +
                                                 std::to_string(::getpid()));
    write_whole(tmp.string(), contents);
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write '" + path + "'");
    }
}

}  // namespace asim
