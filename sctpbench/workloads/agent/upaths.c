#include "upaths.h"
#include "ustack_sock.h"

#include <string.h>

static const char *state_name(int32_t state)
{
	switch (state) {
	case SCTP_ACTIVE: return "ACTIVE";
	case SCTP_INACTIVE: return "INACTIVE";
	case SCTP_UNCONFIRMED: return "UNCONFIRMED";
	default: return "UNKNOWN";
	}
}

int upaths_describe(struct ustack_sock *s, const struct sockaddr_storage *addr, struct upath *out)
{
	struct sctp_paddrinfo pi;
	socklen_t len = sizeof(pi);

	memset(&pi, 0, sizeof(pi));
	memcpy(&pi.spinfo_address, addr, sizeof(pi.spinfo_address));
	/* A one-to-one socket has one association: the id is not looked at. */
	pi.spinfo_assoc_id = 0;
	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) != 0)
		return -1;
	out->state = state_name(pi.spinfo_state);
	out->active = pi.spinfo_state == SCTP_ACTIVE;
	out->srtt_ms = pi.spinfo_srtt;
	out->rto_ms = pi.spinfo_rto;
	out->cwnd = pi.spinfo_cwnd;
	out->mtu = pi.spinfo_mtu;
	return 0;
}
