// hjemu: ROCm's hip/amd_detail/amd_hip_fp8.h, which real sources include directly (hip/hip_fp8.h).
#pragma once
#include "../hip_fp8.h"
