// hjemu: refused like rocwmma/rocwmma.hpp.
#pragma once
#include "rocwmma.hpp"
