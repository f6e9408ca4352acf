// hjemu: ROCm's older hip_bfloat16 (hjemu/bf16.h).
#pragma once
#include "../hjemu/bf16.h"
