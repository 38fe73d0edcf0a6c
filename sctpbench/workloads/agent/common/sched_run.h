/* The stack-independent side of sender-side multipath scheduling
 * (sched.h): the runner holds the scheduler and every peer address as the
 * stack last described it, takes the decision for the next message, and
 * after a successful send writes the `sched` record with the decision and
 * every input (RECORDS.md).  Each stack fills in the paths its own way:
 * linux/sched.c (SCTP_GET_PEER_ADDR_INFO on the kernel socket),
 * usrsctp/paths.c.
 */
#ifndef SCTPBENCH_SCHED_RUN_H
#define SCTPBENCH_SCHED_RUN_H

#include "addr.h"
#include "records.h"
#include "sched.h"

#include <stdbool.h>
#include <stdint.h>

struct sched_runner {
	struct sched_state st;
	const struct addr_list *peers; /* --peer order: a path is its index */
	struct sched_path paths[SCHED_MAX_PATHS];
	const char *state[SCHED_MAX_PATHS]; /* RECORDS.md's words; UNKNOWN when not described */
	struct sched_choice choice;    /* the last sched_runner_decide() */
	int64_t chosen_at;
};

/* peers: kept, not copied.  Returns -1 (errno set) when out of memory. */
int sched_runner_init(struct sched_runner *sr, const struct sched_params *p,
		      const struct addr_list *peers);
void sched_runner_free(struct sched_runner *sr);
/* Path i is not described (the stack would not say): not a candidate. */
void sched_runner_unknown(struct sched_runner *sr, size_t i);
/* With paths[] and state[] filled in for this message: the address it goes
 * to, or NULL to leave the path to the stack (no active path). */
const struct sockaddr_storage *sched_runner_decide(struct sched_runner *sr, int64_t now, unsigned stream,
						   bool unordered, uint64_t size);
/* The message of the last decision went out: account for it and record it. */
void sched_runner_sent(struct sched_runner *sr, struct records *r, uint64_t seq, unsigned stream,
		       bool unordered, uint64_t size);

#endif
