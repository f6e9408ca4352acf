// Faults: one `hjemu: ` line on stderr naming what went wrong and where, then exit code 86.
//
// SIGSEGV/SIGBUS in a device buffer's guard page is an out-of-bounds access of that buffer; in a
// fiber's guard page a stack overflow; elsewhere inside a kernel an invalid address. SIGFPE and
// SIGILL inside a kernel are reported too. A fault that is not ours (outside any kernel and any
// guard page) goes to the handler that was installed before us. The handler runs on an alternate
// stack (a fiber's stack may be the thing that overflowed) and only reads this thread's
// thread-local state once it knows the thread has touched it (see prepare_host_thread).
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>
#include <ucontext.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace hjemu {

Message& Message::add(const char* text) {
    for (; text && *text && len_ + 1 < sizeof(buf_); ++text) buf_[len_++] = *text;
    buf_[len_] = '\0';
    return *this;
}

Message& Message::num(uint64_t value) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
    return add(text);
}

Message& Message::snum(int64_t value) {
    if (value < 0) {
        add("-");
        return num(0 - (uint64_t)value);
    }
    return num((uint64_t)value);
}

Message& Message::hex(uint64_t value) {
    char text[20];
    int n = 0;
    do {
        text[n++] = "0123456789abcdef"[value & 15];
        value >>= 4;
    } while (value);
    for (int i = 0; i < n / 2; ++i) {
        const char c = text[i];
        text[i] = text[n - 1 - i];
        text[n - 1 - i] = c;
    }
    text[n] = '\0';
    return add(text);
}

Message& Message::dim(unsigned x, unsigned y, unsigned z) {
    return add("(").num(x).add(",").num(y).add(",").num(z).add(")");
}

void describe_offset(Message& m, const Allocation& a, int64_t offset) {
    m.add(" at byte ").snum(offset);
    const int64_t past = offset - (int64_t)a.size;
    const int64_t e = (int64_t)a.element_bytes;
    if (offset < 0 && e) m.add(" (").snum((-offset + e - 1) / e).add(" element(s) before the start)");
    else if (offset < 0) m.add(" (").snum(-offset).add(" bytes before the start)");
    else if (e) m.add(" (").snum(past / e + 1).add(past / e == 0 ? " element" : " elements").add(" past the end)");
    else if (past == 0) m.add(" (just past the end)");
    else m.add(" (").snum(past).add(" bytes past the end)");
}

void add_buffer(Message& m, const Allocation& a) {
    m.add("device buffer ");
    if (a.name[0]) m.add("'").add(a.name).add("' ");
    m.add("(").num(a.size).add(" bytes)");
}

namespace {

__thread const char* tl_kernel = nullptr;
std::atomic<pid_t> g_prepared_threads[1024];
std::atomic<unsigned> g_prepared_count{0};
struct sigaction g_previous[32];
const int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

pid_t thread_id() { return (pid_t)syscall(SYS_gettid); }

// Whether this thread's thread-locals exist already (reading them in a signal handler must not
// make the dynamic loader allocate them).
bool thread_prepared() {
    const pid_t me = thread_id();
    const unsigned n = g_prepared_count.load();
    for (unsigned i = 0; i < n && i < 1024; ++i)
        if (g_prepared_threads[i].load(std::memory_order_acquire) == me) return true;
    return false;
}

[[noreturn]] void finish(Message& m) {
    m.add("\n");
    ssize_t ignored = write(2, m.text(), m.size());
    (void)ignored;
    _exit(kFaultExit);
}

// The first fault reported ends the process; a fault in another host thread meanwhile waits.
std::atomic<int> g_reporting{0};

void claim_report() {
    if (g_reporting.exchange(1))
        for (;;) pause();
}

void on_fault(int sig, siginfo_t* info, void* context) {
    const bool prepared = thread_prepared();
    const char* kernel = prepared ? tl_kernel : nullptr;
    const uintptr_t address = (uintptr_t)info->si_addr;
    Message m;
    m.add("hjemu: ");
    const char* access = "access";
#if defined(__x86_64__)
    access = (((ucontext_t*)context)->uc_mcontext.gregs[REG_ERR] & 2) ? "write" : "read";
#else
    (void)context;
#endif
    int64_t offset = 0;
    size_t stack_kib = 0, requested = 0;
    if (sig == SIGSEGV || sig == SIGBUS) {
        if (const Allocation* a = allocation_at_guard(address, &offset)) {
            m.add("out-of-bounds ").add(access).add(" of ");
            add_buffer(m, *a);
            describe_offset(m, *a, offset);
        } else if (prepared && fiber_guard_hit(address, &stack_kib)) {
            m.add("stack overflow: a GPU thread used more than its ").num(stack_kib)
                .add(" KiB stack (large local arrays or deep recursion; HJEMU_STACK_KIB sets the size)");
        } else if (prepared && dynamic_shared_guard_hit(address, &offset, &requested)) {
            m.add("out-of-bounds ").add(access).add(" of dynamic shared memory (extern __shared__) at byte ")
                .snum(offset).add(": the launch gave each block ").num(requested).add(" bytes");
        } else if (const Allocation* a = allocation_overrun(address, &offset)) {
            m.add("out-of-bounds ").add(access).add(" of ");
            add_buffer(m, *a);
            describe_offset(m, *a, offset);
        } else if (kernel) {
            m.add("invalid memory ").add(access);
            if (info->si_code == SI_KERNEL) {
                m.add(" (a misaligned vector access or a non-canonical address)");
            } else {
                m.add(" at address 0x").hex(address);
                if (address < 4096) m.add(" (a null pointer)");
                else if (const Allocation* f = allocation_freed_at(address)) {
                    m.add(" (inside ");
                    add_buffer(m, *f);
                    m.add(", which was freed)");
                }
            }
        } else {
            sigaction(sig, &g_previous[sig], nullptr);  // not ours: let the previous handler see it
            return;
        }
    } else if (kernel && sig == SIGFPE) {
        m.add(info->si_code == FPE_INTDIV ? "integer division by zero" : "arithmetic exception (integer overflow)");
    } else if (kernel && sig == SIGILL) {
        m.add("illegal instruction (undefined behaviour, e.g. a function that does not return a value)");
    } else {
        sigaction(sig, &g_previous[sig], nullptr);
        return;
    }
    if (kernel) add_kernel_context(m, true);
    else m.add(", in host code");
    claim_report();
    finish(m);
}

}  // namespace

const char* current_kernel() { return tl_kernel; }
void set_running_kernel(const char* kernel) { tl_kernel = kernel; }

void add_kernel_context(Message& m, bool with_thread) {
    if (!tl_kernel) return;
    m.add(", in kernel ").add(tl_kernel).add(", block ").dim(blockIdx.x, blockIdx.y, blockIdx.z);
    if (with_thread) m.add(" thread ").dim(threadIdx.x, threadIdx.y, threadIdx.z);
}

void die(Message& message, bool with_thread) {
    Message line;
    line.add("hjemu: ");
    if (with_thread || !tl_kernel) {
        line.add(message.text());
        add_kernel_context(line, with_thread);
    } else {  // a block-level problem: say where first, the explanation can be long
        line.add("kernel ").add(tl_kernel).add(", block ").dim(blockIdx.x, blockIdx.y, blockIdx.z).add(": ")
            .add(message.text());
    }
    claim_report();
    fflush(stdout);  // keep the kernel's own printf output before the message
    finish(line);
}

void install_fault_handlers() {
    for (int sig : kSignals) {
        struct sigaction current;
        sigaction(sig, nullptr, &current);
        if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_fault) continue;
        struct sigaction ours;
        memset(&ours, 0, sizeof(ours));
        ours.sa_sigaction = on_fault;
        ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&ours.sa_mask);
        sigaction(sig, &ours, &g_previous[sig]);
    }
}

void prepare_host_thread() {
    static __thread bool prepared = false;
    // Some runtimes (Python's faulthandler) install a small alternate stack: ours must fit the
    // handler, so anything below 64 KiB is replaced.
    constexpr size_t kAltStack = 64 * 1024;
    stack_t current;
    if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE || current.ss_size < kAltStack)) {
        stack_t ours;
        ours.ss_sp = malloc(kAltStack);
        ours.ss_size = kAltStack;
        ours.ss_flags = 0;
        if (ours.ss_sp) sigaltstack(&ours, nullptr);
    }
    if (prepared) return;
    prepared = true;
    // Create this thread's state now, not in the signal handler.
    size_t unused = 0;
    (void)fiber_guard_hit(0, &unused);
    (void)hjemu_dynamic_shared();
    const unsigned slot = g_prepared_count.fetch_add(1);
    if (slot < 1024) g_prepared_threads[slot].store(thread_id(), std::memory_order_release);
}

}  // namespace hjemu

extern "C" {

void hjemu_kernel_abort(const char* what) {
    hjemu::Message m;
    m.add(what);
    hjemu::die(m);
}

uint64_t hjemu_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int hjemuFaultExitCode(void) { return hjemu::kFaultExit; }
}
