#pragma once
inline uint32_t Two() {
  uint32_t t = 0;
  for (int k = 0; k < 2; k++) t++;
  return t;
}
