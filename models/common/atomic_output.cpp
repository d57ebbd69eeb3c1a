#include "models/common/atomic_output.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "models/common/errors.h"

namespace fs = std::filesystem;

namespace asim {

namespace {

// ---- Removal on SIGINT / SIGTERM / SIGHUP ------------------------------------------------------
// The handler may only make system calls, so the paths to remove live in fixed slots, and a
// staging folder is removed with getdents64/unlinkat/rmdir (it holds plain files; the previous
// run's folder, removed after the swap, may hold one level of sub-folders from older versions).

constexpr int kSlots = 64;
enum SlotState : int { kFree = 0, kClaimed = 1, kDir = 2, kFile = 3 };
struct Slot {
    std::atomic<int> state{kFree};
    char path[PATH_MAX];
};
Slot g_slots[kSlots];
constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[NSIG];

struct LinuxDirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
};

// Async-signal-safe removal of `dir` (relative to `parent_fd`) and its contents, `depth` levels.
bool remove_tree_at(int parent_fd, const char* dir, int depth) {
    const int fd = ::openat(parent_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    alignas(8) char buf[4096];
    // Entries removed under the directory cursor may make it skip some: read again from the
    // start until a pass removes nothing.
    for (bool removed = true; removed;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        for (;;) {
            const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n <= 0) break;
            for (long off = 0; off < n;) {
                auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
                off += d->d_reclen;
                const char* name = d->d_name;
                if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                    continue;
                if (::unlinkat(fd, name, 0) == 0) {
                    removed = true;
                } else if (errno == EISDIR && depth > 0 && remove_tree_at(fd, name, depth - 1)) {
                    removed = true;
                }
            }
        }
    }
    ::close(fd);
    return ::unlinkat(parent_fd, dir, AT_REMOVEDIR) == 0;
}

void on_signal(int sig) {
    const int saved_errno = errno;
    for (Slot& slot : g_slots) {
        const int state = slot.state.load();
        if (state == kDir) remove_tree_at(AT_FDCWD, slot.path, 2);
        if (state == kFile) ::unlink(slot.path);
    }
    ::sigaction(sig, &g_previous[sig], nullptr);
    errno = saved_errno;
    ::raise(sig);  // delivered with the previous action once this handler returns
}

void install_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (int sig : kSignals) {
            struct sigaction current {};
            ::sigaction(sig, nullptr, &current);
            g_previous[sig] = current;
            if (current.sa_handler == SIG_IGN) continue;  // e.g. started under nohup: keep ignoring
            struct sigaction action {};
            action.sa_handler = on_signal;
            sigemptyset(&action.sa_mask);
            for (int other : kSignals) sigaddset(&action.sa_mask, other);
            ::sigaction(sig, &action, nullptr);
        }
    });
}

// Returns the slot index, or -1 when all are taken (the path is then only removed by the
// destructor or by a later run).
int register_cleanup(const std::string& path, SlotState kind) {
    install_handlers();
    if (path.size() + 1 > PATH_MAX) return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = kFree;
        if (g_slots[i].state.compare_exchange_strong(expected, kClaimed)) {
            std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
            g_slots[i].state.store(kind);
            return i;
        }
    }
    return -1;
}

void unregister_cleanup(int slot) {
    if (slot >= 0) g_slots[slot].state.store(kFree);
}

// Which slot holds `path` (the writers keep their paths, not their slots).
int slot_of(const std::string& path) {
    for (int i = 0; i < kSlots; ++i) {
        const int state = g_slots[i].state.load();
        if ((state == kDir || state == kFile) && path == g_slots[i].path) return i;
    }
    return -1;
}

// ---- Paths ---------------------------------------------------------------------------------

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

const char* kind_of(mode_t mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISREG(mode)) return "a regular file";
    return "a special file";
}

// `path` without trailing slashes; its folder and its last component.
struct SplitPath {
    fs::path full;
    fs::path parent;
    std::string name;
};

SplitPath split(const std::string& path, const std::string& what) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    const fs::path full(p);
    const std::string name = full.filename().string();
    if (p.empty() || name.empty() || name == "." || name == ".." || p == "/") {
        throw InputError(what + " " + in_quotes(path) +
                         ": name the output by a path that ends in a new or "
                         "replaceable name, not '.', '..' or '/'");
    }
    fs::path parent = full.parent_path();
    if (parent.empty()) parent = ".";
    return {full, parent, name};
}

// The process id in a staging name "<prefix><pid>[-<n>]", or 0.
pid_t pid_in(const std::string& entry, const std::string& prefix) {
    if (entry.compare(0, prefix.size(), prefix) != 0) return 0;
    std::size_t i = prefix.size();
    pid_t pid = 0;
    if (i >= entry.size()) return 0;
    for (; i < entry.size() && entry[i] >= '0' && entry[i] <= '9'; ++i) {
        if (pid > (INT_MAX - 9) / 10) return 0;
        pid = pid * 10 + (entry[i] - '0');
    }
    if (i != entry.size() && entry[i] != '-') return 0;
    return pid;
}

bool process_gone(pid_t pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

// Removes in `folder` the entries "<prefix><pid>..." left by processes that no longer exist (runs
// killed with SIGKILL, or before their handlers were in place).
void remove_stale(const fs::path& folder, const std::vector<std::string>& prefixes) {
    std::error_code ec;
    fs::directory_iterator it(folder, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string entry = it->path().filename().string();
        for (const std::string& prefix : prefixes) {
            const pid_t pid = pid_in(entry, prefix);
            if (pid > 0 && pid != ::getpid() && process_gone(pid)) {
                std::error_code rm;
                fs::remove_all(it->path(), rm);
            }
        }
    }
}

std::vector<std::string> staging_prefixes(const std::string& name) {
    return {"." + name + ".staging-", "." + name + ".old-", "." + name + ".tmp-"};
}

// Whether an existing directory may be replaced: empty (apart from staging folders of dead runs
// of older versions, which were put inside it) or marked as a previous run's output.
void check_replaceable(const fs::path& dir, const std::string& shown, const std::string& what) {
    struct stat st {};
    const std::string marker = (dir / kOutputMarker).string();
    if (::lstat(marker.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return;
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    if (ec)
        throw InputError(what + " " + in_quotes(shown) +
                         ": cannot read the directory: " + ec.message());
    for (; !ec && it != end; it.increment(ec)) {
        const std::string entry = it->path().filename().string();
        const pid_t pid = pid_in(entry, ".staging-");
        if (pid > 0 && process_gone(pid)) continue;
        throw InputError(what + " " + in_quotes(shown) +
                         ": the directory exists and holds files that ascend-sim did "
                         "not write (it has no " +
                         std::string(kOutputMarker) +
                         "); outputs replace their "
                         "directory as a whole, so give a new or empty directory");
    }
}

void check_dir(const SplitPath& sp, const std::string& shown, const std::string& what) {
    struct stat st {};
    if (::lstat(sp.full.c_str(), &st) != 0) {
        if (errno == ENOENT) return;
        throw InputError(what + " " + in_quotes(shown) + ": " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
        throw InputError(what + " " + in_quotes(shown) +
                         " is a symbolic link; outputs are never written through "
                         "one: give the directory itself");
    }
    if (!S_ISDIR(st.st_mode)) {
        throw InputError(what + " " + in_quotes(shown) + " exists and is " + kind_of(st.st_mode) +
                         ", not a directory");
    }
    check_replaceable(sp.full, shown, what);
}

// Creates `path` as a new empty file this process owns; never follows a link or opens a FIFO.
int create_new_file(const std::string& path) {
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

void write_all(int fd, const std::string& path, const std::string& contents) {
    const char* p = contents.data();
    std::size_t left = contents.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(err));
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0)
        throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
}

void check_plain_name(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
        throw std::runtime_error("output file name " + in_quotes(name) +
                                 " is not a plain file name");
    }
}

}  // namespace

// ---- AtomicOutputDir -----------------------------------------------------------------------

void check_output_dir(const std::string& dir, const std::string& what) {
    check_dir(split(dir, what), dir, what);
}

AtomicOutputDir::AtomicOutputDir(std::string dir, std::string what)
    : m_dir(std::move(dir)), m_what(std::move(what)) {
    const SplitPath sp = split(m_dir, m_what);
    // Leftovers of killed runs first: they may be all that stops the directory being replaced.
    remove_stale(sp.parent, staging_prefixes(sp.name));
    struct stat st {};
    if (::lstat(sp.full.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        remove_stale(sp.full, {".staging-"});
    check_dir(sp, m_dir, m_what);
    std::error_code ec;
    fs::create_directories(sp.parent, ec);
    if (ec) {
        throw InputError(m_what + " " + in_quotes(m_dir) + ": cannot create the folder " +
                         in_quotes(sp.parent.string()) + ": " + ec.message());
    }
    const std::string base =
        (sp.parent / ("." + sp.name + ".staging-" + std::to_string(::getpid()))).string();
    for (int n = 0;; ++n) {
        m_staging = n == 0 ? base : base + "-" + std::to_string(n);
        if (::mkdir(m_staging.c_str(), 0777) == 0) break;
        if (errno != EEXIST || n > 1000) {
            const int err = errno;
            m_staging.clear();
            throw InputError(m_what + " " + in_quotes(m_dir) + ": cannot write in " +
                             in_quotes(sp.parent.string()) + ": " + std::strerror(err));
        }
    }
    register_cleanup(m_staging, kDir);
}

AtomicOutputDir::~AtomicOutputDir() {
    if (m_staging.empty()) return;
    unregister_cleanup(slot_of(m_staging));
    std::error_code ec;
    if (!m_committed) fs::remove_all(m_staging, ec);
}

void AtomicOutputDir::write(const std::string& name, const std::string& contents) {
    check_plain_name(name);
    const std::string path = (fs::path(m_staging) / name).string();
    const int fd = create_new_file(path);
    if (fd < 0)
        throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
    write_all(fd, path, contents);
    m_names.push_back(name);
}

std::ofstream AtomicOutputDir::open(const std::string& name) {
    check_plain_name(name);
    const std::string path = (fs::path(m_staging) / name).string();
    const int fd = create_new_file(path);
    if (fd < 0)
        throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
    ::close(fd);
    // The file now exists as a regular file in a folder only this process writes.
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw std::runtime_error("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
    m_names.push_back(name);
    return out;
}

void AtomicOutputDir::commit() {
    write(kOutputMarker,
          "ascend-sim output directory: the next run writing here replaces it as a whole\n");
    const SplitPath sp = split(m_dir, m_what);
    check_dir(sp, m_dir, m_what);  // again: the path may have changed while the run was simulating
    auto fail = [&](const std::string& step, int err) {
        throw std::runtime_error("cannot " + step + " " + in_quotes(m_dir) + ": " +
                                 std::strerror(err));
    };
    struct stat st {};
    if (::lstat(sp.full.c_str(), &st) != 0) {
        if (::rename(m_staging.c_str(), sp.full.c_str()) != 0) fail("create", errno);
    } else if (::renameat2(AT_FDCWD, m_staging.c_str(), AT_FDCWD, sp.full.c_str(),
                           RENAME_EXCHANGE) != 0) {
        if (errno != EINVAL && errno != ENOSYS) fail("replace", errno);
        // A file system without atomic exchange: move the old one aside, then the new one in.
        const std::string old =
            (sp.parent / ("." + sp.name + ".old-" + std::to_string(::getpid()))).string();
        std::error_code ec;
        fs::remove_all(old, ec);
        if (::rename(sp.full.c_str(), old.c_str()) != 0) fail("replace", errno);
        const int slot = register_cleanup(old, kDir);
        if (::rename(m_staging.c_str(), sp.full.c_str()) != 0) {
            const int err = errno;
            ::rename(old.c_str(), sp.full.c_str());
            unregister_cleanup(slot);
            fail("replace", err);
        }
        fs::remove_all(old, ec);
        unregister_cleanup(slot);
    }
    // After an exchange the staging name holds the previous run's directory: remove it.
    std::error_code ec;
    fs::remove_all(m_staging, ec);
    m_committed = true;
}

// ---- AtomicOutputFile ----------------------------------------------------------------------

AtomicOutputFile::AtomicOutputFile(std::string path, std::string what)
    : m_path(std::move(path)), m_what(std::move(what)) {
    if (m_path.empty()) throw InputError(m_what + ": the output path is empty");
    if (m_path.back() == '/')
        throw InputError(m_what + " " + in_quotes(m_path) + ": expected a file name, not a folder");
    const SplitPath sp = split(m_path, m_what);
    struct stat st {};
    if (::lstat(sp.full.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            throw InputError(m_what + " " + in_quotes(m_path) + " exists and is " +
                             kind_of(st.st_mode) + "; only a regular file is ever replaced");
        }
    } else if (errno != ENOENT) {
        throw InputError(m_what + " " + in_quotes(m_path) + ": " + std::strerror(errno));
    }
    if (::stat(sp.parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        throw InputError(m_what + " " + in_quotes(m_path) + ": the folder " +
                         in_quotes(sp.parent.string()) + " does not exist");
    }
    remove_stale(sp.parent, {"." + sp.name + ".tmp-"});
    const std::string base =
        (sp.parent / ("." + sp.name + ".tmp-" + std::to_string(::getpid()))).string();
    for (int n = 0;; ++n) {
        m_tmp = n == 0 ? base : base + "-" + std::to_string(n);
        const int fd = create_new_file(m_tmp);
        if (fd >= 0) {
            ::close(fd);
            break;
        }
        if (errno != EEXIST || n > 1000) {
            const int err = errno;
            m_tmp.clear();
            throw InputError(m_what + " " + in_quotes(m_path) + ": cannot write in " +
                             in_quotes(sp.parent.string()) + ": " + std::strerror(err));
        }
    }
    register_cleanup(m_tmp, kFile);
}

AtomicOutputFile::~AtomicOutputFile() {
    if (m_tmp.empty()) return;
    unregister_cleanup(slot_of(m_tmp));
    if (!m_committed) ::unlink(m_tmp.c_str());
}

std::ofstream& AtomicOutputFile::stream() {
    if (!m_stream.is_open()) {
        m_stream.open(m_tmp, std::ios::binary | std::ios::trunc);
        if (!m_stream)
            throw std::runtime_error("cannot write " + in_quotes(m_tmp) + ": " +
                                     std::strerror(errno));
    }
    return m_stream;
}

void AtomicOutputFile::commit() {
    if (m_stream.is_open()) {
        m_stream.close();
        if (!m_stream)
            throw std::runtime_error("cannot write " + in_quotes(m_path) + ": " +
                                     std::strerror(errno));
    }
    struct stat st {};
    if (::lstat(m_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        throw std::runtime_error(m_what + " " + in_quotes(m_path) + " became " +
                                 kind_of(st.st_mode) + " while the run was writing; not replaced");
    }
    if (::rename(m_tmp.c_str(), m_path.c_str()) != 0) {
        throw std::runtime_error("cannot write " + in_quotes(m_path) + ": " + std::strerror(errno));
    }
    m_committed = true;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
    AtomicOutputFile file(path, "output file");
    file.stream() << contents;
    file.commit();
}

}  // namespace asim
