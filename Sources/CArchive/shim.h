#ifndef MDOC_CARCHIVE_SHIM_H
#define MDOC_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

// The AE_IF* file-type macros are casts ((__LA_MODE_T)0100000), which Swift does not import.
// These inline functions hand them over as plain values of the type
// archive_entry_filetype() returns.
static inline __LA_MODE_T mdoc_ae_ifmt(void) { return AE_IFMT; }
static inline __LA_MODE_T mdoc_ae_ifreg(void) { return AE_IFREG; }
static inline __LA_MODE_T mdoc_ae_iflnk(void) { return AE_IFLNK; }
static inline __LA_MODE_T mdoc_ae_ifsock(void) { return AE_IFSOCK; }
static inline __LA_MODE_T mdoc_ae_ifchr(void) { return AE_IFCHR; }
static inline __LA_MODE_T mdoc_ae_ifblk(void) { return AE_IFBLK; }
static inline __LA_MODE_T mdoc_ae_ifdir(void) { return AE_IFDIR; }
static inline __LA_MODE_T mdoc_ae_ififo(void) { return AE_IFIFO; }

#endif
