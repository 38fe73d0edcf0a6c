#include "client.h"

#include "common/clock.h"
#include "common/control.h"
#include "dar.h"
#include "common/diag.h"
#include "endpoint.h"
#include "notify.h"
#include "rxmsg.h"
#include "sampler.h"
#include "sched.h"
#include "sctpapi.h"
#include "sockopts.h"
#include "common/waiting.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* While draining, how often SCTP_STATUS is re-read once the kernel has
 * reported the sender dry. */
#define DRAIN_CHECK_NS (10 * NS_PER_MS)
/* Back-to-back sends allowed per loop turn when behind schedule (or
 * saturating), so a backlog cannot starve notifications, sampling and
 * stdin. */
#define SEND_BURST_MAX 64
/* Start times beyond this could overflow the schedule arithmetic; real
 * CLOCK_MONOTONIC values are many orders of magnitude smaller. */
#define START_NS_MAX (INT64_MAX / 4)

enum phase {
	PHASE_CONNECTING, /* INIT sent, waiting for COMM_UP */
	PHASE_WAITING,    /* ready, waiting for `start` */
	PHASE_SENDING,
	PHASE_DRAINING,   /* no more messages; waiting for the peer's SACKs */
};

enum outcome {
	RUNNING,
	FINISHED, /* drained (or drain timed out): exit 0 */
	FAILED,   /* exit 1 */
};

struct client {
	const struct config *cfg;
	struct records *rec;
	struct sampler sampler;
	struct sched_runner scheduler; /* with scheduling_on */
	bool scheduling_on;            /* --scheduler other than primary */
	struct control ctl;
	struct arrival arrival;
	const struct schedule *sched; /* --arrival schedule, else NULL */
	struct rxmsg rx;
	int fd;
	sctp_assoc_t assoc;
	enum phase phase;
	enum outcome outcome;
	bool stdin_open;
	uint16_t streams;  /* streams messages go round-robin on */
	uint64_t sent;     /* messages sent == next sequence number */
	int64_t next_due;  /* scheduled time of message `sent` */
	int64_t gen_end;   /* messages scheduled at or after this are not sent;
			    * saturate: none is generated at or after it */
	bool saturate;     /* send whenever the socket accepts data */
	bool blocked;      /* last send hit a full send buffer: wait for POLLOUT */
	bool dry;          /* SCTP_SENDER_DRY_EVENT seen while draining */
	int64_t drain_deadline;
	int64_t next_drain_check;
	unsigned char *payload;
};

/* stdout is the harness's channel: one line per reply, flushed at once so
 * the harness never waits on our buffering. */
static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void reply(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void fail(struct client *c)
{
	c->outcome = FAILED;
}

static void put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (unsigned char)(v & 0xff);
		v >>= 8;
	}
}

/* What only the association can tell: enough outbound streams for the
 * file's highest, and PR-SCTP if a message has a lifetime (without it the
 * kernel would silently send such a message reliably). */
static int check_schedule(const struct client *c)
{
	const struct schedule *s = c->sched;

	if (s->n > 0 && s->max_stream >= c->streams) {
		diag("%s:%zu: stream %u but the association has %u outbound streams",
		     c->cfg->schedule_path, s->max_stream_line, (unsigned)s->max_stream,
		     (unsigned)c->streams);
		return -1;
	}
	if (s->any_lifetime) {
		int pr = sockopts_pr_supported(c->fd, c->assoc);

		if (pr < 0) {
			diag_errno(errno, "getsockopt(SCTP_PR_SUPPORTED): PR-SCTP lifetimes in %s "
				   "cannot be honoured", c->cfg->schedule_path);
			return -1;
		}
		if (pr == 0) {
			diag("%s has messages with a lifetime but the association did not "
			     "negotiate PR-SCTP (net.sctp.prsctp_enable on the server?)",
			     c->cfg->schedule_path);
			return -1;
		}
	}
	return 0;
}

static void on_comm_up(struct client *c, sctp_assoc_t assoc)
{
	struct sockaddr *packed = NULL;
	struct addr_list peers;
	struct sctp_status st;
	int64_t t = now_ns();
	int n;

	c->assoc = assoc;
	if (sockopts_write_params(c->fd, assoc, c->rec, t) != 0) {
		fail(c);
		return;
	}
	dar_write_params(c->fd, assoc, c->rec, t);
	n = sctp_getpaddrs(c->fd, assoc, &packed);
	if (n < 0) {
		diag_errno(errno, "sctp_getpaddrs");
		fail(c);
		return;
	}
	/* libsctp allocates even for zero addresses; any n >= 0 owns memory. */
	addr_unpack(packed, n, &peers);
	sctp_freepaddrs(packed);
	for (size_t i = 0; i < peers.n; i++)
		records_peer(c->rec, t, &peers.a[i]);

	if (sockopts_status(c->fd, assoc, &st) != 0) {
		diag_errno(errno, "getsockopt(SCTP_STATUS)");
		fail(c);
		return;
	}
	c->streams = st.sstat_outstrms;
	if (c->streams == 0) {
		diag("association came up with no outbound streams");
		fail(c);
		return;
	}
	if (c->sched != NULL && check_schedule(c) != 0) {
		fail(c);
		return;
	}
	if (c->sched == NULL && c->cfg->send_streams > c->streams) {
		diag("--send-streams %u but the association has %u outbound streams",
		     (unsigned)c->cfg->send_streams, (unsigned)c->streams);
		fail(c);
		return;
	}
	if (c->cfg->send_streams > 0)
		c->streams = c->cfg->send_streams;
	c->phase = PHASE_WAITING;
	sampler_start(&c->sampler, now_ns());
	records_flush(c->rec);
	reply("ready\n");
}

static void begin_drain(struct client *c, int64_t now)
{
	c->phase = PHASE_DRAINING;
	c->blocked = false;
	c->dry = false;
	c->drain_deadline = now + c->cfg->drain_timeout_ms * NS_PER_MS;
	c->next_drain_check = INT64_MAX;
	/* SCTP_STATUS alone cannot prove "all acknowledged": sstat_unackdata
	 * counts only chunks that already have a TSN (not those still queued
	 * behind cwnd/rwnd), and on Linux sstat_penddata describes the
	 * receive side.  The sender-dry event is the kernel's own "nothing
	 * queued, nothing in flight, nothing to retransmit"; the status check
	 * is kept on top of it as the documented condition. */
	if (sockopts_want_sender_dry(c->fd, c->assoc) != 0)
		fail(c);
}

static void drain_step(struct client *c, int64_t now)
{
	if (c->dry && now >= c->next_drain_check) {
		struct sctp_status st;

		if (sockopts_status(c->fd, c->assoc, &st) != 0) {
			diag_errno(errno, "getsockopt(SCTP_STATUS)");
			fail(c);
			return;
		}
		if (st.sstat_unackdata == 0 && st.sstat_penddata == 0) {
			records_event(c->rec, now_ns(), "drain", "ok");
			c->outcome = FINISHED;
			return;
		}
		c->next_drain_check = now + DRAIN_CHECK_NS;
	}
	if (now >= c->drain_deadline) {
		diag("drain timed out after %" PRId64 " ms; closing anyway",
		     c->cfg->drain_timeout_ms);
		records_event(c->rec, now_ns(), "drain", "timeout");
		c->outcome = FINISHED;
	}
}

enum send_result { SENT, WOULD_BLOCK, SEND_FAILED, PAST_END };

/* gen_limit: a generation time at or after it is not sent (PAST_END);
 * INT64_MAX for scheduled arrivals, whose backlog is always sent.
 * *now comes in as the latest clock reading, *fresh saying whether no
 * system call came since it; *now gets the last reading (T_SENT, or T_GEN
 * if nothing went) and *fresh stays true only after a successful send. */
static enum send_result send_one(struct client *c, int64_t gen_limit, int64_t *now, bool *fresh)
{
	union {
		struct cmsghdr align;
		unsigned char buf[CMSG_SPACE(sizeof(struct sctp_sndinfo)) +
				  CMSG_SPACE(sizeof(struct sctp_prinfo))];
	} control;
	struct sctp_sndinfo info;
	struct sockaddr_storage to;
	const struct sockaddr_storage *prepared = sampler_send_to(&c->sampler);
	struct iovec iov = { .iov_base = c->payload, .iov_len = c->cfg->size };
	struct msghdr mh;
	struct cmsghdr *cm;
	uint64_t seq = c->sent;
	unsigned stream = (unsigned)(seq % c->streams);
	bool unordered = c->cfg->unordered;
	uint32_t lifetime_ms = 0;
	int64_t t_gen, t_sent;
	ssize_t n;

	if (c->sched != NULL) {
		/* generate() never asks for a message past the file's end. */
		const struct schedule_msg *m = &c->sched->m[seq];

		iov.iov_len = m->size;
		stream = m->stream;
		unordered = m->unordered;
		lifetime_ms = m->lifetime_ms;
	}
	memset(&control, 0, sizeof(control));
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(struct sctp_sndinfo));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_SCTP;
	cm->cmsg_type = SCTP_SNDINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(info));
	memset(&info, 0, sizeof(info));
	info.snd_sid = (uint16_t)stream;
	info.snd_flags = unordered ? SCTP_UNORDERED : 0;
	if (c->scheduling_on) {
		/* Multipath scheduling: this message's path, chosen now, from
		 * the paths as they are now (a retry after EAGAIN chooses
		 * again); SCTP_ADDR_OVER makes Linux send it there
		 * (sctp_sendmsg_to_asoc) rather than on the primary. */
		prepared = sched_runner_choose(&c->scheduler, c->fd, c->assoc, now_ns(), stream,
					       unordered, iov.iov_len);
		*fresh = false; /* the scheduler may have asked the kernel */
	}
	if (prepared != NULL) {
		/* The signal policy's prepare, or the scheduler's choice: this message's first transmission
		 * goes to the target path while the primary stays (on a
		 * one-to-one socket the address alone picks the path;
		 * SCTP_ADDR_OVER says so for any socket style). */
		to = *prepared;
		mh.msg_name = &to;
		mh.msg_namelen = addr_len(&to);
		info.snd_flags |= SCTP_ADDR_OVER;
	}
	/* Comes back in SCTP_SEND_FAILED_EVENT, naming the lost message. */
	info.snd_context = (uint32_t)seq;
	memcpy(CMSG_DATA(cm), &info, sizeof(info));
	if (lifetime_ms > 0) {
		/* PR-SCTP timed reliability (RFC 3758, RFC 6458 5.3.7): the
		 * kernel abandons the message lifetime_ms after this send. */
		struct sctp_prinfo pr;

		mh.msg_controllen = sizeof(control.buf);
		cm = CMSG_NXTHDR(&mh, cm);
		cm->cmsg_level = IPPROTO_SCTP;
		cm->cmsg_type = SCTP_PRINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pr));
		memset(&pr, 0, sizeof(pr));
		pr.pr_policy = SCTP_PR_SCTP_TTL;
		pr.pr_value = lifetime_ms;
		memcpy(CMSG_DATA(cm), &pr, sizeof(pr));
	}

	put_be64(c->payload, seq);
	for (;;) {
		/* Taken immediately before the send (and again on a retry):
		 * the one-way time must not include our own scheduling lag.
		 * A reading with no system call since is that time already:
		 * the guest's clock does not move while a process computes on
		 * virtual time, and on real time only by the few instructions
		 * in between, while a reading is a trapped call under UML. */
		t_gen = *fresh ? *now : now_ns();
		*now = t_gen;
		*fresh = false;
		if (t_gen >= gen_limit)
			return PAST_END;
		put_be64(c->payload + 8, (uint64_t)t_gen);
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return WOULD_BLOCK;
		diag_errno(errno, "sendmsg(seq %" PRIu64 ")", seq);
		return SEND_FAILED;
	}
	t_sent = now_ns();
	*now = t_sent;
	*fresh = true;
	if (c->scheduling_on)
		sched_runner_sent(&c->scheduler, c->rec, seq, stream, unordered, iov.iov_len);
	/* next_due is still message seq's slot: generate() advances it after. */
	records_tx(c->rec, t_gen, seq, stream, iov.iov_len, t_sent,
		   c->saturate ? RECORDS_NO_TIME : c->next_due);
	return SENT;
}

/* Sends what is due.  `now` is a fresh clock reading; returns the latest
 * one, *fresh saying whether it still is (no system call since).  Each
 * send reads the clock anyway, so the loop reuses those readings: under
 * UML every clock_gettime is a trapped system call (~20 us), a large part
 * of the cost of a message. */
static int64_t generate(struct client *c, int64_t now, bool *fresh)
{
	int64_t gen_limit = c->saturate ? c->gen_end : INT64_MAX;

	for (int burst = 0; burst < SEND_BURST_MAX; burst++) {
		if (c->phase != PHASE_SENDING)
			break;
		/* Saturate ends by the clock, even while the buffer is full:
		 * no message is queued up for later. */
		if (c->saturate && now >= c->gen_end) {
			begin_drain(c, now);
			*fresh = false;
			break;
		}
		if (c->blocked || now < c->next_due)
			break;
		switch (send_one(c, gen_limit, &now, fresh)) {
		case WOULD_BLOCK:
			c->blocked = true;
			return now;
		case SEND_FAILED:
			fail(c);
			return now;
		case PAST_END:
			begin_drain(c, now);
			return now;
		case SENT:
			break;
		}
		c->sent++;
		c->next_due = arrival_next(&c->arrival);
		if (c->next_due >= c->gen_end) {
			begin_drain(c, now);
			*fresh = false;
		}
	}
	return now;
}

/* Failure is reported once; later reads only collect records. */
static void fail_because(struct client *c, const char *why, unsigned error)
{
	if (c->outcome != RUNNING)
		return;
	diag("%s (error %u)", why, error);
	fail(c);
}

/* Reads everything queued.  After the association is lost the loop keeps
 * going: the kernel queues a SCTP_SEND_FAILED_EVENT per undelivered message
 * right behind COMM_LOST, and those `sendfail` records say which messages
 * were lost. */
static void read_socket(struct client *c)
{
	for (;;) {
		struct notify_info info;

		switch (rxmsg_read(c->fd, &c->rx)) {
		case RXMSG_AGAIN:
			return;
		case RXMSG_EOF:
			fail_because(c, "association ended by the peer", 0);
			return;
		case RXMSG_ERROR:
			if (c->outcome == RUNNING) {
				diag_errno(errno, "recvmsg");
				fail(c);
			}
			return;
		case RXMSG_COMPLETE:
			break;
		}
		if (!c->rx.notification)
			continue; /* the server sends no data; nothing to log */
		notify_handle(c->rx.head, c->rx.head_len, now_ns(), c->rec, &info);
		if (c->outcome != RUNNING)
			continue;
		switch (info.kind) {
		case NOTIFY_COMM_UP:
			if (c->phase == PHASE_CONNECTING)
				on_comm_up(c, info.assoc_id);
			break;
		case NOTIFY_ASSOC_LOST:
			fail_because(c, c->phase == PHASE_CONNECTING ? "association setup failed"
								     : "association lost",
				     info.error);
			break;
		case NOTIFY_SHUTDOWN_COMP:
			fail_because(c, "association shut down by the peer", 0);
			break;
		case NOTIFY_RESTART:
		case NOTIFY_PEERS_CHANGED:
			sampler_peers_changed(&c->sampler);
			break;
		case NOTIFY_SENDER_DRY:
			if (c->phase == PHASE_DRAINING && !c->dry) {
				c->dry = true;
				c->next_drain_check = 0;
			}
			break;
		default:
			break;
		}
	}
}

static void on_start(struct client *c, int64_t t0)
{
	char text[24];
	int64_t now = now_ns();

	if (c->phase != PHASE_WAITING) {
		reply("err start already started\n");
		return;
	}
	if (t0 > START_NS_MAX) {
		reply("err start time out of range\n");
		return;
	}
	snprintf(text, sizeof(text), "%" PRId64, t0);
	records_event(c->rec, now, "start", text);
	arrival_init(&c->arrival, c->cfg->arrival, c->cfg->rate, c->cfg->seed, c->sched, t0);
	sampler_policy_start(&c->sampler, t0);
	c->next_due = arrival_next(&c->arrival);
	c->gen_end = t0 + c->cfg->duration_ms * NS_PER_MS;
	c->phase = PHASE_SENDING;
	if (c->next_due >= c->gen_end)
		begin_drain(c, now);
}

static void on_primary(struct client *c, const char *text)
{
	struct sockaddr_storage addr;
	char a[ADDR_STR_MAX];
	int64_t t;

	if (addr_parse(text, c->cfg->port, &addr) != 0) {
		reply("err primary %s\n", strerror(EINVAL));
		return;
	}
	if (sockopts_set_primary(c->fd, c->assoc, &addr) != 0) {
		reply("err primary %s\n", strerror(errno));
		return;
	}
	t = now_ns();
	records_event(c->rec, t, "primary", addr_format(&addr, a));
	reply("ok primary %" PRId64 "\n", t);
}

static void on_stop(struct client *c)
{
	int64_t now = now_ns();

	if (c->phase != PHASE_WAITING && c->phase != PHASE_SENDING)
		return; /* already draining: nothing left to stop */
	records_event(c->rec, now, "stop", NULL);
	begin_drain(c, now);
}

static void read_stdin(struct client *c)
{
	struct control_cmd cmd;

	if (control_fill(&c->ctl) != 0) {
		diag_errno(errno, "read(stdin)");
		c->ctl.eof = true;
	}
	while (c->outcome == RUNNING && control_next(&c->ctl, &cmd)) {
		switch (cmd.kind) {
		case CONTROL_START:
			on_start(c, cmd.start_ns);
			break;
		case CONTROL_PRIMARY:
			on_primary(c, cmd.arg);
			break;
		case CONTROL_STOP:
			on_stop(c);
			break;
		case CONTROL_ADDADDR:
		case CONTROL_DELADDR:
		case CONTROL_PEERPRIMARY:
			dar_command(c->fd, c->assoc, cmd.kind, cmd.arg, c->rec);
			break;
		case CONTROL_INVALID:
			reply("err %s %s\n", cmd.word[0] ? cmd.word : "command", cmd.why);
			break;
		}
	}
	if (c->ctl.eof) {
		c->stdin_open = false;
		if (c->phase == PHASE_WAITING && c->outcome == RUNNING) {
			diag("stdin closed before start");
			fail(c);
		}
	}
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t next_deadline(const struct client *c)
{
	int64_t d = records_flush_deadline(c->rec);

	d = min64(d, sampler_deadline(&c->sampler));
	if (c->phase == PHASE_SENDING && !c->blocked)
		d = min64(d, c->next_due);
	if (c->phase == PHASE_SENDING && c->saturate)
		d = min64(d, c->gen_end); /* also while waiting for POLLOUT */
	if (c->phase == PHASE_DRAINING) {
		d = min64(d, c->drain_deadline);
		if (c->dry)
			d = min64(d, c->next_drain_check);
	}
	return d;
}

static int connect_peers(struct client *c)
{
	_Alignas(struct sockaddr_in6) unsigned char packed[ADDR_PACK_MAX];

	addr_pack(&c->cfg->peer, packed, sizeof(packed));
	/* Non-blocking: the loop stays responsive to signals, and COMM_UP or
	 * CANT_STR_ASSOC arrives as a notification like everything else.  The
	 * first address is where INIT goes and becomes the primary path. */
	if (sctp_connectx(c->fd, (struct sockaddr *)packed, (int)c->cfg->peer.n, NULL) != 0 &&
	    errno != EINPROGRESS) {
		diag_errno(errno, "sctp_connectx(%s port %u)", c->cfg->peer_text,
			   (unsigned)c->cfg->port);
		return -1;
	}
	return 0;
}

static void loop(struct client *c)
{
	while (c->outcome == RUNNING) {
		struct pollfd pfd[2];
		nfds_t n = 1;
		int64_t now, deadline;
		bool fresh;
		int rc;

		if (waiting_terminated()) {
			diag("terminated by signal");
			fail(c);
			break;
		}
		/* Sending first: a due message should not wait behind a
		 * sampling round.  One clock reading serves the whole turn
		 * (see generate), and the wait after it too unless a system
		 * call came since: an error return, for one, moves UML's
		 * virtual clock by 1 us. */
		now = now_ns();
		fresh = true;
		if (c->phase == PHASE_SENDING)
			now = generate(c, now, &fresh);
		if (c->phase == PHASE_DRAINING && c->outcome == RUNNING) {
			drain_step(c, now);
			fresh = false;
		}
		if (c->phase != PHASE_CONNECTING && c->outcome == RUNNING &&
		    sampler_poll(&c->sampler, c->fd, c->assoc, c->rec, now))
			fresh = false;
		if (records_flush_if_due(c->rec, now))
			fresh = false;
		if (records_failed(c->rec)) {
			diag_errno(records_error(c->rec), "writing %s", c->cfg->records_path);
			fail(c);
		}
		if (c->outcome != RUNNING)
			break;

		pfd[0].fd = c->fd;
		pfd[0].events = (short)(POLLIN | (c->blocked ? POLLOUT : 0));
		pfd[0].revents = 0;
		if (c->stdin_open && c->phase != PHASE_CONNECTING) {
			pfd[1].fd = STDIN_FILENO;
			pfd[1].events = POLLIN;
			pfd[1].revents = 0;
			n = 2;
		}
		deadline = next_deadline(c);
		rc = waiting_poll_from(pfd, n, deadline,
				       fresh || deadline == INT64_MAX ? now : now_ns());
		if (rc < 0) {
			diag_errno(errno, "ppoll");
			fail(c);
			break;
		}
		if (pfd[0].revents & (POLLIN | POLLERR | POLLHUP))
			read_socket(c);
		if ((pfd[0].revents & POLLOUT) && c->outcome == RUNNING)
			c->blocked = false;
		if (n == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    c->outcome == RUNNING)
			read_stdin(c);
	}
}

/* How many messages PR-SCTP gave up on, as the kernel counts them. */
static void record_abandoned(struct client *c)
{
	uint64_t unsent, sent;
	char text[48];

	if (sockopts_pr_abandoned(c->fd, c->assoc, &unsent, &sent) != 0) {
		diag_errno(errno, "getsockopt(SCTP_PR_ASSOC_STATUS)");
		return;
	}
	snprintf(text, sizeof(text), "%" PRIu64 "\t%" PRIu64, unsent, sent);
	records_event(c->rec, now_ns(), "abandoned", text);
}

int client_run(const struct config *cfg, struct records *rec)
{
	struct client c;
	uint64_t payload_size;

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.rec = rec;
	c.fd = -1;
	c.phase = PHASE_CONNECTING;
	c.outcome = RUNNING;
	c.stdin_open = true;
	c.saturate = cfg->arrival == ARRIVAL_SATURATE;
	c.sched = cfg->arrival == ARRIVAL_SCHEDULE ? &cfg->schedule : NULL;
	sampler_init(&c.sampler, cfg->sample_interval_ms);
	sampler_use_policy(&c.sampler, &cfg->policy,
			   cfg->policy.kind == POLICY_SIGNAL ? &cfg->signal : NULL);
	control_init(&c.ctl, STDIN_FILENO);
	rxmsg_init(&c.rx);
	if (cfg->scheduler.kind != SCHED_PRIMARY) {
		if (sched_runner_init(&c.scheduler, &cfg->scheduler, &cfg->peer) != 0) {
			diag_errno(errno, "allocating the scheduler's stream table");
			c.outcome = FAILED;
		}
		c.scheduling_on = true;
	}

	/* One buffer for every message: a schedule's largest; never below
	 * the header (an empty schedule has no size at all). */
	payload_size = c.sched != NULL ? c.sched->max_size : cfg->size;
	if (payload_size < PAYLOAD_HEADER_BYTES)
		payload_size = PAYLOAD_HEADER_BYTES;
	c.payload = calloc(1, payload_size);
	if (c.payload == NULL) {
		diag_errno(errno, "allocating a %" PRIu64 "-byte payload", payload_size);
		c.outcome = FAILED;
	}
	if (c.outcome == RUNNING) {
		c.fd = endpoint_open(cfg, 0);
		if (c.fd < 0 || connect_peers(&c) != 0)
			c.outcome = FAILED;
	}
	if (c.outcome == RUNNING)
		loop(&c);

	if (c.outcome == FINISHED && c.sched != NULL && c.sched->any_lifetime)
		record_abandoned(&c);
	if (c.outcome == FINISHED)
		sampler_round(&c.sampler, c.fd, c.assoc, rec); /* the paths as the run left them */
	sampler_close(&c.sampler);
	/* close() on a one-to-one socket starts the graceful SHUTDOWN; the
	 * kernel completes it after we exit. */
	if (c.fd >= 0)
		close(c.fd);
	records_end(rec, now_ns(), c.sent);
	free(c.payload);
	if (c.scheduling_on)
		sched_runner_free(&c.scheduler);
	records_flush(rec);
	if (c.outcome != FINISHED)
		return 1;
	reply("done\n");
	return 0;
}
