// Every loaded module's thread-local storage, allocated in this host thread before it runs a block.
//
// Kernels reach their `__shared__` variables (static thread_locals of solution.so) and threadIdx &
// co. (thread_locals of libhjemu.so) through TLS descriptors (-mtls-dialect=gnu2): the compiler
// treats each access as a call that changes nothing but %rax. Both libraries are dlopen()ed, so a
// module whose TLS did not fit the loader's static surplus (a `float tile[32][33]` does not) is
// "dynamic": the first access in each thread, and the first after a later dlopen(), takes
// glibc's slow path, which calls malloc and, in glibc before the fix of its bug 31372 (Debian 12's
// 2.36 among them), leaves the SSE registers clobbered. A float the kernel held in %xmm0 across
// that first touch became 0: the tiled transpose and the tree reduction of issue 29 returned 0.
//
// The slow path runs only when the thread's DTV is older than the module or the module's block
// is not allocated in this thread. Calling __tls_get_addr (an ordinary function: our caller
// saves what it needs) for every module with TLS brings the DTV up to date and allocates every
// block, so no access inside a kernel leaves the fast path. dl_iterate_phdr's dlpi_tls_data is
// null exactly when the fast path would miss (a stale DTV or an unallocated block), so it says
// whether there is anything to do and, after, that it was done: a module still missing is an
// internal error, never a silent wrong answer.
#include <link.h>

#include <cstddef>
#include <cstdint>

#include "internal.h"

#if defined(__GLIBC__)
extern "C" void* __tls_get_addr(void*);

namespace hjemu {
namespace {

struct TlsIndex {
    unsigned long module;
    unsigned long offset;
};

struct Pass {
    bool allocate;
    const char* missing = nullptr;  // a module whose TLS the fast path would not find
};

int visit(struct dl_phdr_info* info, size_t size, void* data) {
    auto* pass = static_cast<Pass*>(data);
    if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(info->dlpi_tls_data)) return 1;
    if (info->dlpi_tls_modid == 0) return 0;  // no PT_TLS segment
    if (pass->allocate) {
        TlsIndex index{(unsigned long)info->dlpi_tls_modid, 0};
        (void)__tls_get_addr(&index);
    } else if (info->dlpi_tls_data == nullptr && pass->missing == nullptr) {
        pass->missing = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the main program";
    }
    return 0;
}

}  // namespace

// noinline: nothing of a caller's computation is live in registers across it but what the
// ordinary calling convention saves.
__attribute__((noinline)) void allocate_thread_locals() {
    Pass check{false};
    dl_iterate_phdr(&visit, &check);
    if (check.missing == nullptr) return;  // the usual case: nothing loaded since the last launch
    Pass allocate{true};
    dl_iterate_phdr(&visit, &allocate);
    Pass verify{false};
    dl_iterate_phdr(&visit, &verify);
    if (verify.missing != nullptr) {
        Message m;
        m.add("internal error: the thread-local storage of ").add(verify.missing)
            .add(" could not be allocated before the kernel ran");
        die(m, false);
    }
}

}  // namespace hjemu
#else
namespace hjemu {
void allocate_thread_locals() {}
}  // namespace hjemu
#endif
