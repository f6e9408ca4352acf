// hjemu: HIP on the CPU. Stands in for ROCm's hip/hip_runtime.h when a kernel is compiled for the
// emulated device: AMD wavefronts of 64 lanes.
#pragma once

#if defined(HJEMU_API) && HJEMU_API != 0
#error "hjemu: a translation unit includes both cuda_runtime.h and hip/hip_runtime.h; use one API"
#endif
#define HJEMU_API 0
#define HJEMU_HIP 1
#define HJEMU_WARP_SIZE 64
#define __HIPCC__ 1
#define __HIP__ 1
#define __HIP_PLATFORM_AMD__ 1
#define __HIP_PLATFORM_HCC__ 1
#define __HJEMU__ 1

#include "../hjemu/hip_api.h"
#include "../hjemu/lang.h"
#include "../hjemu/api_templates.inc"
#include "../hjemu/mfma.h"
#include "../hjemu/amdgcn.h"
