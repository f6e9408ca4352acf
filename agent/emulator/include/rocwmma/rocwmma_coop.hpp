// hjemu: rocWMMA's coop API is not modelled on the emulated device (rocwmma.hpp has the core API).
#pragma once
#error "hjemu: rocWMMA's rocwmma/rocwmma_coop.hpp is not modelled on the emulated device (the core API of rocwmma/rocwmma.hpp is)"
