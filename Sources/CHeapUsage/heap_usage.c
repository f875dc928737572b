#include "heap_usage.h"

#include <stdlib.h>  // defines __GLIBC__ where it is glibc

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

long long sift_heap_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return (long long)(info.uordblks + info.hblkhd);
}

void sift_release_free_heap(void) { malloc_trim(0); }
#else
long long sift_heap_in_use(void) { return -1; }

void sift_release_free_heap(void) {}
#endif
