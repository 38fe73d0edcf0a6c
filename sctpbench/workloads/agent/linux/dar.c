#include "dar.h"

#include "common/addr.h"
#include "common/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *word_of(enum control_kind kind)
{
	switch (kind) {
	case CONTROL_ADDADDR: return "addaddr";
	case CONTROL_DELADDR: return "deladdr";
	default: return "peerprimary";
	}
}

/* Port 0: the kernel takes the socket's own port for an added address
 * and accepts 0 when removing one (sctp_do_bind, sctp_bindx_rem). */
static int bindx_one(int fd, const struct sockaddr_storage *addr, int flags)
{
	_Alignas(struct sockaddr_in6) unsigned char packed[sizeof(struct sockaddr_in6)];
	struct addr_list one;

	one.a[0] = *addr;
	one.n = 1;
	addr_set_port(&one.a[0], 0);
	addr_pack(&one, packed, sizeof(packed));
	return sctp_bindx(fd, (struct sockaddr *)packed, 1, flags);
}

/* The kernel matches the address against the association's own, port
 * included (sctp_assoc_lookup_laddr): it gets the socket's port. */
static int set_peer_primary(int fd, sctp_assoc_t assoc, const struct sockaddr_storage *given)
{
	struct sctp_setpeerprim prim;
	struct sockaddr_storage self, copy = *given;
	const struct sockaddr_storage *addr = &copy;
	socklen_t len = sizeof(self);

	if (getsockname(fd, (struct sockaddr *)&self, &len) != 0)
		return -1;
	addr_set_port(&copy, ntohs(self.ss_family == AF_INET6 ?
				   ((struct sockaddr_in6 *)&self)->sin6_port :
				   ((struct sockaddr_in *)&self)->sin_port));

	/* Packed struct: fill it through memcpy and offsetof, as
	 * sockopts_set_primary does. */
	memset(&prim, 0, sizeof(prim));
	prim.sspp_assoc_id = assoc;
	memcpy((unsigned char *)&prim + offsetof(struct sctp_setpeerprim, sspp_addr), addr,
	       sizeof(*addr));
	return setsockopt(fd, IPPROTO_SCTP, SCTP_SET_PEER_PRIMARY_ADDR, &prim, sizeof(prim));
}

void dar_command(int fd, sctp_assoc_t assoc, enum control_kind kind, const char *arg,
		 struct records *rec)
{
	const char *word = word_of(kind);
	struct sockaddr_storage addr;
	char a[ADDR_STR_MAX];
	int rc;
	int64_t t;

	if (addr_parse(arg, 0, &addr) != 0) {
		printf("err %s %s\n", word, strerror(EINVAL));
		fflush(stdout);
		return;
	}
	if (kind == CONTROL_ADDADDR)
		rc = bindx_one(fd, &addr, SCTP_BINDX_ADD_ADDR);
	else if (kind == CONTROL_DELADDR)
		rc = bindx_one(fd, &addr, SCTP_BINDX_REM_ADDR);
	else
		rc = set_peer_primary(fd, assoc, &addr);
	if (rc != 0) {
		printf("err %s %s\n", word, strerror(errno));
		fflush(stdout);
		return;
	}
	t = now_ns();
	records_event(rec, t, word, addr_format(&addr, a));
	printf("ok %s %" PRId64 "\n", word, t);
	fflush(stdout);
}

void dar_write_params(int fd, sctp_assoc_t assoc, struct records *r, int64_t t)
{
#ifdef SCTP_ASCONF_SUPPORTED
	struct sctp_assoc_value v;
	socklen_t len = sizeof(v);

	memset(&v, 0, sizeof(v));
	v.assoc_id = assoc;
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_ASCONF_SUPPORTED, &v, &len) == 0) {
		records_param_u64(r, t, "asconf_supported", v.assoc_value != 0);
		return;
	}
#else
	(void)fd;
	(void)assoc;
#endif
	records_param(r, t, "asconf_supported", "unsupported");
}
