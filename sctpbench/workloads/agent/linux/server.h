/* The receiving role: accept one association and log every message. */
#ifndef SCTPBENCH_SERVER_H
#define SCTPBENCH_SERVER_H

#include "common/config.h"
#include "common/records.h"

/* Returns the process exit status. */
int server_run(const struct config *cfg, struct records *rec);

#endif
