// Fibers: the GPU threads of a block, each on its own small stack, switched cooperatively.
//
// On x86-64 a switch saves the six callee-saved registers on the current stack and swaps stack
// pointers (a handful of instructions); elsewhere ucontext does the same job, more slowly.
// MXCSR and the x87 control word are not switched: kernels do not change them and all fibers of
// a host thread share them anyway. Each host thread keeps its own pool of fibers, so a fiber
// never migrates between host threads.
#include <sys/mman.h>

#include <cstdlib>
#include <vector>

#include "internal.h"

// HJEMU_UCONTEXT forces the portable switch (to test it on x86-64).
#if defined(__x86_64__) && !defined(HJEMU_UCONTEXT)
#define HJEMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

namespace hjemu {
namespace {

// Below each stack. Kernels are compiled with -fstack-clash-protection, so even a frame larger
// than this touches it page by page instead of jumping over it.
constexpr size_t kGuardBytes = 16 * 1024;
// Stacks are mapped at a fixed stride, so their tops would all fall in the same cache sets; each
// fiber's stack starts a different number of cache lines below its top instead.
constexpr size_t kColours = 128;
constexpr size_t kColourBytes = 64;

size_t stack_bytes() {
    static const size_t bytes = [] {
        const char* env = getenv("HJEMU_STACK_KIB");
        long kib = env ? strtol(env, nullptr, 10) : 0;
        if (kib < 16 || kib > 64 * 1024) kib = 64;
        return (size_t)kib * 1024;
    }();
    return bytes;
}

}  // namespace

#if defined(HJEMU_ASM_SWITCH)
extern "C" void hjemu_switch_stack(void** save_sp, void* load_sp);
extern "C" void hjemu_fiber_start();
// hjemu_switch_stack(save, load): push callee-saved registers, store rsp in *save, load rsp, pop,
// return into the other context. A new fiber's stack is prepared so that its first "return" lands
// in hjemu_fiber_start with the entry function in r13 and its argument in r12.
asm(R"(
    .text
    .globl hjemu_switch_stack
    .hidden hjemu_switch_stack
    .type hjemu_switch_stack, @function
hjemu_switch_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size hjemu_switch_stack, .-hjemu_switch_stack

    .globl hjemu_fiber_start
    .hidden hjemu_fiber_start
    .type hjemu_fiber_start, @function
hjemu_fiber_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size hjemu_fiber_start, .-hjemu_fiber_start
)");
#endif

struct Fiber {
#if defined(HJEMU_ASM_SWITCH)
    void* sp = nullptr;
#else
    ucontext_t context;
#endif
    char* guard = nullptr;  // lowest kGuardBytes of the mapping: overflowing the stack lands here
    FiberEntry entry = nullptr;
    Fiber* next_idle = nullptr;
};

namespace {
struct FiberPool {
    Fiber* idle = nullptr;
    std::vector<Fiber*> all;
#if defined(HJEMU_ASM_SWITCH)
    void* scheduler_sp = nullptr;
#else
    ucontext_t scheduler;
#endif
};
// A pointer, not an object: C++ thread_local objects pay an initialisation check on every access.
__thread FiberPool* tl_pool = nullptr;

FiberPool& pool() {
    if (tl_pool == nullptr) tl_pool = new FiberPool;  // one per host thread, never freed
    return *tl_pool;
}

#if !defined(HJEMU_ASM_SWITCH)
void ucontext_entry(unsigned lo, unsigned hi) {
    Fiber* f = (Fiber*)(((uintptr_t)hi << 32) | lo);
    f->entry(f);
}
#endif

Fiber* make_fiber(FiberEntry entry) {
    const size_t guard = kGuardBytes;
    const size_t bytes = stack_bytes() + kColours * kColourBytes + guard;
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (mem == MAP_FAILED) {
        Message m;
        m.add("cannot allocate the stack of a GPU thread (").num(bytes / 1024).add(" KiB): out of memory");
        die(m);
    }
    mprotect(mem, guard, PROT_NONE);
    auto* f = new Fiber;
    f->guard = (char*)mem;
    f->entry = entry;
    char* top = (char*)mem + bytes - pool().all.size() % kColours * kColourBytes;
#if defined(HJEMU_ASM_SWITCH)
    // Seven slots popped by hjemu_switch_stack (r15 r14 r13 r12 rbx rbp, return address); the
    // stack is 16-byte aligned again when hjemu_fiber_start calls the entry function.
    void** sp = (void**)(top - 72);
    sp[0] = nullptr;                      // r15
    sp[1] = nullptr;                      // r14
    sp[2] = (void*)entry;                 // r13
    sp[3] = f;                            // r12
    sp[4] = nullptr;                      // rbx
    sp[5] = nullptr;                      // rbp
    sp[6] = (void*)&hjemu_fiber_start;    // return address
    f->sp = sp;
#else
    getcontext(&f->context);
    f->context.uc_stack.ss_sp = (char*)mem + guard;
    f->context.uc_stack.ss_size = stack_bytes();
    f->context.uc_link = nullptr;
    makecontext(&f->context, (void (*)())ucontext_entry, 2, (unsigned)(uintptr_t)f,
                (unsigned)((uintptr_t)f >> 32));
#endif
    pool().all.push_back(f);
    return f;
}
}  // namespace

Fiber* fiber_take(FiberEntry entry) {
    FiberPool& p = pool();
    Fiber* f = p.idle;
    if (f == nullptr) return make_fiber(entry);
    p.idle = f->next_idle;
    return f;
}

void fiber_idle(Fiber* fiber) {
    FiberPool& p = *tl_pool;
    fiber->next_idle = p.idle;
    p.idle = fiber;
}

void fiber_resume(Fiber* fiber) {
#if defined(HJEMU_ASM_SWITCH)
    hjemu_switch_stack(&tl_pool->scheduler_sp, fiber->sp);
#else
    swapcontext(&tl_pool->scheduler, &fiber->context);
#endif
}

void fiber_yield(Fiber* fiber) {
#if defined(HJEMU_ASM_SWITCH)
    hjemu_switch_stack(&fiber->sp, tl_pool->scheduler_sp);
#else
    swapcontext(&fiber->context, &tl_pool->scheduler);
#endif
}

bool fiber_guard_hit(uintptr_t address, size_t* stack_kib) {
    for (Fiber* f : pool().all) {
        if (address >= (uintptr_t)f->guard && address < (uintptr_t)f->guard + kGuardBytes) {
            *stack_kib = stack_bytes() / 1024;
            return true;
        }
    }
    return false;
}

}  // namespace hjemu
