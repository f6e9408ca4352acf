// Wavefront collectives: what each lane of a group gets back from a shuffle, vote, match or
// reduction, with the lane arithmetic of the API (HIP's __shfl index wraps modulo 64 like
// ds_bpermute, CUDA's takes the source lane modulo the width). A *_sync call whose mask does not
// match the lanes that actually arrived together is refused with an explanation: on a GPU it is
// undefined behaviour that usually hangs or returns garbage.
#include "internal.h"

namespace hjemu {
namespace {

const char* op_name(int op) {
    switch (op) {
        case HJEMU_SHFL_IDX: return "__shfl";
        case HJEMU_SHFL_UP: return "__shfl_up";
        case HJEMU_SHFL_DOWN: return "__shfl_down";
        case HJEMU_SHFL_XOR: return "__shfl_xor";
        case HJEMU_BALLOT: return "__ballot";
        case HJEMU_ANY: return "__any";
        case HJEMU_ALL: return "__all";
        case HJEMU_ACTIVEMASK: return "__activemask";
        case HJEMU_SYNCWARP: return "__syncwarp";
        case HJEMU_MATCH_ANY: return "__match_any";
        case HJEMU_MATCH_ALL: return "__match_all";
        case HJEMU_MATRIX: return "a matrix instruction (MFMA or WMMA)";
        case HJEMU_READFIRSTLANE: return "__builtin_amdgcn_readfirstlane";
        case HJEMU_READLANE: return "__builtin_amdgcn_readlane";
        case HJEMU_BPERMUTE: return "__builtin_amdgcn_ds_bpermute";
        case HJEMU_PERMUTE: return "__builtin_amdgcn_ds_permute";
        case HJEMU_SWIZZLE: return "__builtin_amdgcn_ds_swizzle";
        case HJEMU_DPP: return "__builtin_amdgcn_update_dpp";
        default: return "__reduce";
    }
}

void add_call(Message& m, const CollectiveGroup& g, unsigned k) {
    const hjemu_collective_t& r = g.request[k];
    m.add(op_name(r.op)).add(r.is_sync && r.op != HJEMU_SYNCWARP ? "_sync" : "").add(" on line ").snum(r.line);
}

void add_lane(Message& m, const CollectiveGroup& g, unsigned k) {
    const uint3 t = g.plan->thread_ids[g.lo + k];
    m.add("lane ").num(k).add(" (thread ").dim(t.x, t.y, t.z).add(")");
}

[[noreturn]] void invalid_mask(const CollectiveGroup& g, unsigned caller, unsigned named, bool caller_missing) {
    const uint64_t mask = g.request[caller].mask;
    Message m;
    add_call(m, g, caller);
    m.add(": ");
    if (caller_missing) {
        add_lane(m, g, caller);
        m.add(" calls it but is not in its mask 0x").hex(mask);
        if (g.plan->warp_size == 64 && (mask >> 32) == 0)
            m.add(" (HIP wavefronts have 64 lanes: the mask needs 64 bits)");
    } else {
        m.add("the mask 0x").hex(mask).add(" names ");
        add_lane(m, g, named);
        if (g.where[named] == CollectiveGroup::kExited) m.add(", which has exited");
        else if (g.where[named] == CollectiveGroup::kAtBarrier)
            m.add(", which waits at __syncthreads() on line ").snum(g.line[named]);
        else
            m.add(", which is at another warp function on line ").snum(g.line[named]);
    }
    m.add("; every lane named in the mask must make the same call together");
    die(m, false);
}

void check_masks(const CollectiveGroup& g) {
    const uint64_t existing = g.lanes >= 64 ? ~0ull : (1ull << g.lanes) - 1;
    for (unsigned k = 0; k < g.lanes; ++k) {
        if (!(g.active >> k & 1)) continue;
        const uint64_t mask = g.plan->warp_size == 32 ? (uint32_t)g.request[k].mask : g.request[k].mask;
        if (!(mask >> k & 1)) invalid_mask(g, k, k, true);
        const uint64_t absent = mask & existing & ~g.active;
        if (absent) invalid_mask(g, k, (unsigned)__builtin_ctzll(absent), false);
    }
}

unsigned shuffle_source(const CollectiveGroup& g, unsigned lane) {
    const hjemu_collective_t& r = g.request[lane];
    const unsigned warp = g.plan->warp_size;
    const int width = r.width;
    if (width <= 0 || (unsigned)width > warp || (width & (width - 1)) != 0) {
        Message m;
        add_call(m, g, lane);
        m.add(" by ");
        add_lane(m, g, lane);
        m.add(": width ").snum(width).add(" is not a power of two between 1 and warpSize (").num(warp).add(")");
        die(m, false);
    }
    const unsigned segment = lane & ~(unsigned)(width - 1);
    const unsigned in_segment = lane & (unsigned)(width - 1);
    switch (r.op) {
        case HJEMU_SHFL_IDX:
            if (g.plan->launch->api == HJEMU_API_HIP) return ((unsigned)r.arg + segment) % warp;
            return segment + ((unsigned)r.arg & (unsigned)(width - 1));
        case HJEMU_SHFL_UP:
            return in_segment >= (unsigned)r.arg ? lane - (unsigned)r.arg : lane;
        case HJEMU_SHFL_DOWN:
            return in_segment + (unsigned)r.arg < (unsigned)width ? lane + (unsigned)r.arg : lane;
        default: {  // xor: a lane beyond its segment reads its own value
            const unsigned source = lane ^ (unsigned)r.arg;
            return source >= segment + (unsigned)width ? lane : source;
        }
    }
}

uint64_t bytes_of(const hjemu_collective_t& r) {
    return r.value_bytes >= 8 ? r.value : r.value & ((1ull << (8 * r.value_bytes)) - 1);
}

int64_t signed_of(const hjemu_collective_t& r) {
    const int bits = 8 * (r.value_bytes >= 8 ? 8 : r.value_bytes);
    return bits == 64 ? (int64_t)r.value : (int64_t)(r.value << (64 - bits)) >> (64 - bits);
}

uint64_t reduce(const CollectiveGroup& g, uint64_t members, int op) {
    bool first = true;
    uint64_t acc = 0;
    for (unsigned k = 0; k < g.lanes; ++k) {
        if (!(members >> k & 1)) continue;
        const hjemu_collective_t& r = g.request[k];
        const uint64_t v = bytes_of(r);
        if (first) { acc = v; first = false; continue; }
        switch (op) {
            case HJEMU_REDUCE_ADD: acc += v; break;
            case HJEMU_REDUCE_MIN_U: acc = v < acc ? v : acc; break;
            case HJEMU_REDUCE_MAX_U: acc = v > acc ? v : acc; break;
            case HJEMU_REDUCE_MIN_S: acc = signed_of(r) < (int32_t)acc ? v : acc; break;
            case HJEMU_REDUCE_MAX_S: acc = signed_of(r) > (int32_t)acc ? v : acc; break;
            case HJEMU_REDUCE_AND: acc &= v; break;
            case HJEMU_REDUCE_OR: acc |= v; break;
            default: acc ^= v; break;
        }
    }
    return acc;
}

}  // namespace

void resolve_collective(CollectiveGroup& g) {
    const unsigned first = (unsigned)__builtin_ctzll(g.active);
    const int op = g.request[first].op;
    if (op == HJEMU_MATRIX) {
        resolve_matrix(g);
        return;
    }
    if (op >= HJEMU_READFIRSTLANE) {
        resolve_lanes(g);
        return;
    }
    if (g.request[first].is_sync) check_masks(g);
    uint64_t votes = 0;  // active lanes whose operand (predicate) is not zero
    for (unsigned k = 0; k < g.lanes; ++k)
        if ((g.active >> k & 1) && g.request[k].value != 0) votes |= 1ull << k;
    for (unsigned k = 0; k < g.lanes; ++k) {
        if (!(g.active >> k & 1)) continue;
        const hjemu_collective_t& r = g.request[k];
        // The lanes this lane's call looks at: the active ones, limited to its mask for *_sync.
        uint64_t members = g.active;
        if (r.is_sync) members &= g.plan->warp_size == 32 ? (uint32_t)r.mask : r.mask;
        uint64_t out = 0;
        switch (op) {
            case HJEMU_SHFL_IDX:
            case HJEMU_SHFL_UP:
            case HJEMU_SHFL_DOWN:
            case HJEMU_SHFL_XOR: {
                // A source lane that is not taking part (exited, elsewhere, beyond the block) has no
                // defined value on a GPU; the caller's own value makes such a read visible.
                const unsigned source = shuffle_source(g, k);
                out = source < g.lanes && (g.active >> source & 1) ? g.request[source].value : r.value;
                break;
            }
            case HJEMU_BALLOT: out = votes & members; break;
            case HJEMU_ANY: out = (votes & members) != 0; break;
            case HJEMU_ALL: out = (votes & members) == members; break;
            case HJEMU_ACTIVEMASK: out = g.active; break;
            case HJEMU_SYNCWARP: out = 0; break;
            case HJEMU_MATCH_ANY:
            case HJEMU_MATCH_ALL: {
                uint64_t same = 0;
                for (unsigned j = 0; j < g.lanes; ++j)
                    if ((members >> j & 1) && bytes_of(g.request[j]) == bytes_of(r)) same |= 1ull << j;
                out = op == HJEMU_MATCH_ANY ? same : (same == members ? members : 0);
                break;
            }
            default: out = reduce(g, members, op); break;
        }
        g.result[k] = out;
    }
}

}  // namespace hjemu
