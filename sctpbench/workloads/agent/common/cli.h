/* Command-line parsing into a struct config. */
#ifndef SCTPBENCH_CLI_H
#define SCTPBENCH_CLI_H

#include "config.h"

#include <stdio.h>

/* 0 on success; on bad usage prints why (and the usage) on stderr and
 * returns 2, the exit status for usage errors. */
int cli_parse(int argc, char **argv, struct config *cfg);
/* Frees what cli_parse allocated (the schedule's messages). */
void cli_free(struct config *cfg);
void cli_usage(FILE *to);

#endif
