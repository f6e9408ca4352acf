// hjemu: CUDA's __half and __half2 (hjemu/fp16.h).
#pragma once
#include "hjemu/fp16.h"
