#include "endpoint.h"

#include "common/diag.h"
#include "sctpapi.h"
#include "sockopts.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int config_family(const struct config *cfg)
{
	return addr_any_ipv6(&cfg->local) || addr_any_ipv6(&cfg->peer) ? AF_INET6 : AF_INET;
}

int endpoint_open(const struct config *cfg, uint16_t local_port)
{
	_Alignas(struct sockaddr_in6) unsigned char packed[ADDR_PACK_MAX];
	struct addr_list local = cfg->local;
	int fd, flags;

	fd = socket(config_family(cfg), SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SCTP);
	if (fd < 0) {
		diag_errno(errno, "socket(IPPROTO_SCTP)");
		return -1;
	}
	/* Before bind/connect/listen: INIT carries the stream counts, and the
	 * association copies the socket's defaults when it is created. */
	if (sockopts_apply(fd, &cfg->opts) != 0 || sockopts_subscribe(fd) != 0)
		goto fail;
	/* Only when some message has a lifetime: otherwise PR-SCTP is left
	 * to the kernel (net.sctp.prsctp_enable), like every other option. */
	if (cfg->role == ROLE_CLIENT && cfg->arrival == ARRIVAL_SCHEDULE &&
	    cfg->schedule.any_lifetime && sockopts_want_prsctp(fd) != 0)
		goto fail;
	if (cfg->role == ROLE_SERVER) {
		int on = 1;

		/* Back-to-back runs in one namespace must not trip over the
		 * previous run's association still shutting down. */
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0) {
			diag_errno(errno, "setsockopt(SO_REUSEADDR)");
			goto fail;
		}
	}

	for (size_t i = 0; i < local.n; i++)
		addr_set_port(&local.a[i], local_port);
	addr_pack(&local, packed, sizeof(packed));
	/* One call with all addresses: with port 0 the kernel picks one
	 * ephemeral port and uses it for every address. */
	if (sctp_bindx(fd, (struct sockaddr *)packed, (int)local.n, SCTP_BINDX_ADD_ADDR) != 0) {
		diag_errno(errno, "sctp_bindx(%s port %u)", cfg->local_text, (unsigned)local_port);
		goto fail;
	}

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
		diag_errno(errno, "fcntl(O_NONBLOCK)");
		goto fail;
	}
	return fd;

fail:
	close(fd);
	return -1;
}
