/* Periodic per-path state sampling (SCTP_GET_PEER_ADDR_INFO).
 *
 * Notifications say when the kernel changed its mind about a path; the
 * samples show how it got there (cwnd, srtt, rto growing through the
 * retransmission timeouts before a failover).
 */
#ifndef SCTPBENCH_SAMPLER_H
#define SCTPBENCH_SAMPLER_H

#include "cc_info.h"
#include "common/addr.h"
#include "policy_run.h"
#include "common/records.h"
#include "sctpapi.h"

#include <stdbool.h>
#include <stdint.h>

struct sampler {
	int64_t interval_ns; /* 0 = sampling disabled */
	int64_t next_ns;     /* INT64_MAX until started */
	bool policy_on;      /* a non-static --policy runs on every round */
	struct policy_runner policy;
	struct cc_reader cc; /* the primary's congestion state, kept open between rounds */
	/* The peer's addresses, read once and again only after the kernel
	 * said they changed (sampler_peers_changed): a round then costs a
	 * trapped system call less under User-Mode Linux. */
	struct addr_list peers;
	bool peers_known;
};

void sampler_init(struct sampler *s, int64_t interval_ms);
/* Runs the path-selection policy on every scheduled round (not on
 * sampler_round()'s extra ones).  A static policy changes nothing.
 * trace: the signal policy's signal-strength trace, else NULL. */
void sampler_use_policy(struct sampler *s, const struct policy_params *p,
			const struct sigtrace *trace);
/* The start time T, which the signal trace's offsets count from. */
void sampler_policy_start(struct sampler *s, int64_t t0);
/* Where the policy wants new messages sent: NULL for the primary. */
const struct sockaddr_storage *sampler_send_to(const struct sampler *s);
/* First round at `now`, then every interval. */
void sampler_start(struct sampler *s, int64_t now);
void sampler_stop(struct sampler *s);
int64_t sampler_deadline(const struct sampler *s);
/* The association came up, restarted, or a peer address was added or
 * removed: the next round reads the peer's addresses afresh. */
void sampler_peers_changed(struct sampler *s);
/* Takes a round if due.  Rounds missed while the process was busy are
 * skipped, not replayed: a burst of back-dated samples would lie about
 * when the state was seen.  The round's records carry `now`, the loop
 * turn's one clock reading: under User-Mode Linux every reading is a
 * trapped system call, and the round's own calls take microseconds.
 * Returns true when it took a round. */
bool sampler_poll(struct sampler *s, int fd, sctp_assoc_t assoc,
		  struct records *r, int64_t now);
/* One round regardless of the schedule. */
void sampler_round(struct sampler *s, int fd, sctp_assoc_t assoc, struct records *r);
void sampler_close(struct sampler *s);

#endif
