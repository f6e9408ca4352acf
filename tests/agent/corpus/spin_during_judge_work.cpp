// Burn the CPU while the judge works: the child's wall clock stands still while the parent makes
// inputs, waits for references and compares (agent/sandbox/watchdog.py), so a thread that spins
// from the first call on would take the judge's CPU at no cost to the kernel's clock, and slow the
// judge's own work towards its budget (an ERROR of the judge, nothing ranked). The judge stops the
// child, every thread, while it works (agent/harness/phase_child.py): the spinner runs only in the
// kernel's own time, where it competes with the kernel's own calls and counts against its limits,
// and the verdict is the one the loop alone gets (ACCEPTED), on an idle machine as on a busy one.
#include <cstddef>
#include <thread>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static bool started = false;
    if (!started) {
        started = true;
        std::thread([] { for (volatile unsigned long i = 0;; ++i) {} }).detach();
    }
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
