/* Multipath scheduling on the kernel's SCTP (common/sched_run.h): every peer
 * address described with SCTP_GET_PEER_ADDR_INFO before each message.
 */
#ifndef SCTPBENCH_LINUX_SCHED_H
#define SCTPBENCH_LINUX_SCHED_H

#include "common/sched_run.h"
#include "sctpapi.h"

/* The address the next message goes to, with SCTP_ADDR_OVER; NULL to
 * leave the path to the stack (no active path). */
const struct sockaddr_storage *sched_runner_choose(struct sched_runner *sr, int fd, sctp_assoc_t assoc,
						   int64_t now, unsigned stream, bool unordered, uint64_t size);

#endif
