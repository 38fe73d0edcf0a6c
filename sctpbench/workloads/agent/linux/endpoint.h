/* The SCTP socket both roles start from: one-to-one style, options
 * applied, notifications subscribed, bound to every local address. */
#ifndef SCTPBENCH_ENDPOINT_H
#define SCTPBENCH_ENDPOINT_H

#include "common/config.h"

#include <stdint.h>

/* Returns a non-blocking socket, or -1 with a message printed. */
int endpoint_open(const struct config *cfg, uint16_t local_port);

#endif
