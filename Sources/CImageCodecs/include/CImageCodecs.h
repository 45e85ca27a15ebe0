#ifndef MDOC_CIMAGECODECS_H
#define MDOC_CIMAGECODECS_H
/* libjpeg and libpng behind a small C shim (libjpeg's default error handler calls exit(),
   and Swift cannot setjmp, so decoding and encoding run here). Imported only by MdocImaging. */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#endif
