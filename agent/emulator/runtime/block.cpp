// One block on one host thread: its GPU threads ("lanes") as fibers.
//
// A lane runs until it reaches __syncthreads, a wavefront collective, or the end of the kernel.
// The scheduler works wavefront by wavefront: it starts every lane of a wavefront in order, and
// when all of them wait (or have exited) it resolves their collectives, the lanes at one call
// site forming the active set, and lets them go on. When every lane of the block waits at a
// barrier or has exited, the barrier is checked (all at the same one, nobody gone) and released.
// A lane that finishes hands its stack straight to the next lane, so a kernel without barriers
// or collectives runs each thread to completion on one reused stack.
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "internal.h"

extern "C" {
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;
}

namespace hjemu {
namespace {

enum class LaneState : uint8_t { Fresh, Running, Ready, Barrier, Collective, Exited };

struct Lane {
    LaneState state = LaneState::Fresh;
    int line = 0;
    int barrier_kind = 0;
    int predicate = 0;
    Fiber* fiber = nullptr;
    hjemu_collective_t request{};
    uint64_t result = 0;
};

struct BlockRun {
    const GridPlan* plan = nullptr;
    unsigned threads = 0;
    unsigned warp = 0;
    unsigned current = 0;
    unsigned collective_waiting = 0;
    int barrier_result = 0;
    bool active = false;
    std::vector<Lane> lanes;
};

// Plain pointers, not objects with constructors: every access to a C++ thread_local object would
// go through its initialisation check, and these are read at every barrier.
__thread BlockRun* tl_block = nullptr;
// Dynamic shared memory: page guard, 64 KiB, page guard. Only the pages the current launch asked
// for are accessible, so an access beyond them faults; the start never moves.
__thread char* tl_dynamic_shared = nullptr;
__thread size_t tl_dynamic_accessible = 0;
__thread size_t tl_dynamic_requested = 0;

BlockRun& running_block(const char* what) {
    BlockRun* b = tl_block;
    if (b == nullptr || !b->active) {
        Message m;
        m.add(what).add(" was called outside a kernel");
        die(m, false);
    }
    return *b;
}

void enter(BlockRun& b, unsigned lane) {
    b.current = lane;
    threadIdx = b.plan->thread_ids[lane];
    b.lanes[lane].state = LaneState::Running;
}

void lane_main(Fiber* fiber) {
    for (;;) {
        BlockRun& b = *tl_block;
        unsigned lane = b.current;
        for (;;) {
            b.lanes[lane].fiber = fiber;
            b.plan->launch->thunk(b.plan->launch->ctx);
            b.lanes[lane].state = LaneState::Exited;
            b.lanes[lane].fiber = nullptr;
            // Start the next thread right here when the scheduler would start it next anyway:
            // the same wavefront, or a new one when no lane waits at a collective.
            const unsigned next = lane + 1;
            if (next < b.threads && b.lanes[next].state == LaneState::Fresh &&
                (next % b.warp != 0 || b.collective_waiting == 0)) {
                enter(b, next);
                lane = next;
                continue;
            }
            break;
        }
        fiber_idle(fiber);
        fiber_yield(fiber);
    }
}

void start_lane(BlockRun& b, unsigned lane) {
    Fiber* f = fiber_take(&lane_main);
    enter(b, lane);
    fiber_resume(f);
}

void resume_lane(BlockRun& b, unsigned lane) {
    enter(b, lane);
    fiber_resume(b.lanes[lane].fiber);
}

bool resolve_wavefront(BlockRun& b, unsigned lo, unsigned hi);

// Runs the lanes of wavefront [lo, hi) until each waits at a barrier or has exited.
void settle_wavefront(BlockRun& b, unsigned lo, unsigned hi) {
    for (;;) {
        for (unsigned i = lo; i < hi; ++i) {
            if (b.lanes[i].state == LaneState::Fresh) start_lane(b, i);
            else if (b.lanes[i].state == LaneState::Ready) resume_lane(b, i);
        }
        if (b.collective_waiting == 0 || !resolve_wavefront(b, lo, hi)) return;
    }
}

void add_thread(Message& m, const BlockRun& b, unsigned lane) {
    const uint3 t = b.plan->thread_ids[lane];
    m.add("thread ").dim(t.x, t.y, t.z);
}

[[noreturn]] void barrier_divergence(const BlockRun& b, unsigned waiter, unsigned other, bool other_exited,
                                     unsigned waiting, unsigned exited) {
    Message m;
    m.add("barrier divergence: ");
    if (other_exited) {
        m.num(waiting).add(waiting == 1 ? " thread (" : " threads (");
        add_thread(m, b, waiter);
        m.add(waiting == 1 ? ") waits" : " first) wait").add(" at __syncthreads() on line ")
            .snum(b.lanes[waiter].line).add(" but ").num(exited).add(exited == 1 ? " thread (" : " threads (");
        add_thread(m, b, other);
        m.add(exited == 1 ? ") has" : " first) have").add(" already exited; every thread of a block must "
              "reach each __syncthreads() (an early return before a barrier is the usual cause)");
    } else {
        add_thread(m, b, waiter);
        m.add(" waits at __syncthreads() on line ").snum(b.lanes[waiter].line).add(" while ");
        add_thread(m, b, other);
        m.add(" waits at the one on line ").snum(b.lanes[other].line)
            .add("; every thread of a block must reach the same __syncthreads()");
    }
    die(m, false);
}

// All lanes wait at a barrier or have exited: check it is one barrier for everyone, release it.
bool release_barrier(BlockRun& b) {
    unsigned waiting = 0, exited = 0, first_waiter = 0, first_exited = 0;
    for (unsigned i = 0; i < b.threads; ++i) {
        const Lane& l = b.lanes[i];
        if (l.state == LaneState::Barrier) {
            if (waiting++ == 0) first_waiter = i;
            else if (l.line != b.lanes[first_waiter].line)
                barrier_divergence(b, first_waiter, i, false, 0, 0);
        } else if (exited++ == 0) {
            first_exited = i;
        }
    }
    if (waiting == 0) return false;
    if (exited != 0) barrier_divergence(b, first_waiter, first_exited, true, waiting, exited);
    int count = 0;
    for (const Lane& l : b.lanes) count += l.predicate;
    switch (b.lanes[first_waiter].barrier_kind) {
        case 1: b.barrier_result = count; break;
        case 2: b.barrier_result = count == (int)b.threads; break;
        case 3: b.barrier_result = count != 0; break;
        default: b.barrier_result = 0;
    }
    for (Lane& l : b.lanes) l.state = LaneState::Ready;
    return true;
}

char* dynamic_shared_mapping() {
    if (tl_dynamic_shared == nullptr) {
        const size_t page = page_size();
        void* mem = mmap(nullptr, kSharedBytes + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) {
            Message m;
            m.add("cannot allocate the shared memory of a block: out of memory");
            die(m, false);
        }
        tl_dynamic_shared = (char*)mem;
        tl_dynamic_accessible = 0;
    }
    return tl_dynamic_shared;
}

void expose_dynamic_shared(size_t bytes) {
    const size_t page = page_size();
    const size_t want = (bytes + page - 1) / page * page;
    tl_dynamic_requested = bytes;
    if (want == tl_dynamic_accessible) return;
    char* base = dynamic_shared_mapping() + page;
    if (want) mprotect(base, want, PROT_READ | PROT_WRITE);
    if (want < kSharedBytes) mprotect(base + want, kSharedBytes - want, PROT_NONE);
    tl_dynamic_accessible = want;
}

}  // namespace

namespace {
bool resolve_wavefront(BlockRun& b, unsigned lo, unsigned hi) {
    bool resolved = false;
    for (unsigned i = lo; i < hi; ++i) {
        const Lane& first = b.lanes[i];
        if (first.state != LaneState::Collective) continue;
        CollectiveGroup group;
        group.plan = b.plan;
        group.lo = lo;
        group.lanes = hi - lo;
        group.active = 0;
        for (unsigned j = lo; j < hi; ++j) {
            const Lane& l = b.lanes[j];
            const unsigned k = j - lo;
            group.request[k] = l.request;
            group.line[k] = l.line;
            group.where[k] = l.state == LaneState::Exited    ? CollectiveGroup::kExited
                           : l.state == LaneState::Barrier   ? CollectiveGroup::kAtBarrier
                                                             : CollectiveGroup::kAtCollective;
            if (l.state == LaneState::Collective && l.line == first.line && l.request.op == first.request.op)
                group.active |= 1ull << k;
        }
        resolve_collective(group);
        for (unsigned j = lo; j < hi; ++j) {
            if (!(group.active >> (j - lo) & 1)) continue;
            b.lanes[j].result = group.result[j - lo];
            b.lanes[j].state = LaneState::Ready;
            --b.collective_waiting;
        }
        resolved = true;
    }
    return resolved;
}
}  // namespace

void run_block(const GridPlan& plan, uint64_t linear) {
    if (tl_block == nullptr) tl_block = new BlockRun;  // one per host thread, never freed
    BlockRun& b = *tl_block;
    const hjemu_launch_t& launch = *plan.launch;
    b.plan = &plan;
    b.threads = plan.threads;
    b.warp = plan.warp_size;
    b.collective_waiting = 0;
    b.lanes.resize(plan.threads);
    for (Lane& l : b.lanes) {
        l.state = LaneState::Fresh;
        l.fiber = nullptr;
    }
    gridDim = launch.grid;
    blockDim = launch.block;
    const uint64_t per_plane = (uint64_t)launch.grid.x * launch.grid.y;
    blockIdx = make_uint3((unsigned)(linear % launch.grid.x), (unsigned)(linear / launch.grid.x % launch.grid.y),
                          (unsigned)(linear / per_plane));
    // Shared memory holds garbage on a GPU: all-ones bits (NaN as float, -1 as int) make a read
    // before the first write visible.
    expose_dynamic_shared(launch.shared_bytes);
    if (launch.shared_bytes) memset(hjemu_dynamic_shared(), 0xFF, launch.shared_bytes);
    b.active = true;
    do {
        for (unsigned lo = 0; lo < b.threads; lo += b.warp)
            settle_wavefront(b, lo, lo + b.warp < b.threads ? lo + b.warp : b.threads);
    } while (release_barrier(b));
    b.active = false;
}

bool dynamic_shared_guard_hit(uintptr_t address, int64_t* offset, size_t* requested) {
    if (tl_dynamic_shared == nullptr) return false;
    const uintptr_t base = (uintptr_t)tl_dynamic_shared + page_size();
    if (address + page_size() < base || address >= base + kSharedBytes + page_size()) return false;
    if (address >= base && address < base + tl_dynamic_accessible) return false;
    *offset = (int64_t)(address - base);
    *requested = tl_dynamic_requested;
    return true;
}

}  // namespace hjemu

extern "C" {

int hjemu_barrier(int line, int kind, int predicate) {
    using namespace hjemu;
    BlockRun& b = running_block("__syncthreads()");
    Lane& l = b.lanes[b.current];
    l.state = LaneState::Barrier;
    l.line = line;
    l.barrier_kind = kind;
    l.predicate = predicate;
    fiber_yield(l.fiber);
    return b.barrier_result;
}

uint64_t hjemu_warp_collective(const hjemu_collective_t* request) {
    using namespace hjemu;
    BlockRun& b = running_block("a warp function (__shfl, __ballot, ...)");
    Lane& l = b.lanes[b.current];
    l.request = *request;
    l.line = request->line;
    l.state = LaneState::Collective;
    ++b.collective_waiting;
    fiber_yield(l.fiber);
    return l.result;
}

unsigned int hjemu_lane_id(void) {
    using namespace hjemu;
    BlockRun& b = running_block("__lane_id()");
    return b.current % b.warp;
}

void* hjemu_dynamic_shared(void) { return hjemu::dynamic_shared_mapping() + hjemu::page_size(); }
}
