#include "sockopts.h"

#include "common/addr.h"
#include "common/diag.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

static int get(int fd, int opt, void *val, socklen_t len, const char *name)
{
	socklen_t got = len;

	if (getsockopt(fd, IPPROTO_SCTP, opt, val, &got) != 0) {
		diag_errno(errno, "getsockopt(%s)", name);
		return -1;
	}
	return 0;
}

static int set(int fd, int opt, const void *val, socklen_t len, const char *name)
{
	if (setsockopt(fd, IPPROTO_SCTP, opt, val, len) != 0) {
		diag_errno(errno, "setsockopt(%s)", name);
		return -1;
	}
	return 0;
}

static int apply_nodelay(int fd, int want)
{
	int v = want;

	if (set(fd, SCTP_NODELAY, &v, sizeof(v), "SCTP_NODELAY") != 0 ||
	    get(fd, SCTP_NODELAY, &v, sizeof(v), "SCTP_NODELAY") != 0)
		return -1;
	if ((v != 0) != (want != 0)) {
		diag("SCTP_NODELAY reads back %d after setting %d", v, want);
		return -1;
	}
	return 0;
}

/* SCTP_DELAYED_SACK treats 0 in either field as "leave alone" and can only
 * switch delayed SACK off through sack_freq = 1, after which it reads back
 * as delay 0 / freq 1.  The request is built in those terms, and the
 * check compares only what the user asked for. */
static int apply_delayed_sack(int fd, const struct sock_opts *o)
{
	struct sctp_sack_info si;

	memset(&si, 0, sizeof(si));
	si.sack_assoc_id = SCTP_FUTURE_ASSOC;
	if (get(fd, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK") != 0)
		return -1;

	si.sack_assoc_id = SCTP_FUTURE_ASSOC;
	si.sack_delay = 0;
	si.sack_freq = 0;
	if (o->has_sack_delay) {
		if (o->sack_delay_ms == 0)
			si.sack_freq = 1;
		else
			si.sack_delay = o->sack_delay_ms;
	}
	if (o->has_sack_freq)
		si.sack_freq = o->sack_freq;
	if (set(fd, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK") != 0)
		return -1;

	memset(&si, 0, sizeof(si));
	si.sack_assoc_id = SCTP_FUTURE_ASSOC;
	if (get(fd, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK") != 0)
		return -1;
	if (o->has_sack_delay && si.sack_delay != o->sack_delay_ms) {
		diag("SCTP_DELAYED_SACK delay reads back %u ms after setting %u ms",
		     (unsigned)si.sack_delay, (unsigned)o->sack_delay_ms);
		return -1;
	}
	if (o->has_sack_freq && si.sack_freq != o->sack_freq) {
		diag("SCTP_DELAYED_SACK freq reads back %u after setting %u",
		     (unsigned)si.sack_freq, (unsigned)o->sack_freq);
		return -1;
	}
	return 0;
}

static int apply_streams(int fd, uint16_t n)
{
	struct sctp_initmsg im;

	memset(&im, 0, sizeof(im));
	if (get(fd, SCTP_INITMSG, &im, sizeof(im), "SCTP_INITMSG") != 0)
		return -1;
	im.sinit_num_ostreams = n;
	im.sinit_max_instreams = n;
	if (set(fd, SCTP_INITMSG, &im, sizeof(im), "SCTP_INITMSG") != 0)
		return -1;
	memset(&im, 0, sizeof(im));
	if (get(fd, SCTP_INITMSG, &im, sizeof(im), "SCTP_INITMSG") != 0)
		return -1;
	if (im.sinit_num_ostreams != n || im.sinit_max_instreams != n) {
		diag("SCTP_INITMSG reads back %u/%u streams after setting %u",
		     im.sinit_num_ostreams, im.sinit_max_instreams, n);
		return -1;
	}
	return 0;
}

int sockopts_apply(int fd, const struct sock_opts *o)
{
	if (o->has_nodelay && apply_nodelay(fd, o->nodelay) != 0)
		return -1;
	if ((o->has_sack_delay || o->has_sack_freq) && apply_delayed_sack(fd, o) != 0)
		return -1;
	if (o->has_streams && apply_streams(fd, o->streams) != 0)
		return -1;
	return 0;
}

static int subscribe_one(int fd, sctp_assoc_t assoc, uint16_t type, const char *name)
{
	struct sctp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.se_assoc_id = assoc;
	ev.se_type = type;
	ev.se_on = 1;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev)) != 0) {
		diag_errno(errno, "setsockopt(SCTP_EVENT, %s)", name);
		return -1;
	}
	return 0;
}

int sockopts_subscribe(int fd)
{
	static const struct {
		uint16_t type;
		const char *name;
	} events[] = {
		{ SCTP_ASSOC_CHANGE, "SCTP_ASSOC_CHANGE" },
		{ SCTP_PEER_ADDR_CHANGE, "SCTP_PEER_ADDR_CHANGE" },
		{ SCTP_SEND_FAILED_EVENT, "SCTP_SEND_FAILED_EVENT" },
		{ SCTP_SHUTDOWN_EVENT, "SCTP_SHUTDOWN_EVENT" },
		{ SCTP_REMOTE_ERROR, "SCTP_REMOTE_ERROR" },
	};
	int on = 1;

	/* SCTP_FUTURE_ASSOC: the association does not exist yet, and a
	 * listening socket hands its subscriptions to the accepted one. */
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (subscribe_one(fd, SCTP_FUTURE_ASSOC, events[i].type, events[i].name) != 0)
			return -1;
	return set(fd, SCTP_RECVRCVINFO, &on, sizeof(on), "SCTP_RECVRCVINFO");
}

int sockopts_want_sender_dry(int fd, sctp_assoc_t assoc)
{
	return subscribe_one(fd, assoc, SCTP_SENDER_DRY_EVENT, "SCTP_SENDER_DRY_EVENT");
}

int sockopts_want_prsctp(int fd)
{
	struct sctp_assoc_value av;

	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = 1;
	if (set(fd, SCTP_PR_SUPPORTED, &av, sizeof(av), "SCTP_PR_SUPPORTED") != 0)
		return -1;
	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	if (get(fd, SCTP_PR_SUPPORTED, &av, sizeof(av), "SCTP_PR_SUPPORTED") != 0)
		return -1;
	if (av.assoc_value != 1) {
		diag("SCTP_PR_SUPPORTED reads back %u after setting 1", (unsigned)av.assoc_value);
		return -1;
	}
	return 0;
}

int sockopts_pr_supported(int fd, sctp_assoc_t assoc)
{
	struct sctp_assoc_value av;
	socklen_t len = sizeof(av);

	memset(&av, 0, sizeof(av));
	av.assoc_id = assoc;
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_PR_SUPPORTED, &av, &len) != 0)
		return -1;
	return av.assoc_value != 0;
}

int sockopts_pr_abandoned(int fd, sctp_assoc_t assoc, uint64_t *unsent, uint64_t *sent)
{
	struct sctp_prstatus ps;
	socklen_t len = sizeof(ps);

	memset(&ps, 0, sizeof(ps));
	ps.sprstat_assoc_id = assoc;
	ps.sprstat_policy = SCTP_PR_SCTP_ALL;
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_PR_ASSOC_STATUS, &ps, &len) != 0)
		return -1;
	*unsent = ps.sprstat_abandoned_unsent;
	*sent = ps.sprstat_abandoned_sent;
	return 0;
}

int sockopts_status(int fd, sctp_assoc_t assoc, struct sctp_status *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	st->sstat_assoc_id = assoc;
	return getsockopt(fd, IPPROTO_SCTP, SCTP_STATUS, st, &len);
}

int sockopts_set_primary(int fd, sctp_assoc_t assoc, const struct sockaddr_storage *addr)
{
	struct sctp_prim prim;

	/* struct sctp_prim is packed: go through memcpy and offsetof so no
	 * misaligned pointer to the embedded sockaddr_storage is formed. */
	memset(&prim, 0, sizeof(prim));
	prim.ssp_assoc_id = assoc;
	memcpy((unsigned char *)&prim + offsetof(struct sctp_prim, ssp_addr), addr,
	       sizeof(*addr));
	return setsockopt(fd, IPPROTO_SCTP, SCTP_PRIMARY_ADDR, &prim, sizeof(prim));
}

/* Assoc-level thresholds: a wildcard (all-zero) address asks for the
 * association's values rather than one transport's. */
static void write_thresholds(int fd, sctp_assoc_t assoc, struct records *r, int64_t t)
{
	struct sctp_paddrthlds th;
	struct sctp_paddrthlds_v2 th2;
	socklen_t len;

	memset(&th, 0, sizeof(th));
	th.spt_assoc_id = assoc;
	len = sizeof(th);
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_PEER_ADDR_THLDS, &th, &len) == 0)
		records_param_u64(r, t, "pf_retrans", th.spt_pathpfthld);
	else
		records_param(r, t, "pf_retrans", "unsupported");

	/* The primary-switchover threshold exists only in the v2 option
	 * (Linux >= 5.5); older kernels report it as unsupported. */
	memset(&th2, 0, sizeof(th2));
	th2.spt_assoc_id = assoc;
	len = sizeof(th2);
	if (getsockopt(fd, IPPROTO_SCTP, SCTP_PEER_ADDR_THLDS_V2, &th2, &len) == 0)
		records_param_u64(r, t, "ps_retrans", th2.spt_pathcpthld);
	else
		records_param(r, t, "ps_retrans", "unsupported");
}

int sockopts_write_params(int fd, sctp_assoc_t assoc, struct records *r, int64_t t)
{
	struct sctp_rtoinfo rto;
	struct sctp_assocparams ap;
	struct sctp_paddrparams pp;
	struct sctp_sack_info si;
	struct sctp_status st;
	struct sockaddr_storage prim;
	char a[ADDR_STR_MAX];
	int nodelay = 0;
	uint32_t sack_delay, flags;

	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = assoc;
	if (get(fd, SCTP_RTOINFO, &rto, sizeof(rto), "SCTP_RTOINFO") != 0)
		return -1;
	records_param_u64(r, t, "rto_initial_ms", rto.srto_initial);
	records_param_u64(r, t, "rto_min_ms", rto.srto_min);
	records_param_u64(r, t, "rto_max_ms", rto.srto_max);

	memset(&ap, 0, sizeof(ap));
	ap.sasoc_assoc_id = assoc;
	if (get(fd, SCTP_ASSOCINFO, &ap, sizeof(ap), "SCTP_ASSOCINFO") != 0)
		return -1;
	records_param_u64(r, t, "association_max_retrans", ap.sasoc_asocmaxrxt);

	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = assoc;
	if (get(fd, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp), "SCTP_PEER_ADDR_PARAMS") != 0)
		return -1;
	records_param_u64(r, t, "path_max_retrans", pp.spp_pathmaxrxt);
	records_param_u64(r, t, "hb_interval_ms", pp.spp_hbinterval);
	/* The kernel keeps the old delay when delayed SACK is switched off;
	 * report what is in effect, as SCTP_DELAYED_SACK does. */
	flags = pp.spp_flags;
	sack_delay = (flags & SPP_SACKDELAY_DISABLE) ? 0 : pp.spp_sackdelay;
	records_param_u64(r, t, "sack_delay_ms", sack_delay);

	memset(&si, 0, sizeof(si));
	si.sack_assoc_id = assoc;
	if (get(fd, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK") != 0)
		return -1;
	records_param_u64(r, t, "sack_freq", si.sack_freq);

	write_thresholds(fd, assoc, r, t);

	switch (sockopts_pr_supported(fd, assoc)) {
	case 1:
		records_param_u64(r, t, "pr_supported", 1);
		break;
	case 0:
		records_param_u64(r, t, "pr_supported", 0);
		break;
	default:
		records_param(r, t, "pr_supported", "unsupported");
		break;
	}

	if (get(fd, SCTP_NODELAY, &nodelay, sizeof(nodelay), "SCTP_NODELAY") != 0)
		return -1;
	records_param_u64(r, t, "nodelay", nodelay != 0);

	if (sockopts_status(fd, assoc, &st) != 0) {
		diag_errno(errno, "getsockopt(SCTP_STATUS)");
		return -1;
	}
	records_param_u64(r, t, "streams_out", st.sstat_outstrms);
	records_param_u64(r, t, "streams_in", st.sstat_instrms);
	memcpy(&prim,
	       (const unsigned char *)&st + offsetof(struct sctp_status, sstat_primary) +
		       offsetof(struct sctp_paddrinfo, spinfo_address),
	       sizeof(prim));
	records_param(r, t, "primary", addr_format(&prim, a));
	return 0;
}
