#include "cc_info.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/* struct sctp_info; this file alone includes it, as lksctp's
 * <netinet/sctp.h> (sctpapi.h) redefines its names. */
#include <linux/rtnetlink.h>
#include <linux/sctp.h>

static uint16_t port_of(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)a)->sin6_port;
	return ((const struct sockaddr_in *)a)->sin_port;
}

/* The association's ports and addresses and the socket's family, ports in
 * network order. */
static bool ends(int fd, struct cc_reader *r)
{
	socklen_t len = sizeof(r->local);
	int domain = 0;
	socklen_t dlen = sizeof(domain);

	if (getsockname(fd, (struct sockaddr *)&r->local, &len) != 0)
		return false;
	len = sizeof(r->peer);
	if (getpeername(fd, (struct sockaddr *)&r->peer, &len) != 0)
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) != 0)
		return false;
	r->family = domain;
	r->sport = port_of(&r->local);
	r->dport = port_of(&r->peer);
	return true;
}

/* An address as sctp_diag_dump_one reads it: the family it parses the
 * request's address words by, and those words.  A v4-mapped address is the
 * IPv4 one the kernel keeps for the path. */
static int diag_address(const struct sockaddr_storage *a, uint32_t words[4])
{
	memset(words, 0, 4 * sizeof(words[0]));
	if (a->ss_family == AF_INET) {
		memcpy(words, &((const struct sockaddr_in *)a)->sin_addr, 4);
		return AF_INET;
	}
	if (a->ss_family == AF_INET6) {
		const struct in6_addr *v6 = &((const struct sockaddr_in6 *)a)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(v6)) {
			memcpy(words, &v6->s6_addr[12], 4);
			return AF_INET;
		}
		memcpy(words, v6, 16);
		return AF_INET6;
	}
	return AF_UNSPEC;
}

static bool request(int nl, int family, uint16_t sport, uint16_t dport)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = (uint8_t)family;
	req.r.sdiag_protocol = IPPROTO_SCTP;
	/* Associations only: the listening endpoints carry no path. */
	req.r.idiag_states = ~(uint32_t)((1u << TCP_LISTEN) | (1u << TCP_CLOSE));
	req.r.idiag_ext = 1u << (INET_DIAG_INFO - 1);
	req.r.id.idiag_sport = sport;
	req.r.id.idiag_dport = dport;
	return sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) ==
	       (ssize_t)sizeof(req);
}

/* The association alone, found by one address of each end (no dump). */
static bool request_one(int nl, const struct cc_reader *r)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	int lf, pf;

	memset(&req, 0, sizeof(req));
	lf = diag_address(&r->local, req.r.id.idiag_src);
	pf = diag_address(&r->peer, req.r.id.idiag_dst);
	if (lf == AF_UNSPEC || lf != pf)
		return false;
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.r.sdiag_family = (uint8_t)lf;
	req.r.sdiag_protocol = IPPROTO_SCTP;
	req.r.idiag_ext = 1u << (INET_DIAG_INFO - 1);
	req.r.id.idiag_sport = r->sport;
	req.r.id.idiag_dport = r->dport;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	return sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) ==
	       (ssize_t)sizeof(req);
}

/* The INET_DIAG_INFO attribute of one answer, copied into *out. */
static bool parse_one(const struct nlmsghdr *h, struct cc_info *out)
{
	const struct inet_diag_msg *msg = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*msg));
	const struct rtattr *a = (const struct rtattr *)(msg + 1);
	struct sctp_info info;

	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type != INET_DIAG_INFO || RTA_PAYLOAD(a) < sizeof(info))
			continue;
		memcpy(&info, RTA_DATA(a), sizeof(info));
		/* The socket's own answer (no association) comes first, with
		 * no primary path: only the association's has one. */
		if (info.sctpi_p_address.ss_family == AF_UNSPEC)
			return false;
		memcpy(&out->primary, &info.sctpi_p_address, sizeof(out->primary));
		out->cwnd = info.sctpi_p_cwnd;
		out->ssthresh = info.sctpi_p_ssthresh;
		out->flight_size = info.sctpi_p_flight_size;
		out->partial_bytes_acked = info.sctpi_p_partial_bytes_acked;
		return true;
	}
	return false;
}

/* Reads the dump to its end (NLMSG_DONE), keeping the first answer with a
 * primary path. */
static bool answers(int nl, struct cc_info *out)
{
	/* 8 KiB holds many associations' answers (about 500 bytes each). */
	static _Alignas(struct nlmsghdr) char buf[8192];
	bool found = false;

	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		int left = (int)n;

		if (n <= 0)
			return found;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				return found;
			if (!found && h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
				found = parse_one(h, out);
		}
	}
}

/* The one reply to request_one: the association, or an error (NLMSG_ERROR)
 * when the kernel did not find it by those addresses. */
static bool answer_one(int nl, struct cc_info *out, bool *not_found)
{
	static _Alignas(struct nlmsghdr) char buf[8192];
	ssize_t n = recv(nl, buf, sizeof(buf), 0);
	int left = (int)n;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;

	*not_found = false;
	if (n <= 0 || !NLMSG_OK(h, left))
		return false;
	if (h->nlmsg_type == NLMSG_ERROR) {
		*not_found = true;
		return false;
	}
	return h->nlmsg_type == SOCK_DIAG_BY_FAMILY && parse_one(h, out);
}

void cc_reader_init(struct cc_reader *r)
{
	r->nl = -1;
	r->known = false;
	r->one_failed = false;
}

void cc_reader_close(struct cc_reader *r)
{
	if (r->nl >= 0)
		close(r->nl);
	r->nl = -1;
}

bool cc_reader_read(struct cc_reader *r, int fd, struct cc_info *out)
{
	if (!r->known) {
		if (!ends(fd, r))
			return false;
		r->known = true;
	}
	if (r->nl < 0) {
		r->nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		if (r->nl < 0)
			return false;
	}
	if (!r->one_failed) {
		bool not_found = false;

		if (request_one(r->nl, r) && answer_one(r->nl, out, &not_found))
			return true;
		/* Not found by those addresses (one was removed, or the
		 * kernel keeps them otherwise): the dump by ports from now on.
		 * Anything else: a new socket next round, as below. */
		r->one_failed = true;
		if (!not_found) {
			cc_reader_close(r);
			return false;
		}
	}
	if (request(r->nl, r->family, r->sport, r->dport) && answers(r->nl, out))
		return true;
	/* A dump cut short would leave its rest to the next round's reading:
	 * start the next round on a new socket. */
	cc_reader_close(r);
	return false;
}
