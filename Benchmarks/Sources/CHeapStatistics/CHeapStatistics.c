#include "CHeapStatistics.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>

long long cheap_statistics_bytes_in_use(void) {
  // Large blocks (a registry's array past about 128 KiB) are mmapped and counted apart.
  struct mallinfo2 info = mallinfo2();
  return (long long)(info.uordblks + info.hblkhd);
}
#else
long long cheap_statistics_bytes_in_use(void) { return -1; }
#endif
