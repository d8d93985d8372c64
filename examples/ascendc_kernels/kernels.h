#ifndef ASCENDC_KERNELS_H_
#define ASCENDC_KERNELS_H_

#include <cstdint>

int32_t LaunchScaledSum(uint32_t blocks, void* stream, float* x, float* y, float* z, float alpha,
                        uint32_t count);
int32_t LaunchReadsTooFar(void* stream, float* x, float* out, uint32_t count);
int32_t LaunchTraps(void* stream, float* out);
int32_t LaunchSpin(void* stream, uint32_t* out, uint32_t iterations);
int32_t LaunchAddRelu(uint32_t blocks, void* stream, float* x, float* y, float* z, uint32_t count);

#endif
