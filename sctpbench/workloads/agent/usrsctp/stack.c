/* The usrsctp socket layer (see stack.h). */
#include "stack.h"
#include "stack_sock.h"

#include "common/clock.h"
#include "common/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

/* Option numbers Debian's 0.9.5.0 header lacks (the library has them). */
#ifndef SCTP_CMT_ON_OFF
#define SCTP_CMT_ON_OFF 0x00001200
#endif


/* ---- command line ---------------------------------------------------- */

struct ustack_opt {
	const char *name;
	uint32_t lo, hi;
	size_t has_off, val_off;
};

#define UOPT(name, lo, hi, has, field) \
	{ name, lo, hi, offsetof(struct ustack_params, has), \
	  offsetof(struct ustack_params, field) }

static const struct ustack_opt OPTS[] = {
	UOPT("--rto-min", 1, 3600000, has_rto_min, rto_min_ms),
	UOPT("--rto-max", 1, 3600000, has_rto_max, rto_max_ms),
	UOPT("--rto-initial", 1, 3600000, has_rto_initial, rto_initial_ms),
	UOPT("--path-max-retrans", 0, 65535, has_path_max_retrans, path_max_retrans),
	UOPT("--hb-interval", 0, 3600000, has_hb_interval, hb_interval_ms),
	UOPT("--max-burst", 0, 65535, has_max_burst, max_burst),
	UOPT("--cmt", 0, 4, has_cmt, cmt),
};

/* SCTP_SS_*: the stream scheduler's words. */
static const char *const SS_NAMES[] = {
	"default", "round-robin", "round-robin-packet", "priority",
	"fair-bandwidth", "first-come",
};

void ustack_usage(void)
{
	fprintf(stderr, "usrsctp options: --udp-port P --remote-udp-port P (default %d)\n"
		"  --rto-min MS --rto-max MS --rto-initial MS --path-max-retrans N\n"
		"  --hb-interval MS --max-burst N --cmt 0-4\n"
		"  --stream-scheduler default|round-robin|round-robin-packet|priority|"
		"fair-bandwidth|first-come\n", USTACK_DEFAULT_UDP_PORT);
}

static int parse_u32(const char *name, const char *text, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v < lo || v > hi) {
		diag("%s '%s': not a whole number from %" PRIu32 " to %" PRIu32, name, text, lo, hi);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_ss(const char *text, uint32_t *out)
{
	for (size_t i = 0; i < sizeof(SS_NAMES) / sizeof(SS_NAMES[0]); i++)
		if (strcmp(text, SS_NAMES[i]) == 0) {
			*out = (uint32_t)i;
			return 0;
		}
	diag("--stream-scheduler '%s': unknown", text);
	return -1;
}

/* One option; 1 if it was ours, 0 if not, -1 if bad. */
static int take_one(const char *name, const char *value, struct ustack_params *p)
{
	uint32_t v;

	if (strcmp(name, "--udp-port") == 0 || strcmp(name, "--remote-udp-port") == 0) {
		if (parse_u32(name, value, 1, 65535, &v) != 0)
			return -1;
		if (name[2] == 'u')
			p->udp_port = (uint16_t)v;
		else
			p->remote_udp_port = (uint16_t)v;
		return 1;
	}
	if (strcmp(name, "--stream-scheduler") == 0) {
		if (parse_ss(value, &p->ss) != 0)
			return -1;
		p->has_ss = true;
		return 1;
	}
	for (size_t i = 0; i < sizeof(OPTS) / sizeof(OPTS[0]); i++) {
		const struct ustack_opt *o = &OPTS[i];

		if (strcmp(name, o->name) != 0)
			continue;
		if (parse_u32(name, value, o->lo, o->hi, (uint32_t *)((char *)p + o->val_off)) != 0)
			return -1;
		*(bool *)((char *)p + o->has_off) = true;
		return 1;
	}
	return 0;
}

int ustack_params_take(int *argc, char **argv, struct ustack_params *p)
{
	int out = 1;

	memset(p, 0, sizeof(*p));
	p->udp_port = USTACK_DEFAULT_UDP_PORT;
	p->remote_udp_port = USTACK_DEFAULT_UDP_PORT;
	for (int i = 1; i < *argc; i++) {
		char name[64];
		const char *value = NULL;
		const char *eq = strchr(argv[i], '=');
		int used = 1, rc;

		if (strncmp(argv[i], "--", 2) != 0 || strlen(argv[i]) >= sizeof(name)) {
			argv[out++] = argv[i];
			continue;
		}
		if (eq != NULL) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - argv[i]), argv[i]);
			value = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", argv[i]);
			if (i + 1 < *argc)
				value = argv[i + 1];
			used = 2;
		}
		rc = value != NULL ? take_one(name, value, p) : 0;
		if (rc < 0) {
			ustack_usage();
			return 2;
		}
		if (rc == 0) {
			argv[out++] = argv[i];
			continue;
		}
		i += used - 1;
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

/* ---- the stack ------------------------------------------------------- */

int ustack_start(const struct ustack_params *p)
{
	usrsctp_init(p->udp_port, NULL, NULL);
	/* Set after usrsctp_init, which resets every sysctl.  Raw-mode
	 * sockets stay off: they pick wrong source addresses when multihomed. */
	usrsctp_sysctl_set_sctp_blackhole(2);
	usrsctp_sysctl_set_sctp_no_csum_on_loopback(0);
	/* SCTP_CMT_ON_OFF is refused (ENOPROTOOPT) unless the sysctl allows
	 * CMT; the sysctl is also the default of new sockets. */
	if (p->has_cmt && usrsctp_sysctl_set_sctp_cmt_on_off(p->cmt) != 0) {
		diag_errno(errno, "usrsctp_sysctl_set_sctp_cmt_on_off(%" PRIu32 ")", p->cmt);
		return -1;
	}
	return 0;
}

void ustack_finish(int64_t timeout_ms)
{
	int64_t end = now_ns() + timeout_ms * NS_PER_MS;

	/* usrsctp_finish refuses (non-zero) while sockets or associations
	 * remain: a closed client's SHUTDOWN is still on its way. */
	while (usrsctp_finish() != 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (now_ns() >= end)
			return;
		nanosleep(&ts, NULL);
	}
}

static void upcall(struct socket *so, void *arg, int flags)
{
	struct ustack_sock *s = arg;
	char b = 1;
	ssize_t n;

	(void)so;
	(void)flags;
	/* A full pipe already says "look": the byte may be dropped. */
	n = write(s->wake[1], &b, 1);
	(void)n;
}

int ustack_wake_fd(const struct ustack_sock *s)
{
	return s->wake[0];
}

void ustack_wake_clear(struct ustack_sock *s)
{
	char buf[64];

	while (read(s->wake[0], buf, sizeof(buf)) > 0)
		;
}

static struct ustack_sock *wrap(struct socket *so)
{
	struct ustack_sock *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		diag_errno(errno, "allocating a socket");
		usrsctp_close(so);
		return NULL;
	}
	s->so = so;
	if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
		diag_errno(errno, "pipe2");
		usrsctp_close(so);
		free(s);
		return NULL;
	}
	usrsctp_set_non_blocking(so, 1);
	usrsctp_set_upcall(so, upcall, s);
	upcall(so, s, 0); /* anything that arrived before the upcall was set */
	return s;
}

static int setopt(struct ustack_sock *s, int name, const void *v, socklen_t len, const char *what)
{
	if (usrsctp_setsockopt(s->so, IPPROTO_SCTP, name, v, len) != 0) {
		diag_errno(errno, "usrsctp_setsockopt(%s)", what);
		return -1;
	}
	return 0;
}

static int set_assoc_value(struct ustack_sock *s, int name, uint32_t v, const char *what)
{
	struct sctp_assoc_value av;

	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = v;
	return setopt(s, name, &av, sizeof(av), what);
}

static int apply_rto(struct ustack_sock *s, const struct ustack_params *p)
{
	struct sctp_rtoinfo rto;

	if (!p->has_rto_min && !p->has_rto_max && !p->has_rto_initial)
		return 0;
	/* Zero leaves a field as it is. */
	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
	rto.srto_min = p->has_rto_min ? p->rto_min_ms : 0;
	rto.srto_max = p->has_rto_max ? p->rto_max_ms : 0;
	rto.srto_initial = p->has_rto_initial ? p->rto_initial_ms : 0;
	return setopt(s, SCTP_RTOINFO, &rto, sizeof(rto), "SCTP_RTOINFO");
}

static int apply_paddr(struct ustack_sock *s, const struct ustack_params *p)
{
	struct sctp_paddrparams pp;

	if (!p->has_path_max_retrans && !p->has_hb_interval)
		return 0;
	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
	if (p->has_path_max_retrans)
		pp.spp_pathmaxrxt = (uint16_t)p->path_max_retrans;
	if (p->has_hb_interval) {
		pp.spp_hbinterval = p->hb_interval_ms;
		pp.spp_flags = p->hb_interval_ms == 0 ? SPP_HB_TIME_IS_ZERO | SPP_HB_ENABLE
						      : SPP_HB_ENABLE;
	}
	return setopt(s, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp), "SCTP_PEER_ADDR_PARAMS");
}

static int apply_common(struct ustack_sock *s, const struct ustack_params *p)
{
	if (p->has_nodelay) {
		int v = (int)p->nodelay;

		if (setopt(s, SCTP_NODELAY, &v, sizeof(v), "SCTP_NODELAY") != 0)
			return -1;
	}
	if (p->has_sack_delay || p->has_sack_freq) {
		struct sctp_sack_info si;

		memset(&si, 0, sizeof(si));
		si.sack_assoc_id = SCTP_FUTURE_ASSOC;
		/* As the Linux agent: delay 0 means delayed SACK off, which
		 * is a frequency of 1. */
		si.sack_delay = p->has_sack_delay ? p->sack_delay_ms : 0;
		si.sack_freq = p->has_sack_freq ? p->sack_freq
			       : (p->has_sack_delay && p->sack_delay_ms == 0 ? 1 : 0);
		if (p->has_sack_delay && p->sack_delay_ms == 0)
			si.sack_delay = 0;
		if (setopt(s, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK") != 0)
			return -1;
	}
	if (p->has_streams) {
		struct sctp_initmsg im;

		memset(&im, 0, sizeof(im));
		im.sinit_num_ostreams = (uint16_t)p->streams;
		im.sinit_max_instreams = (uint16_t)p->streams;
		if (setopt(s, SCTP_INITMSG, &im, sizeof(im), "SCTP_INITMSG") != 0)
			return -1;
	}
	return 0;
}

static int apply(struct ustack_sock *s, const struct ustack_params *p)
{
	struct sctp_udpencaps enc;
	struct sctp_event ev;
	const uint16_t types[] = { SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE,
				   SCTP_SHUTDOWN_EVENT, SCTP_SENDER_DRY_EVENT };
	int on = 1;

	memset(&enc, 0, sizeof(enc));
	enc.sue_address.ss_family = AF_INET;
	enc.sue_port = htons(p->remote_udp_port);
	if (setopt(s, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof(enc), "SCTP_REMOTE_UDP_ENCAPS_PORT") != 0)
		return -1;
	if (setopt(s, SCTP_RECVRCVINFO, &on, sizeof(on), "SCTP_RECVRCVINFO") != 0)
		return -1;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.se_assoc_id = SCTP_FUTURE_ASSOC;
		ev.se_type = types[i];
		ev.se_on = 1;
		if (setopt(s, SCTP_EVENT, &ev, sizeof(ev), "SCTP_EVENT") != 0)
			return -1;
	}
	if (apply_rto(s, p) != 0 || apply_paddr(s, p) != 0 || apply_common(s, p) != 0)
		return -1;
	if (p->has_max_burst && set_assoc_value(s, SCTP_MAX_BURST, p->max_burst, "SCTP_MAX_BURST") != 0)
		return -1;
	if (p->has_cmt && set_assoc_value(s, SCTP_CMT_ON_OFF, p->cmt, "SCTP_CMT_ON_OFF") != 0)
		return -1;
	if (p->has_ss && set_assoc_value(s, SCTP_PLUGGABLE_SS, p->ss, "SCTP_PLUGGABLE_SS") != 0)
		return -1;
	return 0;
}

struct ustack_sock *ustack_open(const struct ustack_params *p, int family,
				const struct addr_list *local, uint16_t port)
{
	struct socket *so;
	struct ustack_sock *s;
	struct addr_list bound = *local;
	_Alignas(struct sockaddr_in6) unsigned char packed[ADDR_PACK_MAX];

	so = usrsctp_socket(family, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (so == NULL) {
		diag_errno(errno, "usrsctp_socket");
		return NULL;
	}
	s = wrap(so);
	if (s == NULL)
		return NULL;
	if (apply(s, p) != 0) {
		ustack_close(s);
		return NULL;
	}
	for (size_t i = 0; i < bound.n; i++)
		addr_set_port(&bound.a[i], port);
	addr_pack(&bound, packed, sizeof(packed));
	if (usrsctp_bindx(so, (struct sockaddr *)packed, (int)bound.n, SCTP_BINDX_ADD_ADDR) != 0) {
		diag_errno(errno, "usrsctp_bindx");
		ustack_close(s);
		return NULL;
	}
	return s;
}

int ustack_listen(struct ustack_sock *s)
{
	if (usrsctp_listen(s->so, 1) != 0) {
		diag_errno(errno, "usrsctp_listen");
		return -1;
	}
	return 0;
}

struct ustack_sock *ustack_accept(struct ustack_sock *s)
{
	struct socket *so = usrsctp_accept(s->so, NULL, NULL);

	if (so == NULL)
		return NULL;
	return wrap(so);
}

int ustack_connect(struct ustack_sock *s, const struct addr_list *peer)
{
	_Alignas(struct sockaddr_in6) unsigned char packed[ADDR_PACK_MAX];

	addr_pack(peer, packed, sizeof(packed));
	if (usrsctp_connectx(s->so, (struct sockaddr *)packed, (int)peer->n, NULL) != 0 &&
	    errno != EINPROGRESS) {
		diag_errno(errno, "usrsctp_connectx");
		return -1;
	}
	return 0;
}

void ustack_close(struct ustack_sock *s)
{
	if (s == NULL)
		return;
	usrsctp_set_upcall(s->so, NULL, NULL);
	usrsctp_close(s->so);
	close(s->wake[0]);
	close(s->wake[1]);
	free(s);
}

/* ---- messages and notifications ------------------------------------- */

static const char *assoc_state(uint16_t st)
{
	switch (st) {
	case SCTP_COMM_UP: return "COMM_UP";
	case SCTP_COMM_LOST: return "COMM_LOST";
	case SCTP_RESTART: return "RESTART";
	case SCTP_SHUTDOWN_COMP: return "SHUTDOWN_COMP";
	case SCTP_CANT_STR_ASSOC: return "CANT_STR_ASSOC";
	default: return "OTHER";
	}
}

static const char *addr_state(uint32_t st)
{
	switch (st) {
	case SCTP_ADDR_AVAILABLE: return "ADDR_AVAILABLE";
	case SCTP_ADDR_UNREACHABLE: return "ADDR_UNREACHABLE";
	case SCTP_ADDR_REMOVED: return "ADDR_REMOVED";
	case SCTP_ADDR_ADDED: return "ADDR_ADDED";
	case SCTP_ADDR_MADE_PRIM: return "ADDR_MADE_PRIM";
	case SCTP_ADDR_CONFIRMED: return "ADDR_CONFIRMED";
	default: return "OTHER";
	}
}

static void parse_notification(const union sctp_notification *n, struct ustack_rx *rx)
{
	rx->is_event = true;
	rx->ev = USTACK_EV_OTHER;
	switch (n->sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE: {
		const struct sctp_assoc_change *ac = &n->sn_assoc_change;

		rx->state = assoc_state(ac->sac_state);
		rx->error = ac->sac_error;
		rx->outstreams = ac->sac_outbound_streams;
		rx->instreams = ac->sac_inbound_streams;
		if (ac->sac_state == SCTP_COMM_UP)
			rx->ev = USTACK_EV_COMM_UP;
		else if (ac->sac_state != SCTP_RESTART)
			rx->ev = USTACK_EV_ENDED;
		break;
	}
	case SCTP_PEER_ADDR_CHANGE: {
		const struct sctp_paddr_change *pc = &n->sn_paddr_change;

		rx->ev = USTACK_EV_ADDR;
		rx->state = addr_state(pc->spc_state);
		rx->error = pc->spc_error;
		memcpy(&rx->addr, &pc->spc_aaddr, sizeof(rx->addr));
		break;
	}
	case SCTP_SHUTDOWN_EVENT:
		rx->ev = USTACK_EV_PEER_SHUTDOWN;
		break;
	case SCTP_SENDER_DRY_EVENT:
		rx->ev = USTACK_EV_DRY;
		break;
	default:
		break;
	}
}

int ustack_recv(struct ustack_sock *s, void *buf, size_t cap, struct ustack_rx *rx)
{
	struct sctp_rcvinfo ri;
	socklen_t fromlen = sizeof(rx->from), infolen = sizeof(ri);
	unsigned int infotype = 0;
	int flags = 0;
	ssize_t n;

	memset(rx, 0, sizeof(*rx));
	n = usrsctp_recvv(s->so, buf, cap, (struct sockaddr *)&rx->from, &fromlen, &ri,
			  &infolen, &infotype, &flags);
	if (n < 0) {
		if (errno == EWOULDBLOCK || errno == EAGAIN)
			return 0;
		return -1;
	}
	if (n == 0) {
		errno = 0;
		return -1;
	}
	if (flags & MSG_NOTIFICATION) {
		parse_notification(buf, rx);
		return 1;
	}
	rx->len = (size_t)n;
	if (infotype == SCTP_RECVV_RCVINFO) {
		rx->have_stream = true;
		rx->stream = ri.rcv_sid;
	}
	return 1;
}

ssize_t ustack_send(struct ustack_sock *s, const void *buf, size_t len,
		    unsigned stream, bool unordered, const struct sockaddr_storage *to)
{
	struct sctp_sndinfo si;
	struct sockaddr_storage dest;

	memset(&si, 0, sizeof(si));
	si.snd_sid = (uint16_t)stream;
	si.snd_flags = unordered ? SCTP_UNORDERED : 0;
	if (to == NULL)
		return usrsctp_sendv(s->so, buf, len, NULL, 0, &si, sizeof(si), SCTP_SENDV_SNDINFO, 0);
	/* The message's chunks go to this address (the stream queue entry
	 * keeps it as their destination) instead of the primary. */
	dest = *to;
	si.snd_flags |= SCTP_ADDR_OVER;
	return usrsctp_sendv(s->so, buf, len, (struct sockaddr *)&dest, 1, &si, sizeof(si),
			     SCTP_SENDV_SNDINFO, 0);
}

int ustack_want_dry(struct ustack_sock *s)
{
	struct sctp_event ev;

	/* usrsctp sends SENDER_DRY every time the queue empties; subscribing
	 * anew sends one at once if it is empty now, so the next one after
	 * this call means "everything so far is acknowledged". */
	memset(&ev, 0, sizeof(ev));
	ev.se_assoc_id = SCTP_FUTURE_ASSOC;
	ev.se_type = SCTP_SENDER_DRY_EVENT;
	ev.se_on = 0;
	if (setopt(s, SCTP_EVENT, &ev, sizeof(ev), "SCTP_EVENT") != 0)
		return -1;
	ev.se_on = 1;
	return setopt(s, SCTP_EVENT, &ev, sizeof(ev), "SCTP_EVENT");
}

int ustack_write_peers(struct ustack_sock *s, struct records *r, int64_t t)
{
	struct sockaddr *addrs = NULL;
	int n = usrsctp_getpaddrs(s->so, 0, &addrs);
	const unsigned char *p = (const unsigned char *)addrs;

	if (n < 0) {
		diag_errno(errno, "usrsctp_getpaddrs");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct sockaddr_storage ss;
		const struct sockaddr *sa = (const struct sockaddr *)p;
		size_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						       : sizeof(struct sockaddr_in);

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, p, len);
		records_peer(r, t, &ss);
		p += len;
	}
	if (addrs != NULL)
		usrsctp_freepaddrs(addrs);
	return 0;
}

/* ---- read-back ------------------------------------------------------- */

static int getopt_(struct ustack_sock *s, int name, void *v, socklen_t len, const char *what)
{
	socklen_t l = len;

	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, name, v, &l) != 0) {
		diag_errno(errno, "usrsctp_getsockopt(%s)", what);
		return -1;
	}
	return 0;
}

static int read_assoc_value(struct ustack_sock *s, int name, const char *what, uint32_t *out)
{
	struct sctp_assoc_value av;

	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	if (getopt_(s, name, &av, sizeof(av), what) != 0)
		return -1;
	*out = av.assoc_value;
	return 0;
}

int ustack_write_params(struct ustack_sock *s, struct records *r, int64_t t)
{
	struct sctp_rtoinfo rto;
	struct sctp_paddrparams pp;
	struct sctp_sack_info si;
	struct sctp_status st;
	uint32_t v;
	int nodelay = 0;

	records_param(r, t, "stack", "usrsctp");
	memset(&st, 0, sizeof(st));
	if (getopt_(s, SCTP_STATUS, &st, sizeof(st), "SCTP_STATUS") != 0)
		return -1;
	memset(&rto, 0, sizeof(rto));
	if (getopt_(s, SCTP_RTOINFO, &rto, sizeof(rto), "SCTP_RTOINFO") != 0)
		return -1;
	records_param_u64(r, t, "rto_initial_ms", rto.srto_initial);
	records_param_u64(r, t, "rto_min_ms", rto.srto_min);
	records_param_u64(r, t, "rto_max_ms", rto.srto_max);
	/* usrsctp answers this one for a path only (EAFNOSUPPORT without an
	 * address): the primary's, which has the association's values. */
	memset(&pp, 0, sizeof(pp));
	memcpy(&pp.spp_address, &st.sstat_primary.spinfo_address, sizeof(pp.spp_address));
	pp.spp_assoc_id = st.sstat_assoc_id;
	if (getopt_(s, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp), "SCTP_PEER_ADDR_PARAMS") != 0)
		return -1;
	records_param_u64(r, t, "path_max_retrans", pp.spp_pathmaxrxt);
	records_param_u64(r, t, "hb_interval_ms", pp.spp_hbinterval);
	memset(&si, 0, sizeof(si));
	if (getopt_(s, SCTP_DELAYED_SACK, &si, sizeof(si), "SCTP_DELAYED_SACK") != 0)
		return -1;
	records_param_u64(r, t, "sack_delay_ms", si.sack_delay);
	records_param_u64(r, t, "sack_freq", si.sack_freq);
	if (getopt_(s, SCTP_NODELAY, &nodelay, sizeof(nodelay), "SCTP_NODELAY") != 0)
		return -1;
	records_param_u64(r, t, "nodelay", nodelay != 0);
	if (read_assoc_value(s, SCTP_MAX_BURST, "SCTP_MAX_BURST", &v) != 0)
		return -1;
	records_param_u64(r, t, "max_burst", v);
	if (read_assoc_value(s, SCTP_CMT_ON_OFF, "SCTP_CMT_ON_OFF", &v) != 0)
		return -1;
	records_param_u64(r, t, "cmt", v);
	if (read_assoc_value(s, SCTP_PLUGGABLE_SS, "SCTP_PLUGGABLE_SS", &v) != 0)
		return -1;
	records_param(r, t, "stream_scheduler",
		      v < sizeof(SS_NAMES) / sizeof(SS_NAMES[0]) ? SS_NAMES[v] : "other");
	records_param_u64(r, t, "streams_out", st.sstat_outstrms);
	records_param_u64(r, t, "streams_in", st.sstat_instrms);
	{
		char a[ADDR_STR_MAX];
		struct sockaddr_storage prim;

		memcpy(&prim, &st.sstat_primary.spinfo_address, sizeof(prim));
		records_param(r, t, "primary", addr_format(&prim, a));
	}
	return 0;
}
