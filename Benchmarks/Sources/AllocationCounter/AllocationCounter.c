// Counts the allocations of a process and the bytes they ask for, for the budgets in
// `Benchmarks/budgets.tsv`. `budgets.py` loads this library into the InstructionCounts binary
// with `LD_PRELOAD`, outside valgrind, so the binary that callgrind counts stays free of it:
// an interposer linked into it would add its own instructions to every allocation counted.
//
// Every function that allocates is replaced by one that adds one call and the bytes asked for,
// then calls glibc's own allocator (`__libc_malloc` and its siblings), so the allocator, the
// sizes it rounds to and what `malloc_usable_size` answers are the ones the program has without
// it; freeing is left alone. At exit, the totals are written as `ALLOCATIONS BYTES` to the file
// that `MILIEU_ALLOCATION_REPORT` names. glibc only: elsewhere the library counts nothing.
#include "AllocationCounter.h"

// Any C library header defines the macros that say which C library this is.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static unsigned long long allocations;
static unsigned long long bytes;

static void count(size_t size) {
  __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&bytes, (unsigned long long)size, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
  count(size);
  return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
  size_t total;
  count(__builtin_mul_overflow(count_, size, &total) ? SIZE_MAX : total);
  return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
  count(size);
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  // glibc's own checks: a power of two and a multiple of a pointer's size.
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  count(size);
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) {
    return ENOMEM;
  }
  *result = pointer;
  return 0;
}

// Written with `write` into a buffer on the stack: nothing here may allocate.
__attribute__((destructor)) static void milieu_report_allocations(void) {
  const char *path = getenv("MILIEU_ALLOCATION_REPORT");
  if (path == NULL) {
    return;
  }
  char line[64];
  int length = snprintf(
    line, sizeof line, "%llu %llu\n", __atomic_load_n(&allocations, __ATOMIC_RELAXED),
    __atomic_load_n(&bytes, __ATOMIC_RELAXED));
  int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0 || length <= 0) {
    return;
  }
  ssize_t written = write(file, line, (size_t)length);
  (void)written;
  close(file);
}
#endif
