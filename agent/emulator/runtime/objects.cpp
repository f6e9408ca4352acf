// Events and streams. Work is synchronous, so an event records the host's monotonic clock when it
// is recorded and a stream is only a handle; both are checked, so a stale or made-up handle gets
// the invalid-handle error a GPU runtime returns instead of a crash.
#include <time.h>

#include <mutex>
#include <unordered_set>

#include "internal.h"

namespace hjemu {
namespace {

struct Event {
    uint64_t ns = 0;
    bool recorded = false;
};
struct Stream {
    int unused = 0;
};

struct Registry {
    std::mutex mutex;
    std::unordered_set<const void*> events;
    std::unordered_set<const void*> streams;
};

Registry& registry() {
    static Registry* r = new Registry;
    return *r;
}

uint64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

}  // namespace

int event_create(void** event) {
    if (event == nullptr) return record_error(HJEMU_INVALID_VALUE);
    auto* e = new Event;
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().events.insert(e);
    *event = e;
    return 0;
}

int event_check(void* event) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    return registry().events.count(event) ? 0 : record_error(HJEMU_INVALID_HANDLE);
}

int event_record(void* event) {
    if (const int error = event_check(event)) return error;
    auto* e = static_cast<Event*>(event);
    e->ns = now_ns();
    e->recorded = true;
    return 0;
}

int event_elapsed(float* ms, void* start, void* stop) {
    if (ms == nullptr) return record_error(HJEMU_INVALID_VALUE);
    if (const int error = event_check(start)) return error;
    if (const int error = event_check(stop)) return error;
    const auto* a = static_cast<Event*>(start);
    const auto* b = static_cast<Event*>(stop);
    if (!a->recorded || !b->recorded) return record_error(HJEMU_INVALID_HANDLE);
    *ms = (float)((double)((int64_t)(b->ns - a->ns)) / 1e6);
    return 0;
}

int event_destroy(void* event) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    if (!registry().events.erase(event)) return record_error(HJEMU_INVALID_HANDLE);
    delete static_cast<Event*>(event);
    return 0;
}

int stream_create(void** stream) {
    if (stream == nullptr) return record_error(HJEMU_INVALID_VALUE);
    auto* s = new Stream;
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().streams.insert(s);
    *stream = s;
    return 0;
}

int stream_check(void* stream) {
    // 0 is the default stream; 1 and 2 are the legacy and per-thread default streams.
    if ((uintptr_t)stream <= 2) return 0;
    std::lock_guard<std::mutex> lock(registry().mutex);
    return registry().streams.count(stream) ? 0 : record_error(HJEMU_INVALID_HANDLE);
}

int stream_destroy(void* stream) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    if (!registry().streams.erase(stream)) return record_error(HJEMU_INVALID_HANDLE);
    delete static_cast<Stream*>(stream);
    return 0;
}

}  // namespace hjemu
