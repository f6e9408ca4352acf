// Copies, fills, host allocations and IPC handles.
//
// Host and device memory are one address space here, so a copy is a memcpy; what makes it a
// device copy is the check: a range that starts in a device buffer must end inside it (the GPU
// would fault or corrupt the neighbour), and a bad direction or pointer is refused with the code
// the real runtimes return. Pointers outside every device buffer (host memory, __device__
// variables) are copied as they are.
#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace hjemu {
namespace {

bool ranges_ok(const void* a, const void* b, size_t bytes) {
    return classify_range(a, bytes) >= 0 && (b == nullptr || classify_range(b, bytes) >= 0);
}

struct IpcHandle {
    char magic[8];
    uint64_t offset;
    uint64_t bytes;
    uint64_t identity;
    char unused[32];
};
static_assert(sizeof(IpcHandle) == 64, "IPC handles are 64 bytes in both runtimes");
constexpr char kIpcMagic[8] = {'h', 'j', 'e', 'm', 'u', 'I', 'P', 'C'};

}  // namespace

int copy_memory(void* dst, const void* src, size_t bytes, int kind) {
    if (kind < 0 || kind > 4) return record_error(HJEMU_INVALID_MEMCPY_DIRECTION);
    if (bytes == 0) return 0;
    if (dst == nullptr || src == nullptr || !ranges_ok(dst, src, bytes)) return record_error(HJEMU_INVALID_VALUE);
    memmove(dst, src, bytes);
    return 0;
}

int copy_memory_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                   int kind) {
    if (kind < 0 || kind > 4) return record_error(HJEMU_INVALID_MEMCPY_DIRECTION);
    if (width > dpitch || width > spitch) return record_error(HJEMU_INVALID_PITCH);
    if (width == 0 || height == 0) return 0;
    if (dst == nullptr || src == nullptr) return record_error(HJEMU_INVALID_VALUE);
    const size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
    if (classify_range(dst, dspan) < 0 || classify_range(src, sspan) < 0) return record_error(HJEMU_INVALID_VALUE);
    for (size_t row = 0; row < height; ++row)
        memmove((char*)dst + row * dpitch, (const char*)src + row * spitch, width);
    return 0;
}

int fill_memory(void* dst, const void* pattern, size_t pattern_bytes, size_t count) {
    if (count == 0) return 0;
    const size_t bytes = count * pattern_bytes;
    if (dst == nullptr || bytes / pattern_bytes != count || !ranges_ok(dst, nullptr, bytes))
        return record_error(HJEMU_INVALID_VALUE);
    if (pattern_bytes == 1) {
        memset(dst, *(const unsigned char*)pattern, count);
    } else {
        for (size_t i = 0; i < count; ++i) memcpy((char*)dst + i * pattern_bytes, pattern, pattern_bytes);
    }
    return 0;
}

int fill_memory_2d(void* dst, size_t pitch, int value, size_t width, size_t height) {
    if (width > pitch) return record_error(HJEMU_INVALID_PITCH);
    if (width == 0 || height == 0) return 0;
    if (dst == nullptr || classify_range(dst, pitch * (height - 1) + width) < 0)
        return record_error(HJEMU_INVALID_VALUE);
    for (size_t row = 0; row < height; ++row) memset((char*)dst + row * pitch, value, width);
    return 0;
}

int host_alloc(void** ptr, size_t size) {
    if (ptr == nullptr) return record_error(HJEMU_INVALID_VALUE);
    *ptr = nullptr;
    if (size == 0) return 0;
    *ptr = aligned_alloc(256, (size + 255) / 256 * 256);
    return *ptr ? 0 : record_error(HJEMU_OUT_OF_MEMORY);
}

int host_free(void* ptr) {
    free(ptr);
    return 0;
}

int malloc_pitch(void** ptr, size_t* pitch, size_t width, size_t height) {
    if (ptr == nullptr || pitch == nullptr) return record_error(HJEMU_INVALID_VALUE);
    *pitch = (width + 255) / 256 * 256;
    return device_malloc(ptr, *pitch * height);
}

int ipc_get_handle(void* handle, void* ptr) {
    uintptr_t base = 0;
    size_t size = 0;
    uint64_t offset = 0;
    if (handle == nullptr || !allocation_in_arena(ptr, &base, &size) || !arena_offset(base, &offset))
        return record_error(HJEMU_INVALID_VALUE);
    IpcHandle h{};
    memcpy(h.magic, kIpcMagic, sizeof(kIpcMagic));
    h.offset = offset;
    h.bytes = size;
    h.identity = arena_identity();
    memcpy(handle, &h, sizeof(h));
    return 0;
}

int ipc_open_handle(void** ptr, const void* handle) {
    if (ptr == nullptr || handle == nullptr) return record_error(HJEMU_INVALID_VALUE);
    IpcHandle h;
    memcpy(&h, handle, sizeof(h));
    if (memcmp(h.magic, kIpcMagic, sizeof(kIpcMagic)) != 0) return record_error(HJEMU_INVALID_VALUE);
    void* p = arena_pointer(h.offset, h.bytes, h.identity);
    if (p == nullptr) return record_error(HJEMU_MAP_FAILED);
    *ptr = p;
    return 0;
}

int ipc_close_handle(void* ptr) { return arena_mapped(ptr) ? 0 : record_error(HJEMU_INVALID_VALUE); }

}  // namespace hjemu
