// hjemu: ROCm's hip/amd_detail/amd_hip_bf16.h, which real sources include directly (hip/hip_bf16.h).
#pragma once
#include "../hip_bf16.h"
