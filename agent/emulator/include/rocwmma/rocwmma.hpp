// hjemu: rocWMMA is not modelled on the emulated device. Its fragments' per-lane layouts are
// internal to the library and differ by architecture and version, so an emulation could not promise
// the element a lane holds; write the MFMA builtins (__builtin_amdgcn_mfma_*) directly instead.
#pragma once
#error "hjemu: rocWMMA (rocwmma/rocwmma.hpp) is not modelled on the emulated device; use the __builtin_amdgcn_mfma_* builtins"
