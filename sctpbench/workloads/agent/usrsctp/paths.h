/* One peer address of a usrsctp association as the stack describes it
 * (SCTP_GET_PEER_ADDR_INFO), and the association's peer addresses and
 * primary: for the multipath schedulers (sched.c) and the `path` records
 * (sampler.c).  No usrsctp type here (see stack.h).
 *
 * usrsctp reports three states: ACTIVE (reachable), INACTIVE and
 * UNCONFIRMED; a potentially-failed path (RFC 7829) is still reachable,
 * so it reads ACTIVE.  SRTT and RTO are in ms (FreeBSD's units, no hz).
 */
#ifndef SCTPBENCH_USRSCTP_PATHS_H
#define SCTPBENCH_USRSCTP_PATHS_H

#include "common/addr.h"
#include "stack.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct upath {
	const char *state; /* ACTIVE, INACTIVE, UNCONFIRMED, UNKNOWN (RECORDS.md) */
	bool active;
	uint32_t srtt_ms, rto_ms, cwnd, mtu;
};

/* The association's peer addresses (usrsctp_getpaddrs); -1 when it has none. */
int upaths_peers(struct ustack_sock *s, struct addr_list *out);
/* Its primary path's address (SCTP_STATUS); -1 when the stack will not say. */
int upaths_primary(struct ustack_sock *s, struct sockaddr_storage *out);
/* 0 and *out filled, or -1 (errno set) when the stack will not say. */
int upaths_describe(struct ustack_sock *s, const struct sockaddr_storage *addr, struct upath *out);

#endif
