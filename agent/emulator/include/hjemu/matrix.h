// One lane's part of a wavefront-wide matrix instruction (MFMA in mfma.h, WMMA in mma.h): its
// registers go to the runtime together with every other lane's (runtime/matrix.cpp), D comes back.
#pragma once

#include <cstring>
#include <type_traits>

namespace hjemu {
template <class A, class B, class C>
inline C matrix_instruction(int which, const A& a, const B& b, const C& c, int cbsz, int abid, int blgp,
                            int line) {
    static_assert(std::is_trivially_copyable<A>::value && std::is_trivially_copyable<B>::value &&
                  std::is_trivially_copyable<C>::value, "matrix operands are registers");
    static_assert(sizeof(A) <= 16 && sizeof(B) <= 16 && sizeof(C) <= 128, "operand larger than its registers");
    hjemu_matrix_lane_t lane;
    std::memcpy(lane.a, &a, sizeof(A));
    std::memcpy(lane.b, &b, sizeof(B));
    std::memcpy(lane.c, &c, sizeof(C));
    lane.modifiers = cbsz | abid | blgp;
    hjemu_collective_t request{(uint64_t)(uintptr_t)&lane, 0, HJEMU_MATRIX, which, HJEMU_WARP_SIZE, line, 0, 8};
    (void)hjemu_warp_collective(&request);
    C d;
    std::memcpy(&d, lane.d, sizeof(C));
    return d;
}
}  // namespace hjemu
