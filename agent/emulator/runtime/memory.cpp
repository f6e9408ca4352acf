// Device memory: every allocation is end-aligned against a PROT_NONE guard (64 KiB, or one page
// inside a shared arena), with another guard below it, so the first access past either end faults
// and the fault handler can name the buffer. The end is rounded up to 16 bytes (the alignment kernels rely on for float4); the
// few bytes between the real end and that boundary, and the slack below the start, hold a canary
// that is checked after every launch and at free: writes there are caught late, reads not at all.
// A freed buffer's pages are made inaccessible, so a use after free faults too.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "internal.h"

namespace hjemu {
namespace {

constexpr unsigned char kCanary = 0xCB;
constexpr size_t kSlots = 1 << 16;
// Freed private buffers stay reserved (no access, pages returned) so that a use after free keeps
// faulting instead of reading whatever reuses the addresses, up to this much address space
// (oldest first out).
constexpr size_t kQuarantineBytes = (size_t)256 << 20;
constexpr size_t kPrivateGuardBytes = 64 * 1024;
// A faulting address this close past a buffer's end is reported as an overrun of that buffer
// (a large stride jumps over the guard into unmapped memory).
constexpr size_t kOverrunReach = 1 << 20;

// Records live in a fixed table so the fault handler can read them without a lock; a freed
// record stays readable (for "which was freed" messages) until its slot is reused, oldest first.
Allocation g_slots[kSlots];
std::atomic<size_t> g_used_slots{0};
std::deque<size_t> g_free_slots;
std::deque<std::pair<uintptr_t, size_t>> g_quarantine;
size_t g_quarantine_bytes = 0;
std::mutex g_mutex;

void quarantine(uintptr_t map, size_t bytes) {
    madvise((void*)map, bytes, MADV_DONTNEED);
    mprotect((void*)map, bytes, PROT_NONE);
    g_quarantine.emplace_back(map, bytes);
    g_quarantine_bytes += bytes;
    while (g_quarantine_bytes > kQuarantineBytes) {
        munmap((void*)g_quarantine.front().first, g_quarantine.front().second);
        g_quarantine_bytes -= g_quarantine.front().second;
        g_quarantine.pop_front();
    }
}

uintptr_t round_up(uintptr_t value, uintptr_t to) { return (value + to - 1) / to * to; }

Allocation* find_live(const void* ptr) {
    const uintptr_t p = (uintptr_t)ptr;
    const size_t used = g_used_slots.load();
    for (size_t i = 0; i < used; ++i) {
        Allocation& a = g_slots[i];
        if (a.live && p >= a.map && p < a.map + a.map_bytes) return &a;
    }
    return nullptr;
}

// The first corrupted canary byte, as an offset from the base (negative: below the start), or 0.
bool corrupted(const Allocation& a, int64_t* offset) {
    const unsigned char* base = (const unsigned char*)a.base;
    const unsigned char* low = (const unsigned char*)(a.map + a.guard);
    for (const unsigned char* p = low; p < base; ++p)
        if (*p != kCanary) {
            *offset = (int64_t)(p - base);
            return true;
        }
    for (size_t i = a.size; i < a.span; ++i)
        if (base[i] != kCanary) {
            *offset = (int64_t)i;
            return true;
        }
    return false;
}

[[noreturn]] void report_corruption(const Allocation& a, int64_t offset, const char* when) {
    Message m;
    m.add("out-of-bounds write to ");
    add_buffer(m, a);
    describe_offset(m, a, offset);
    m.add(": found ").add(when).add(" (which thread wrote it is not known)");
    die(m, false);
}

}  // namespace

size_t page_size() {
    static const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

int device_malloc(void** ptr, size_t size) {
    if (ptr == nullptr) return record_error(HJEMU_INVALID_VALUE);
    *ptr = nullptr;
    if (size == 0) return 0;
    install_fault_handlers();  // host code touching a guard page is reported too
    const bool in_arena = arena_active();
    const size_t page = page_size();
    // Wide guards where address space is free; one page in the arena, whose size the harness sets.
    const size_t guard = in_arena ? page : kPrivateGuardBytes;
    const size_t span = round_up(size, 16);
    const size_t data = round_up(span, page);
    const size_t map_bytes = data + 2 * guard;
    // More than the device reports (the host's memory) fails now, as on a GPU, not at first touch.
    if (span < size || data < span || map_bytes < data || size > host_memory_bytes())
        return record_error(HJEMU_OUT_OF_MEMORY);
    std::lock_guard<std::mutex> lock(g_mutex);
    uintptr_t map = 0;
    if (in_arena) {
        if (!arena_reserve(map_bytes, &map)) return record_error(HJEMU_OUT_OF_MEMORY);
        mprotect((void*)map, guard, PROT_NONE);
        mprotect((void*)(map + guard + data), guard, PROT_NONE);
    } else {
        void* mem = mmap(nullptr, map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (mem == MAP_FAILED) return record_error(HJEMU_OUT_OF_MEMORY);
        map = (uintptr_t)mem;
    }
    const auto give_back = [&] {
        if (in_arena) arena_release(map, map_bytes);
        else munmap((void*)map, map_bytes);
    };
    if (mprotect((void*)(map + guard), data, PROT_READ | PROT_WRITE) != 0) {
        give_back();
        return record_error(HJEMU_OUT_OF_MEMORY);
    }
    size_t slot;
    if (g_used_slots.load() < kSlots) {
        slot = g_used_slots.load();
    } else if (!g_free_slots.empty()) {
        slot = g_free_slots.front();
        g_free_slots.pop_front();
    } else {
        give_back();
        return record_error(HJEMU_OUT_OF_MEMORY);
    }
    Allocation& a = g_slots[slot];
    a.live = false;
    a.map = map;
    a.map_bytes = map_bytes;
    a.guard = guard;
    a.base = map + guard + data - span;
    a.size = size;
    a.span = span;
    a.element_bytes = 0;
    a.in_arena = in_arena;
    a.name[0] = '\0';
    memset((void*)(map + guard), kCanary, a.base - (map + guard));
    memset((void*)(a.base + size), kCanary, span - size);
    a.live = true;
    if (slot == g_used_slots.load()) g_used_slots.store(slot + 1);
    *ptr = (void*)a.base;
    return 0;
}

int device_free(void* ptr) {
    if (ptr == nullptr) return 0;
    std::lock_guard<std::mutex> lock(g_mutex);
    Allocation* a = find_live(ptr);
    if (a == nullptr || a->base != (uintptr_t)ptr) return record_error(HJEMU_INVALID_VALUE);
    int64_t offset = 0;
    if (corrupted(*a, &offset)) report_corruption(*a, offset, "when the buffer was freed");
    a->live = false;
    if (a->in_arena) {
        mprotect((void*)a->map, a->map_bytes, PROT_NONE);  // a use after free faults until reuse
        arena_release(a->map, a->map_bytes);
    } else {
        quarantine(a->map, a->map_bytes);
    }
    g_free_slots.push_back((size_t)(a - g_slots));
    return 0;
}

int classify_range(const void* ptr, size_t bytes) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const Allocation* a = find_live(ptr);
    if (a == nullptr) return 0;
    const uintptr_t p = (uintptr_t)ptr;
    return p >= a->base && p + bytes >= p && p + bytes <= a->base + a->size ? 1 : -1;
}

void check_canaries(const char* kernel) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const size_t used = g_used_slots.load();
    for (size_t i = 0; i < used; ++i) {
        int64_t offset = 0;
        if (g_slots[i].live && corrupted(g_slots[i], &offset)) {
            Message when;
            when.add("after kernel ").add(kernel).add(" finished");
            report_corruption(g_slots[i], offset, when.text());
        }
    }
}

const Allocation* allocation_at_guard(uintptr_t address, int64_t* offset) {
    const size_t used = g_used_slots.load();
    for (size_t i = 0; i < used; ++i) {
        const Allocation& a = g_slots[i];
        if (!a.live || address < a.map || address >= a.map + a.map_bytes) continue;
        if (address < a.map + a.guard || address >= a.map + a.map_bytes - a.guard) {
            *offset = (int64_t)(address - a.base);
            return &a;
        }
    }
    return nullptr;
}

const Allocation* allocation_overrun(uintptr_t address, int64_t* offset) {
    const Allocation* best = nullptr;
    const size_t used = g_used_slots.load();
    for (size_t i = 0; i < used; ++i) {
        const Allocation& a = g_slots[i];
        const uintptr_t end = a.base + a.size;
        if (a.live && address >= end && address - end < kOverrunReach && (!best || end > best->base + best->size))
            best = &a;
    }
    if (best) *offset = (int64_t)(address - best->base);
    return best;
}

const Allocation* allocation_freed_at(uintptr_t address) {
    const size_t used = g_used_slots.load();
    for (size_t i = 0; i < used; ++i) {
        const Allocation& a = g_slots[i];
        if (!a.live && a.map_bytes && address >= a.map && address < a.map + a.map_bytes) return &a;
    }
    return nullptr;
}

bool allocation_in_arena(const void* ptr, uintptr_t* base, size_t* size) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const Allocation* a = find_live(ptr);
    if (a == nullptr || !a->in_arena || (uintptr_t)ptr < a->base) return false;
    *base = a->base;
    *size = a->size;
    return true;
}

void name_allocation(const void* ptr, const char* name, size_t element_bytes) {
    std::lock_guard<std::mutex> lock(g_mutex);
    Allocation* a = find_live(ptr);
    if (a == nullptr) return;
    if (name) {
        strncpy(a->name, name, sizeof(a->name) - 1);
        a->name[sizeof(a->name) - 1] = '\0';
    }
    if (element_bytes) a->element_bytes = element_bytes;
}

}  // namespace hjemu

extern "C" {
void hjemuNameBuffer(const void* ptr, const char* name) { hjemu::name_allocation(ptr, name, 0); }
void hjemuSetBufferElementSize(const void* ptr, size_t element_bytes) {
    hjemu::name_allocation(ptr, nullptr, element_bytes);
}
}
