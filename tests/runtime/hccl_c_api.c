/* HCCL's headers compiled as C (C11, -Wpedantic): the sizes and offsets a C program sees, and
 * HcclCommConfigInit run from C, for hccl_test.cpp to compare with the C++ view. */
#include <stddef.h>
#include <string.h>

#include "hccl/hccl.h"

size_t hcclCRootInfoSize(void) {
  return sizeof(HcclRootInfo);
}

size_t hcclCConfigSize(void) {
  return sizeof(HcclCommConfig);
}

size_t hcclCConfigOffset(int field) {
  switch (field) {
    case 0: return offsetof(HcclCommConfig, hcclBufferSize);
    case 1: return offsetof(HcclCommConfig, hcclExecTimeOut);
    case 2: return offsetof(HcclCommConfig, hcclChannelSqDepth);
    default: return 0;
  }
}

/* HcclCommConfigInit from C, into `out` (sizeof(HcclCommConfig) bytes). */
void hcclCConfigInit(void* out) {
  HcclCommConfig config;
  memset(&config, 0x5a, sizeof config);
  HcclCommConfigInit(&config);
  memcpy(out, &config, sizeof config);
}

/* The address of an HCCL function as C sees its declaration. */
HcclResult (*hcclCAllReduce(void))(void*, void*, uint64_t, HcclDataType, HcclReduceOp, HcclComm,
                                   aclrtStream) {
  return HcclAllReduce;
}
