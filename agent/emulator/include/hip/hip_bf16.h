// hjemu: HIP's __hip_bfloat16 and __hip_bfloat162 (hjemu/bf16.h).
#pragma once
#include "../hjemu/bf16.h"
