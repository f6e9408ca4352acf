// hjemu: CUDA's __nv_bfloat16 and __nv_bfloat162 (hjemu/bf16.h).
#pragma once
#include "hjemu/bf16.h"
