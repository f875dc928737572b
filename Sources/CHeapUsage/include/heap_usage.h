#ifndef SIFT_HEAP_USAGE_H
#define SIFT_HEAP_USAGE_H

/// The bytes the C allocator has handed out and not had back: blocks in its arenas plus the
/// large ones it maps on their own. -1 where the C library does not say (glibc's mallinfo2 only).
long long sift_heap_in_use(void);

/// Hands the memory the C allocator holds free back to the system, where it can (glibc's
/// malloc_trim): what a long job calls between phases, so that what one phase freed in the
/// arenas of other threads does not stay resident beside what the next one allocates.
void sift_release_free_heap(void);

#endif
