#include "paths.h"
#include "stack_sock.h"

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

int upaths_peers(struct ustack_sock *s, struct addr_list *out)
{
	struct sockaddr *addrs = NULL;
	int n = usrsctp_getpaddrs(s->so, 0, &addrs);
	const unsigned char *p = (const unsigned char *)addrs;

	out->n = 0;
	if (n <= 0) {
		if (addrs != NULL)
			usrsctp_freepaddrs(addrs);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)p;
		size_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

		if (out->n < ADDR_LIST_MAX) {
			memset(&out->a[out->n], 0, sizeof(out->a[out->n]));
			memcpy(&out->a[out->n], p, len);
			out->n++;
		}
		p += len;
	}
	usrsctp_freepaddrs(addrs);
	return 0;
}

int upaths_primary(struct ustack_sock *s, struct sockaddr_storage *out)
{
	struct sctp_status st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, SCTP_STATUS, &st, &len) != 0)
		return -1;
	memcpy(out, &st.sstat_primary.spinfo_address, sizeof(*out));
	return 0;
}
