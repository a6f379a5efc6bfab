#ifndef MILIEU_BENCHMARKS_HEAP_STATISTICS_H
#define MILIEU_BENCHMARKS_HEAP_STATISTICS_H

/// The bytes the C library's allocator counts as in use, in every arena, or -1 where the C
/// library does not say. On glibc it is `mallinfo2().uordblks`: whole chunks, with malloc's own
/// headers and rounding, which Swift's `Glibc` module does not expose.
long long milieu_heap_bytes_in_use(void);

#endif
