/* The socket side of a path-selection policy (common/policy.h): fed one sampling
 * round at a time by the sampler, it keeps each peer address on a stable
 * slot, asks the policy, applies its decision (SCTP_PRIMARY_ADDR; the
 * guard's heartbeat interval through SCTP_PEER_ADDR_PARAMS; the signal
 * policy's prepared target, which the client's sends then name) and writes
 * a `policy` record for every decision other than "stay" (RECORDS.md).
 */
#ifndef SCTPBENCH_POLICY_RUN_H
#define SCTPBENCH_POLICY_RUN_H

#include "common/policy.h"
#include "common/records.h"
#include "sctpapi.h"
#include "common/sigtrace.h"

#include <stdbool.h>
#include <stdint.h>

/* One path as SCTP_GET_PEER_ADDR_INFO described it this round. */
struct policy_path_info {
	struct sockaddr_storage addr;
	int32_t state;
	uint32_t cwnd, srtt_raw, rto_ms;
};

struct policy_runner {
	struct policy_state st;
	struct sockaddr_storage slot_addr[POLICY_MAX_PATHS];
	int n_slots;
	/* The heartbeat interval the guard replaced, to put back after it. */
	int hb_slot; /* -1: none replaced */
	uint32_t hb_saved_ms;
	bool hb_saved_disabled;
	/* While a guard runs, a heartbeat is demanded of the candidate every
	 * guard_hb ms (SPP_HB_DEMAND): Linux re-arms its own heartbeat timer at
	 * no less than max(interval + RTO/2, 200 ms) plus up to one RTO, so an
	 * interval alone cannot give seed 003's 20 ms.  When the last went. */
	int64_t hb_demanded_ns;
	unsigned hb_demands;  /* how many this guard, for its closing record */
	/* signal: the trace, and the start time T its offsets count from;
	 * before `start` no path has a signal value, so nothing is decided. */
	const struct sigtrace *trace;
	int64_t t0;
	bool started;
};

void policy_runner_init(struct policy_runner *pr, const struct policy_params *p);
/* trace: the signal policy's (NULL for the others); kept, not copied. */
void policy_runner_use_trace(struct policy_runner *pr, const struct sigtrace *trace);
void policy_runner_start(struct policy_runner *pr, int64_t t0);
/* Where new messages go: the signal policy's prepared target, or NULL for
 * the primary (no address on the send). */
const struct sockaddr_storage *policy_runner_send_to(const struct policy_runner *pr);
void policy_runner_round(struct policy_runner *pr, int fd, sctp_assoc_t assoc,
			 struct records *r, const struct policy_path_info *paths, size_t n,
			 const struct sockaddr_storage *primary, bool have_primary);

#endif
