#pragma once
#include "two.h"
inline uint32_t Helper(uint32_t i) {
  uint32_t r = 0;
  while (i--) r += Two();
  return r;
}
