// Errors: the last error of each host thread (what GetLastError returns and clears), and the
// names and descriptions of the codes, as the real runtimes spell them.
#include <unistd.h>

#include "internal.h"

namespace hjemu {
namespace {
__thread int tl_last_error = 0;
}

int record_error(int code) {
    if (code != 0) tl_last_error = code;
    return code;
}

int take_last_error() {
    const int code = tl_last_error;
    tl_last_error = 0;
    return code;
}

int peek_last_error() { return tl_last_error; }

const char* error_name(int code, int api) {
#define HJEMU_NAME(hip, cuda, value, text) \
    case value: return api == HJEMU_API_HIP ? #hip : #cuda;
    switch (code) { HJEMU_ERRORS(HJEMU_NAME) }
#undef HJEMU_NAME
    return api == HJEMU_API_HIP ? "hipErrorUnknown" : "cudaErrorUnknown";
}

const char* error_string(int code) {
#define HJEMU_TEXT(hip, cuda, value, text) \
    case value: return text;
    switch (code) { HJEMU_ERRORS(HJEMU_TEXT) }
#undef HJEMU_TEXT
    return "unrecognized error code";
}

size_t host_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    return pages > 0 ? (size_t)pages * page_size() : (size_t)16 << 30;
}

}  // namespace hjemu
