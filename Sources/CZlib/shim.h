#ifndef MDOC_CZLIB_SHIM_H
#define MDOC_CZLIB_SHIM_H

// ZLIB_CONST: input pointers are const (next_in), as the bytes read are never written.
#define ZLIB_CONST
#include <zlib.h>

// inflateInit is a macro that passes the library version and the stream's size, which Swift
// does not import: this inline function hands it over as a plain call (zlib format, RFC 1950).
static inline int mdoc_inflate_init(z_streamp stream) { return inflateInit(stream); }

#endif
