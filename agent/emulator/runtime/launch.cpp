// Launches: the configuration checks a GPU runtime makes, then the grid's blocks spread over a
// pool of host threads (HJEMU_THREADS, default the CPUs this process may use). The launching
// thread takes blocks too, and the launch returns when every block has finished: execution is
// synchronous, so events, streams and synchronization calls have nothing left to wait for.
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "internal.h"

namespace hjemu {
namespace {

struct WorkerPool {
    std::mutex mutex;
    std::condition_variable wake;
    std::condition_variable finished;
    std::vector<std::thread> workers;
    uint64_t generation = 0;
    const GridPlan* plan = nullptr;
    std::atomic<uint64_t> next_block{0};
    unsigned busy = 0;
};

// Never destroyed: the workers wait on it until the process exits.
WorkerPool& pool() {
    static WorkerPool* p = new WorkerPool;
    return *p;
}

std::mutex& launch_mutex() {
    static std::mutex* m = new std::mutex;
    return *m;
}

unsigned host_threads() {
    if (const char* env = getenv("HJEMU_THREADS")) {
        const long n = strtol(env, nullptr, 10);
        if (n >= 1 && n <= 256) return (unsigned)n;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return (unsigned)CPU_COUNT(&set);
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

void run_blocks(const GridPlan& plan) {
    WorkerPool& p = pool();
    allocate_thread_locals();  // before any kernel code runs on this host thread (tls.cpp)
    set_running_kernel(plan.kernel);
    for (;;) {
        const uint64_t block = p.next_block.fetch_add(1, std::memory_order_relaxed);
        if (block >= plan.blocks) break;
        run_block(plan, block);
    }
    set_running_kernel(nullptr);
}

void worker_main() {
    prepare_host_thread();
    WorkerPool& p = pool();
    uint64_t seen = 0;
    for (;;) {
        const GridPlan* plan;
        {
            std::unique_lock<std::mutex> lock(p.mutex);
            p.wake.wait(lock, [&] { return p.generation != seen; });
            seen = p.generation;
            plan = p.plan;
        }
        run_blocks(*plan);
        std::lock_guard<std::mutex> lock(p.mutex);
        if (--p.busy == 0) p.finished.notify_all();
    }
}

void start_workers() {
    static std::once_flag once;
    std::call_once(once, [] {
        WorkerPool& p = pool();
        for (unsigned i = 1; i < host_threads(); ++i) {
            try {
                p.workers.emplace_back(worker_main);
            } catch (...) {
                break;  // a thread limit: run with the threads we have
            }
        }
    });
}

bool zero(dim3 d) { return d.x == 0 || d.y == 0 || d.z == 0; }

// The error a GPU runtime returns for this configuration (0 when it is valid).
int check_configuration(const hjemu_launch_t& l) {
    const uint64_t threads = (uint64_t)l.block.x * l.block.y * l.block.z;
    if (l.api == HJEMU_API_HIP) {
        // ROCm's order: malformed or empty sizes, then shared memory, then the block size.
        if ((uint64_t)l.grid.x * l.block.x > UINT32_MAX || (uint64_t)l.grid.y * l.block.y > UINT32_MAX ||
            (uint64_t)l.grid.z * l.block.z > UINT32_MAX || l.block.x > UINT16_MAX ||
            l.block.y > UINT16_MAX || l.block.z > UINT16_MAX)
            return HJEMU_INVALID_CONFIGURATION;
        if (zero(l.grid) || zero(l.block)) return HJEMU_INVALID_CONFIGURATION;
        if (l.shared_bytes > kSharedBytes) return HJEMU_INVALID_VALUE;
        if (threads > 1024) return HJEMU_INVALID_CONFIGURATION;
        return 0;
    }
    if (zero(l.grid) || zero(l.block) || threads > 1024 || l.block.z > 64 || l.grid.x > 0x7FFFFFFFu ||
        l.grid.y > 65535 || l.grid.z > 65535)
        return HJEMU_INVALID_CONFIGURATION;
    if (l.shared_bytes > kSharedBytes) return HJEMU_INVALID_VALUE;
    return 0;
}

// `hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T>), ...)` names the kernel `k<T>` in messages.
const char* display_name(const char* name, std::vector<char>& storage) {
    static const char prefix[] = "HIP_KERNEL_NAME(";
    const size_t n = strlen(name);
    if (n > sizeof(prefix) && strncmp(name, prefix, sizeof(prefix) - 1) == 0 && name[n - 1] == ')') {
        storage.assign(name + sizeof(prefix) - 1, name + n - 1);
        storage.push_back('\0');
        return storage.data();
    }
    return name;
}

}  // namespace
}  // namespace hjemu

extern "C" int hjemu_launch_grid(const hjemu_launch_t* launch) {
    using namespace hjemu;
    if (const char* outer = current_kernel()) {
        Message m;
        m.add("kernel ").add(outer).add(" launched kernel ").add(launch->kernel)
            .add(": launching from device code (dynamic parallelism) is not supported");
        die(m);
    }
    if (const int error = check_configuration(*launch)) return record_error(error);
    install_fault_handlers();
    prepare_host_thread();
    start_workers();

    std::vector<uint3> ids((size_t)launch->block.x * launch->block.y * launch->block.z);
    for (size_t i = 0; i < ids.size(); ++i)
        ids[i] = make_uint3((unsigned)(i % launch->block.x), (unsigned)(i / launch->block.x % launch->block.y),
                            (unsigned)(i / ((size_t)launch->block.x * launch->block.y)));
    std::vector<char> name_storage;
    GridPlan plan{launch, display_name(launch->kernel, name_storage), (unsigned)ids.size(),
                  (unsigned)launch->warp_size,
                  (uint64_t)launch->grid.x * launch->grid.y * launch->grid.z, ids.data()};

    std::lock_guard<std::mutex> serialized(launch_mutex());
    WorkerPool& p = pool();
    p.next_block.store(0, std::memory_order_relaxed);
    const unsigned helpers = plan.blocks > 1 ? (unsigned)p.workers.size() : 0;
    if (helpers) {
        std::lock_guard<std::mutex> lock(p.mutex);
        p.plan = &plan;
        p.busy = helpers;
        ++p.generation;
        p.wake.notify_all();
    }
    run_blocks(plan);
    if (helpers) {
        std::unique_lock<std::mutex> lock(p.mutex);
        p.finished.wait(lock, [&] { return p.busy == 0; });
    }
    check_canaries(plan.kernel);
    return 0;
}
