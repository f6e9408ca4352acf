// hjemu: ROCm's hip/amd_detail/amd_hip_fp16.h, which real sources include directly (hip/hip_fp16.h).
#pragma once
#include "../hip_fp16.h"
