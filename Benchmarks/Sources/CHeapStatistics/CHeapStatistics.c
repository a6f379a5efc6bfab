#include "CHeapStatistics.h"

// Any C library header defines the macros that say which C library this is.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>

long long milieu_heap_bytes_in_use(void) {
  return (long long)mallinfo2().uordblks;
}

#elif defined(__APPLE__)
#include <malloc/malloc.h>

long long milieu_heap_bytes_in_use(void) {
  malloc_statistics_t statistics;
  malloc_zone_statistics(NULL, &statistics);
  return (long long)statistics.size_in_use;
}

#else

long long milieu_heap_bytes_in_use(void) {
  return -1;
}

#endif
