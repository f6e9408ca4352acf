// A forged score (the interpreter): the kernel runs in the harness's Python process, so it can reach the
// interpreter through its exported C API and rewrite the harness. From the first benchmark call of
// the 2^22 case on, every call is answered at once while a thread does the work afterwards: the
// end of each call is reported before its work is done. Caught: the parent poisons the outputs
// before every call and samples them the moment the call reports its end. The thread starts the
// work 200 ms later, so that it is still pending when a parent on a busy machine looks (see
// report_end_early.cpp).
#include <cstddef>

extern "C" int PyGILState_Ensure(void);
extern "C" void PyGILState_Release(int);
extern "C" int PyRun_SimpleString(const char*);

static const char* const TAKE_OVER =
    "import sys, threading\n"
    "child = sys.modules['__main__']\n"
    "def early(self, fn):\n"
    "    threading.Timer(0.2, fn).start()\n"
    "    return 0.0\n"
    "child.HostBuffers.call = early\n";

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    static bool done = false;
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (n == (size_t(1) << 22) && !done) {
        done = true;
        int state = PyGILState_Ensure();
        PyRun_SimpleString(TAKE_OVER);
        PyGILState_Release(state);
    }
}
