/* SCTP notifications: turn each into its record and tell the caller what
 * it means for the association's life cycle.
 */
#ifndef SCTPBENCH_NOTIFY_H
#define SCTPBENCH_NOTIFY_H

#include "common/records.h"
#include "sctpapi.h"

#include <stddef.h>
#include <stdint.h>

enum notify_kind {
	NOTIFY_OTHER,         /* recorded (or ignored); nothing to act on */
	NOTIFY_COMM_UP,
	NOTIFY_RESTART,
	NOTIFY_ASSOC_LOST,    /* COMM_LOST or CANT_STR_ASSOC */
	NOTIFY_SHUTDOWN_COMP,
	NOTIFY_PEER_SHUTDOWN, /* peer sent SHUTDOWN */
	NOTIFY_SENDER_DRY,
	NOTIFY_PEERS_CHANGED, /* a peer address added or removed (ASCONF) */
};

struct notify_info {
	enum notify_kind kind;
	sctp_assoc_t assoc_id; /* valid for assoc changes */
	unsigned error;        /* sac_error for assoc changes */
};

/* buf holds the notification's first len bytes; anything shorter than the
 * fixed part of its type is ignored rather than read past. */
void notify_handle(const unsigned char *buf, size_t len, int64_t t,
		   struct records *r, struct notify_info *out);

#endif
