// The shared arena: when HJEMU_ARENA_FD names a memfd (made and sealed by the harness), device
// memory is carved from it, so the trusted parent that attached the same memfd
// (hjemuAttachArena) reads a kernel's outputs through IPC handles without trusting the child.
// The arena is a first-fit list of page ranges; each allocation's guard pages are PROT_NONE in
// this process's mapping only.
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "internal.h"

namespace hjemu {
namespace {

struct Mapping {
    uintptr_t base = 0;
    size_t bytes = 0;
    uint64_t identity = 0;  // device and inode of the memfd: a handle names its arena
};

struct Arena {
    std::once_flag from_environment;
    Mapping owned;     // allocations come from here (HJEMU_ARENA_FD)
    // hjemuAttachArena: the arenas of the children the parent drives (a ranked pass drives two at
    // once: the kernel's and the reference's), only read through IPC handles.
    std::vector<Mapping> attached;
    std::map<uintptr_t, size_t> free_ranges;  // start -> bytes, coalesced
    std::mutex mutex;
};

Arena& arena() {
    static Arena* a = new Arena;
    return *a;
}

bool map_fd(int fd, Mapping* out) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) return false;
    void* mem = mmap(nullptr, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mem == MAP_FAILED) return false;
    out->base = (uintptr_t)mem;
    out->bytes = (size_t)st.st_size;
    out->identity = ((uint64_t)st.st_dev << 40) ^ (uint64_t)st.st_ino;
    return true;
}

void map_environment_arena() {
    const char* env = getenv("HJEMU_ARENA_FD");
    if (env == nullptr || *env == '\0') return;
    char* end = nullptr;
    const long fd = strtol(env, &end, 10);
    Arena& a = arena();
    if (*end != '\0' || fd < 0 || !map_fd((int)fd, &a.owned)) {
        Message m;
        m.add("HJEMU_ARENA_FD=").add(env).add(" does not name a mappable memory file: ").add(strerror(errno));
        die(m, false);
    }
    a.free_ranges[a.owned.base] = a.owned.bytes - a.owned.bytes % page_size();
}

}  // namespace

bool arena_active() {
    Arena& a = arena();
    std::call_once(a.from_environment, map_environment_arena);
    return a.owned.base != 0;
}

bool arena_reserve(size_t bytes, uintptr_t* start) {
    Arena& a = arena();
    std::lock_guard<std::mutex> lock(a.mutex);
    for (auto it = a.free_ranges.begin(); it != a.free_ranges.end(); ++it) {
        if (it->second < bytes) continue;
        *start = it->first;
        const size_t left = it->second - bytes;
        a.free_ranges.erase(it);
        if (left) a.free_ranges[*start + bytes] = left;
        return true;
    }
    return false;
}

void arena_release(uintptr_t start, size_t bytes) {
    Arena& a = arena();
    std::lock_guard<std::mutex> lock(a.mutex);
    auto next = a.free_ranges.lower_bound(start);
    if (next != a.free_ranges.end() && start + bytes == next->first) {
        bytes += next->second;
        next = a.free_ranges.erase(next);
    }
    if (next != a.free_ranges.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            prev->second += bytes;
            return;
        }
    }
    a.free_ranges[start] = bytes;
}

bool arena_offset(uintptr_t address, uint64_t* offset) {
    const Mapping& m = arena().owned;
    if (m.base == 0 || address < m.base || address >= m.base + m.bytes) return false;
    *offset = address - m.base;
    return true;
}

uint64_t arena_identity() { return arena().owned.identity; }

// A long-lived parent judges one job after another and detaches each arena when its phase ends;
// should it not, the oldest arenas beyond MAX_ATTACHED are unmapped (pointers opened from them must
// not be used after that), so the parent's address space stays bounded.
constexpr size_t MAX_ATTACHED = 8;

int arena_attach(int fd) {
    Arena& a = arena();
    std::lock_guard<std::mutex> lock(a.mutex);
    Mapping fresh;
    if (!map_fd(fd, &fresh)) return -1;
    for (auto it = a.attached.begin(); it != a.attached.end();) {
        const bool stale = it->identity == fresh.identity || a.attached.size() >= MAX_ATTACHED;
        if (!stale) { ++it; continue; }
        munmap((void*)it->base, it->bytes);
        it = a.attached.erase(it);
    }
    a.attached.push_back(fresh);
    return 0;
}

int arena_detach(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    const uint64_t identity = ((uint64_t)st.st_dev << 40) ^ (uint64_t)st.st_ino;  // as map_fd
    Arena& a = arena();
    std::lock_guard<std::mutex> lock(a.mutex);
    for (auto it = a.attached.begin(); it != a.attached.end(); ++it) {
        if (it->identity != identity) continue;
        munmap((void*)it->base, it->bytes);
        a.attached.erase(it);
        return 0;
    }
    return -1;
}

void* arena_pointer(uint64_t offset, uint64_t bytes, uint64_t identity) {
    arena_active();
    Arena& a = arena();
    std::lock_guard<std::mutex> lock(a.mutex);
    auto fits = [&](const Mapping& m) {
        return m.base != 0 && m.identity == identity && offset <= m.bytes && bytes <= m.bytes - offset;
    };
    if (fits(a.owned)) return (void*)(a.owned.base + offset);
    for (const Mapping& m : a.attached)
        if (fits(m)) return (void*)(m.base + offset);
    return nullptr;
}

bool arena_mapped(const void* ptr) {
    Arena& a = arena();
    std::lock_guard<std::mutex> lock(a.mutex);
    const uintptr_t p = (uintptr_t)ptr;
    auto inside = [&](const Mapping& m) { return m.base != 0 && p >= m.base && p < m.base + m.bytes; };
    if (inside(a.owned)) return true;
    for (const Mapping& m : a.attached)
        if (inside(m)) return true;
    return false;
}

}  // namespace hjemu

extern "C" int hjemuAttachArena(int fd) { return hjemu::arena_attach(fd); }
extern "C" int hjemuDetachArena(int fd) { return hjemu::arena_detach(fd); }
