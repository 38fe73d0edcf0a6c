/* The socket side of sender-side multipath scheduling (sched.h): before
 * each message it describes every peer address (SCTP_GET_PEER_ADDR_INFO),
 * asks the scheduler for a path, and after a successful send writes a
 * `sched` record with the decision and every input (RECORDS.md).
 */
#ifndef SCTPBENCH_SCHED_RUN_H
#define SCTPBENCH_SCHED_RUN_H

#include "addr.h"
#include "records.h"
#include "sched.h"
#include "sctpapi.h"

#include <stdbool.h>
#include <stdint.h>

struct sched_runner {
	struct sched_state st;
	const struct addr_list *peers; /* --peer order: a path is its index */
	struct sched_path paths[SCHED_MAX_PATHS];
	int32_t state[SCHED_MAX_PATHS];
	struct sched_choice choice;    /* the last sched_runner_choose() */
	int64_t chosen_at;
};

/* peers: kept, not copied.  Returns -1 (errno set) when out of memory. */
int sched_runner_init(struct sched_runner *sr, const struct sched_params *p,
		      const struct addr_list *peers);
void sched_runner_free(struct sched_runner *sr);
/* The address the next message goes to, with SCTP_ADDR_OVER; NULL to
 * leave the path to the stack (no active path). */
const struct sockaddr_storage *sched_runner_choose(struct sched_runner *sr, int fd, sctp_assoc_t assoc,
						   int64_t now, unsigned stream, bool unordered, uint64_t size);
/* The message of the last choice went out: account for it and record it. */
void sched_runner_sent(struct sched_runner *sr, struct records *r, uint64_t seq, unsigned stream,
		       bool unordered, uint64_t size);

#endif
