// hjemu: CUDA's __nv_fp8_e4m3 and __nv_fp8_e5m2 (hjemu/fp8.h).
#pragma once
#include "hjemu/fp8.h"
