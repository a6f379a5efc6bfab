#ifndef MILIEU_BENCHMARKS_ALLOCATION_COUNTER_H
#define MILIEU_BENCHMARKS_ALLOCATION_COUNTER_H

// AllocationCounter exports no API of its own: it replaces `malloc` and its siblings when it is
// loaded with `LD_PRELOAD`, and writes its totals where `MILIEU_ALLOCATION_REPORT` says at exit
// (see AllocationCounter.c). Never link it into a binary.

#endif
