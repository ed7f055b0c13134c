#include "CHeapStatistics.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc systems

#if defined(__GLIBC__)
#include <malloc.h>

long long cheap_statistics_bytes_in_use(void) { return (long long)mallinfo2().uordblks; }
#else
long long cheap_statistics_bytes_in_use(void) { return -1; }
#endif
