/* The sending role: connect, wait for `start`, generate the load, drain,
 * shut down gracefully. */
#ifndef SCTPBENCH_CLIENT_H
#define SCTPBENCH_CLIENT_H

#include "common/config.h"
#include "common/records.h"

/* Returns the process exit status. */
int client_run(const struct config *cfg, struct records *rec);

#endif
