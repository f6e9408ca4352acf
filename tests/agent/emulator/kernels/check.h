// A tiny checking harness for the emulator's test programs: CHECK prints what failed and the
// program's exit status counts the failures.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>

static int g_failures = 0;

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            std::printf("FAIL line %d: %s\n", __LINE__, #cond);                                   \
            ++g_failures;                                                                         \
        }                                                                                         \
    } while (0)

#define CHECK_EQ(a, b)                                                                            \
    do {                                                                                          \
        const auto va_ = (a);                                                                     \
        const auto vb_ = (b);                                                                     \
        if (!(va_ == vb_)) {                                                                      \
            std::printf("FAIL line %d: %s == %s (%lld vs %lld)\n", __LINE__, #a, #b, (long long)va_, \
                        (long long)vb_);                                                          \
            ++g_failures;                                                                         \
        }                                                                                         \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                     \
    do {                                                                                          \
        const double va_ = (a), vb_ = (b);                                                        \
        if (!(std::fabs(va_ - vb_) <= (tol) * (1.0 + std::fabs(vb_)))) {                          \
            std::printf("FAIL line %d: %s ~ %s (%.9g vs %.9g)\n", __LINE__, #a, #b, va_, vb_);     \
            ++g_failures;                                                                         \
        }                                                                                         \
    } while (0)

static int finish() {
    if (g_failures == 0) std::printf("ALL OK\n");
    return g_failures == 0 ? 0 : 1;
}
