// Declarations shared by the runtime's source files (not part of any public header).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "../include/hjemu/abi.h"
#include "../include/hjemu/errors.h"

namespace hjemu {

constexpr int kFaultExit = 86;
constexpr size_t kSharedBytes = HJEMU_SHARED_BYTES;

// ---- messages (faults.cpp) -------------------------------------------------------------------
// A fixed-size text builder: safe in a signal handler (no allocation, no locale, no stdio).
class Message {
public:
    Message& add(const char* text);
    Message& num(uint64_t value);
    Message& snum(int64_t value);
    Message& hex(uint64_t value);
    Message& dim(unsigned x, unsigned y, unsigned z);  // (x,y,z)
    const char* text() const { return buf_; }
    size_t size() const { return len_; }

private:
    char buf_[2048] = {};
    size_t len_ = 0;
};

// Prints "hjemu: <message>[, in kernel K, block (..) thread (..)]" on stderr and exits with 86.
[[noreturn]] void die(Message& message, bool with_thread = true);
void add_kernel_context(Message& message, bool with_thread);
void install_fault_handlers();  // idempotent; puts ours back if someone replaced them
void prepare_host_thread();     // alternate signal stack and registration for the fault handler
const char* current_kernel();   // the kernel this host thread runs, or null
void allocate_thread_locals();  // every module's TLS in this host thread, before kernels (tls.cpp)

// ---- fibers (fiber.cpp) ----------------------------------------------------------------------
struct Fiber;
using FiberEntry = void (*)(Fiber*);
Fiber* fiber_take(FiberEntry entry);  // an idle fiber of this host thread, made on demand
void fiber_idle(Fiber* fiber);        // back to the pool (it is not running any GPU thread)
void fiber_resume(Fiber* fiber);      // from the scheduler into the fiber
void fiber_yield(Fiber* fiber);       // from the fiber back to this host thread's scheduler
bool fiber_guard_hit(uintptr_t address, size_t* stack_kib);

// ---- blocks and launches (block.cpp, launch.cpp) -----------------------------------------------
struct GridPlan {
    const hjemu_launch_t* launch;
    const char* kernel;         // display name
    unsigned threads;           // per block
    unsigned warp_size;
    uint64_t blocks;
    const uint3* thread_ids;    // threadIdx of each linear thread of a block
};
void run_block(const GridPlan& plan, uint64_t linear_block);

// The lanes of one wavefront when some of them wait at the same warp function (collective.cpp
// computes every participant's result, or dies explaining why the call is invalid).
struct CollectiveGroup {
    enum Where : uint8_t { kExited, kAtBarrier, kAtCollective };
    const GridPlan* plan;
    unsigned lo;                  // linear index of the wavefront's first lane in the block
    unsigned lanes;               // lanes of the wavefront that exist (fewer in a partial one)
    uint64_t active;              // bit k: lane lo + k takes part in this call
    Where where[64];
    int line[64];
    hjemu_collective_t request[64];
    uint64_t result[64];
};
void resolve_collective(CollectiveGroup& group);
void resolve_matrix(CollectiveGroup& group);  // matrix.cpp: every lane of the wavefront, or it dies
void resolve_lanes(CollectiveGroup& group);   // lanes.cpp: readlane, ds_bpermute, DPP, ...
bool dynamic_shared_guard_hit(uintptr_t address, int64_t* offset, size_t* requested);
void set_running_kernel(const char* kernel);  // null when the host thread leaves a kernel

// ---- errors and device description (device.cpp) -----------------------------------------------
int record_error(int code);  // remembers a failure for GetLastError; returns code
int take_last_error();
int peek_last_error();
const char* error_name(int code, int api);
const char* error_string(int code);
size_t host_memory_bytes();

// What hipDeviceProp_t and cudaDeviceProp say alike (both emulated GPUs, the emulator's limits);
// api_hip.cpp and api_cuda.cpp fill in the rest.
template <class Props>
void describe_common(Props* p) {
    *p = Props{};
    p->totalGlobalMem = host_memory_bytes();
    p->sharedMemPerBlock = p->sharedMemPerBlockOptin = p->sharedMemPerMultiprocessor = kSharedBytes;
    p->regsPerBlock = p->regsPerMultiprocessor = 65536;
    p->memPitch = INT_MAX;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxGridSize[0] = INT_MAX;
    p->totalConstMem = 65536;
    p->major = 9;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->concurrentKernels = 1;
    p->canMapHostMemory = 1;
    p->ECCEnabled = 1;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
}

// ---- events, streams, copies (objects.cpp, copy.cpp) ----------------------------------------------
int event_create(void** event);
int event_record(void* event);
int event_check(void* event);  // 0 when it is a live event
int event_elapsed(float* ms, void* start, void* stop);
int event_destroy(void* event);
int stream_create(void** stream);
int stream_check(void* stream);  // the default and per-thread streams are always valid
int stream_destroy(void* stream);
int copy_memory(void* dst, const void* src, size_t bytes, int kind);
int copy_memory_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                   int kind);
int fill_memory(void* dst, const void* pattern, size_t pattern_bytes, size_t count);
int fill_memory_2d(void* dst, size_t pitch, int value, size_t width, size_t height);
int host_alloc(void** ptr, size_t size);
int host_free(void* ptr);
int malloc_pitch(void** ptr, size_t* pitch, size_t width, size_t height);
int ipc_get_handle(void* handle, void* ptr);
int ipc_open_handle(void** ptr, const void* handle);
int ipc_close_handle(void* ptr);

// ---- device memory (memory.cpp, arena.cpp) ----------------------------------------------------
struct Allocation {
    uintptr_t base;     // the pointer handed out
    size_t size;        // bytes asked for
    size_t span;        // size rounded up to 16: the end touches the upper guard page
    uintptr_t map;      // start of the reserved range (lower guard page)
    size_t map_bytes;   // whole range: guard, data pages, guard
    size_t guard;       // bytes of each guard
    size_t element_bytes;
    bool in_arena;
    bool live;
    char name[64];
};
int device_malloc(void** ptr, size_t size);
int device_free(void* ptr);
// Where a device range lies: 1 inside one allocation, 0 outside every allocation (host memory or
// a __device__ variable), -1 partly outside the allocation it starts in.
int classify_range(const void* ptr, size_t bytes);
void check_canaries(const char* when);  // dies if a kernel wrote into an allocation's padding
const Allocation* allocation_at_guard(uintptr_t address, int64_t* offset);
const Allocation* allocation_overrun(uintptr_t address, int64_t* offset);  // just past an end
const Allocation* allocation_freed_at(uintptr_t address);
bool allocation_in_arena(const void* ptr, uintptr_t* base, size_t* size);
void add_buffer(Message& message, const Allocation& allocation);  // device buffer 'a' (N bytes)
void describe_offset(Message& message, const Allocation& allocation, int64_t offset);
void name_allocation(const void* ptr, const char* name, size_t element_bytes);
size_t page_size();

// The shared arena (arena.cpp): device memory carved from a memfd when HJEMU_ARENA_FD names one.
bool arena_active();
bool arena_reserve(size_t bytes, uintptr_t* start);  // page-aligned range inside the arena
void arena_release(uintptr_t start, size_t bytes);
bool arena_offset(uintptr_t address, uint64_t* offset);
int arena_attach(int fd);
bool arena_mapped(const void* ptr);  // inside the owned or the attached arena
void* arena_pointer(uint64_t offset, uint64_t bytes, uint64_t identity);
uint64_t arena_identity();

}  // namespace hjemu
