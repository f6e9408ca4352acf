// hjemu: see hip/hip_runtime.h.
#pragma once
#include "hip_runtime.h"
