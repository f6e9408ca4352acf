// hjemu: ROCm's hip/amd_detail/amd_warp_functions.h, which some sources include directly: the warp
// functions (hjemu/warp.h) and HIP's __hip_ds_*/__hip_move_dpp wrappers (hjemu/amdgcn.h) come with
// hip/hip_runtime.h, as they do with ROCm's.
#pragma once
#include "../hip_runtime.h"
