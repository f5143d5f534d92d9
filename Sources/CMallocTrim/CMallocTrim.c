// See include/CMallocTrim.h. Swift's Glibc module does not import <malloc.h>, hence this file.
#include "CMallocTrim.h"

// Any C library header defines __GLIBC__ on glibc; test it only after one is included.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int hearth_release_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
