// Returning freed heap memory to the system after rare, allocation-heavy work (glibc's malloc_trim).
#ifndef CMALLOCTRIM_H
#define CMALLOCTRIM_H

/// Gives the pages of every malloc arena that hold only freed memory back to the system; a no-op without glibc.
/// Returns 1 when some memory was released.
int hearth_release_free_memory(void);

#endif
