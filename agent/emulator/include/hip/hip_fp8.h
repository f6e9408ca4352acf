// hjemu: HIP's fp8 types, FNUZ (MI300X) and OCP (hjemu/fp8.h).
#pragma once
#include "../hjemu/fp8.h"
