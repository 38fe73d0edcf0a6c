/* A path's state as SCTP_GET_PEER_ADDR_INFO gives it (spinfo_state), named
 * as the records write it: the sampler's `path` records and the policy
 * runner's `policy` records use the same words (RECORDS.md).
 */
#ifndef SCTPBENCH_PATH_STATE_H
#define SCTPBENCH_PATH_STATE_H

#include <stdint.h>

/* ACTIVE, INACTIVE, PF, UNCONFIRMED, or UNKNOWN for anything else. */
const char *path_state_name(int32_t state);

#endif
