#ifndef MDOC_CLIBPQ_SHIM_H
#define MDOC_CLIBPQ_SHIM_H

// PostgreSQL's client library (Debian libpq-dev), imported by MdocPostgres only.
#include <libpq-fe.h>

#endif
