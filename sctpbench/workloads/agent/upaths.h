/* One peer address of a usrsctp association as the stack describes it
 * (SCTP_GET_PEER_ADDR_INFO): for the multipath schedulers (usched.c) and
 * the `path` records.  No usrsctp type here (see ustack.h).
 *
 * usrsctp reports three states: ACTIVE (reachable), INACTIVE and
 * UNCONFIRMED; a potentially-failed path (RFC 7829) is still reachable,
 * so it reads ACTIVE.  SRTT and RTO are in ms (FreeBSD's units, no hz).
 */
#ifndef SCTPBENCH_UPATHS_H
#define SCTPBENCH_UPATHS_H

#include "ustack.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct upath {
	const char *state; /* ACTIVE, INACTIVE, UNCONFIRMED, UNKNOWN (RECORDS.md) */
	bool active;
	uint32_t srtt_ms, rto_ms, cwnd, mtu;
};

/* 0 and *out filled, or -1 (errno set) when the stack will not say. */
int upaths_describe(struct ustack_sock *s, const struct sockaddr_storage *addr, struct upath *out);

#endif
