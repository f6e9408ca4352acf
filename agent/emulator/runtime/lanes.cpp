// gfx942's cross-lane builtins (include/hjemu/amdgcn.h), by the CDNA3 ISA's rules, for the lanes
// that meet at the call (the EXEC mask of the wavefront at that instruction):
//   readfirstlane: the value of the lowest active lane, for every lane.
//   readlane(v, l): lane l % 64's value (an inactive lane's register is undefined: here the
//     caller's own value, as the emulator's shuffles answer).
//   ds_bpermute(addr, v): lane i reads lane (addr_i / 4) % 64; 0 from an inactive lane.
//   ds_permute(addr, v): lane i writes its v to lane (addr_i / 4) % 64 (the highest writer wins);
//     a lane nobody wrote to reads 0.
//   ds_swizzle(v, offset): offset bit 15 set with bits 14..8 clear, quad-permute mode: lane i of
//     each group of four reads lane (offset >> 2 (i % 4)) & 3 of the group; bit 15 clear,
//     bit-masks mode in groups of 32: lane i reads ((i & and) | or) ^ xor (and = offset[4:0],
//     or = offset[9:5], xor = offset[14:10]); 0 from an inactive lane. Other offsets (gfx950's
//     FFT and rotate modes) are refused.
//   update_dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl), GFX9 DPP: a row is 16 lanes, a
//     bank 4 lanes of a row. A lane whose row or bank is masked off keeps old. Otherwise the
//     source lane the control names is read; when it is out of range or inactive the lane gets 0
//     with bound_ctrl and keeps old without. Controls: quad_perm (0x00-0xFF), row_shl:1-15
//     (0x101-0x10F: lane i reads i + n of its row), row_shr (0x111-0x11F: i - n), row_ror
//     (0x121-0x12F: (i - n) mod 16), wave_shl:1 (0x130: lane + 1 of the wavefront), wave_rol:1
//     (0x134), wave_shr:1 (0x138: lane - 1), wave_ror:1 (0x13C), row_mirror (0x140: 15 - i),
//     row_half_mirror (0x141: 7 - i in each half row), row_bcast:15 (0x142: rows 1-3 read the last
//     lane of the row before), row_bcast:31 (0x143: rows 2 and 3 read lane 31). Any other control
//     (GFX10's row_share/row_xmask) is refused.
#include "internal.h"

namespace hjemu {
namespace {

constexpr int kNone = -1;  // no source lane: out of range

[[noreturn]] void refuse(const CollectiveGroup& g, unsigned lane, const char* what, uint64_t value) {
    Message m;
    m.add(what).add(" 0x").hex(value).add(" on line ").snum(g.request[lane].line)
        .add(" is not modelled on the emulated device");
    die(m, false);
}

bool active(const CollectiveGroup& g, int lane) {
    return lane >= 0 && (unsigned)lane < g.lanes && (g.active >> lane & 1);
}

uint32_t word(const CollectiveGroup& g, int lane) { return (uint32_t)g.request[lane].value; }

int swizzle_source(const CollectiveGroup& g, unsigned lane) {
    const unsigned offset = (unsigned)g.request[lane].arg & 0xFFFF;
    if ((offset & 0xFF00) == 0x8000) return (int)((lane & ~3u) | ((offset >> (2 * (lane & 3))) & 3));
    if (offset & 0x8000) refuse(g, lane, "__builtin_amdgcn_ds_swizzle with offset", offset);
    const unsigned and_mask = offset & 31, or_mask = (offset >> 5) & 31, xor_mask = (offset >> 10) & 31;
    return (int)((lane & ~31u) | ((((lane & 31) & and_mask) | or_mask) ^ xor_mask));
}

int dpp_source(const CollectiveGroup& g, unsigned lane) {
    const unsigned ctrl = (unsigned)g.request[lane].arg;
    const int i = (int)(lane & 15), row = (int)(lane & ~15u), n = (int)(ctrl & 15);
    if (ctrl <= 0xFF) return (int)((lane & ~3u) | ((ctrl >> (2 * (lane & 3))) & 3));
    if (ctrl >= 0x101 && ctrl <= 0x10F) return i + n < 16 ? row + i + n : kNone;
    if (ctrl >= 0x111 && ctrl <= 0x11F) return i - n >= 0 ? row + i - n : kNone;
    if (ctrl >= 0x121 && ctrl <= 0x12F) return row + ((i - n) & 15);
    switch (ctrl) {
        case 0x130: return lane + 1 < 64 ? (int)lane + 1 : kNone;
        case 0x134: return (int)((lane + 1) & 63);
        case 0x138: return lane >= 1 ? (int)lane - 1 : kNone;
        case 0x13C: return (int)((lane + 63) & 63);
        case 0x140: return row + 15 - i;
        case 0x141: return row + (i & 8) + 7 - (i & 7);
        case 0x142: return row >= 16 ? row - 1 : kNone;
        case 0x143: return row >= 32 ? 31 : kNone;
        default: refuse(g, lane, "__builtin_amdgcn_update_dpp/mov_dpp with dpp_ctrl", ctrl);
    }
}

uint32_t dpp(const CollectiveGroup& g, unsigned lane) {
    const hjemu_collective_t& r = g.request[lane];
    const uint32_t old = (uint32_t)(r.value >> 32);
    const unsigned row_mask = (unsigned)r.width & 15, bank_mask = ((unsigned)r.width >> 4) & 15;
    const bool bound_ctrl = (r.width >> 8) & 1;
    if (!(row_mask >> (lane / 16) & 1) || !(bank_mask >> ((lane & 15) / 4) & 1)) return old;
    const int source = dpp_source(g, lane);
    if (active(g, source)) return word(g, source);
    return bound_ctrl ? 0u : old;
}

}  // namespace

void resolve_lanes(CollectiveGroup& g) {
    const unsigned first = (unsigned)__builtin_ctzll(g.active);
    const int op = g.request[first].op;
    uint32_t written[64] = {};  // ds_permute's destination registers
    if (op == HJEMU_PERMUTE)
        for (unsigned k = 0; k < g.lanes; ++k)
            if (g.active >> k & 1) written[((uint32_t)g.request[k].arg >> 2) & 63] = word(g, (int)k);
    for (unsigned k = 0; k < g.lanes; ++k) {
        if (!(g.active >> k & 1)) continue;
        const hjemu_collective_t& r = g.request[k];
        uint32_t out = 0;
        switch (op) {
            case HJEMU_READFIRSTLANE: out = word(g, (int)first); break;
            case HJEMU_READLANE: {
                const int source = r.arg & 63;
                out = active(g, source) ? word(g, source) : word(g, (int)k);
                break;
            }
            case HJEMU_BPERMUTE: {
                const int source = (int)(((uint32_t)r.arg >> 2) & 63);
                out = active(g, source) ? word(g, source) : 0u;
                break;
            }
            case HJEMU_PERMUTE: out = written[k]; break;
            case HJEMU_SWIZZLE: {
                const int source = swizzle_source(g, k);
                out = active(g, source) ? word(g, source) : 0u;
                break;
            }
            default: out = dpp(g, k); break;
        }
        g.result[k] = out;
    }
}

}  // namespace hjemu
