// What the C heap has handed out, for measuring memory per registration. glibc only: Swift's
// Glibc module does not export <malloc.h>.
#ifndef CHEAP_STATISTICS_H
#define CHEAP_STATISTICS_H

#include <stddef.h>

/// Bytes in allocated heap chunks and mmapped blocks (glibc `mallinfo2()`, `uordblks + hblkhd`),
/// or -1 where unavailable.
long long cheap_statistics_bytes_in_use(void);

#endif
