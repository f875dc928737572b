#ifndef SIFT_HEAP_USAGE_H
#define SIFT_HEAP_USAGE_H

/// The bytes the C allocator has handed out and not had back: blocks in its arenas plus the
/// large ones it maps on their own. -1 where the C library does not say (glibc's mallinfo2 only).
long long sift_heap_in_use(void);

#endif
