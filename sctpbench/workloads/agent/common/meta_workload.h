/* The `meta` records both agents write alike: the host's kernel, the
 * addresses and port, and the client's workload (RECORDS.md). */
#ifndef META_WORKLOAD_H
#define META_WORKLOAD_H

#include "config.h"
#include "records.h"

void meta_workload(const struct config *cfg, struct records *r);

#endif
