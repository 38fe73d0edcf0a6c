#include "server.h"

#include "common/clock.h"
#include "dar.h"
#include "common/diag.h"
#include "endpoint.h"
#include "notify.h"
#include "rxmsg.h"
#include "sampler.h"
#include "sctpapi.h"
#include "sockopts.h"
#include "common/waiting.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum outcome {
	RUNNING,
	FINISHED, /* graceful end of the association: exit 0 */
	FAILED,   /* exit 1 */
};

struct server {
	const struct config *cfg;
	struct records *rec;
	struct sampler sampler;
	struct rxmsg rx;
	int fd;
	sctp_assoc_t assoc;
	bool up;
	enum outcome outcome;
	uint64_t received;
};

static uint64_t get_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static void on_comm_up(struct server *s, sctp_assoc_t assoc)
{
	struct sockaddr *packed = NULL;
	struct addr_list peers;
	int64_t t = now_ns();
	int n;

	s->assoc = assoc;
	s->up = true;
	if (sockopts_write_params(s->fd, assoc, s->rec, t) != 0) {
		s->outcome = FAILED;
		return;
	}
	dar_write_params(s->fd, assoc, s->rec, t);
	n = sctp_getpaddrs(s->fd, assoc, &packed);
	if (n < 0) {
		diag_errno(errno, "sctp_getpaddrs");
		s->outcome = FAILED;
		return;
	}
	/* libsctp allocates even for zero addresses; any n >= 0 owns memory. */
	addr_unpack(packed, n, &peers);
	sctp_freepaddrs(packed);
	for (size_t i = 0; i < peers.n; i++)
		records_peer(s->rec, t, &peers.a[i]);
	sampler_start(&s->sampler, now_ns());
}

static void on_data(struct server *s, int64_t t_rx)
{
	const struct rxmsg *m = &s->rx;
	bool have_header = m->head_len >= 16;
	uint64_t seq = have_header ? get_be64(m->head) : 0;
	/* Generation times are CLOCK_MONOTONIC values the client wrote as
	 * unsigned; they fit int64 for any realistic uptime. */
	int64_t t_gen = have_header ? (int64_t)(get_be64(m->head + 8) & (uint64_t)INT64_MAX) : 0;
	struct sockaddr_storage none;

	memset(&none, 0, sizeof(none));
	s->received++;
	records_rx(s->rec, t_rx, have_header, seq, m->has_rcvinfo, m->rcvinfo.rcv_sid,
		   m->total, t_gen, m->has_from ? &m->from : &none);
}

static void on_notification(struct server *s, int64_t t)
{
	struct notify_info info;

	notify_handle(s->rx.head, s->rx.head_len, t, s->rec, &info);
	switch (info.kind) {
	case NOTIFY_COMM_UP:
		if (!s->up)
			on_comm_up(s, info.assoc_id);
		break;
	case NOTIFY_ASSOC_LOST:
		diag("association lost (error %u)", info.error);
		s->outcome = FAILED;
		break;
	case NOTIFY_SHUTDOWN_COMP:
		s->outcome = FINISHED;
		break;
	case NOTIFY_RESTART:
	case NOTIFY_PEERS_CHANGED:
		sampler_peers_changed(&s->sampler);
		break;
	default:
		break;
	}
}

/* Reads everything queued, even after the association's end has been
 * seen, so no message that made it into the queue goes unlogged. */
static void read_socket(struct server *s)
{
	for (;;) {
		enum rxmsg_status st = rxmsg_read(s->fd, &s->rx);
		int64_t t;

		switch (st) {
		case RXMSG_AGAIN:
			return;
		case RXMSG_EOF:
			if (s->outcome == RUNNING)
				s->outcome = FINISHED;
			return;
		case RXMSG_ERROR:
			if (s->outcome == RUNNING) {
				diag_errno(errno, "recvmsg");
				s->outcome = FAILED;
			}
			return;
		case RXMSG_COMPLETE:
			/* Only here: under UML a clock read is a trapped system
			 * call, and the final EAGAIN of every wakeup needs none. */
			t = now_ns();
			if (s->rx.notification)
				on_notification(s, t);
			else
				on_data(s, t);
			break;
		}
	}
}

static int accept_one(struct server *s, int lfd)
{
	for (;;) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN, .revents = 0 };
		int fd;

		if (waiting_terminated()) {
			diag("terminated by signal");
			return -1;
		}
		records_flush_if_due(s->rec, now_ns());
		if (waiting_poll(&pfd, 1, records_flush_deadline(s->rec)) < 0) {
			diag_errno(errno, "ppoll");
			return -1;
		}
		if (!(pfd.revents & POLLIN))
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED) {
			diag_errno(errno, "accept");
			return -1;
		}
	}
}

static void loop(struct server *s)
{
	while (s->outcome == RUNNING) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN, .revents = 0 };
		int64_t deadline, now;

		if (waiting_terminated()) {
			diag("terminated by signal");
			s->outcome = FAILED;
			break;
		}
		now = now_ns();
		sampler_poll(&s->sampler, s->fd, s->assoc, s->rec, now);
		records_flush_if_due(s->rec, now);
		if (records_failed(s->rec)) {
			diag_errno(records_error(s->rec), "writing %s", s->cfg->records_path);
			s->outcome = FAILED;
			break;
		}
		deadline = records_flush_deadline(s->rec);
		if (sampler_deadline(&s->sampler) < deadline)
			deadline = sampler_deadline(&s->sampler);
		/* From the turn's one reading: a sampling round is no reason to
		 * read the clock again (a trapped system call under UML). */
		if (waiting_poll_from(&pfd, 1, deadline, now) < 0) {
			diag_errno(errno, "ppoll");
			s->outcome = FAILED;
			break;
		}
		if (pfd.revents & (POLLIN | POLLERR | POLLHUP))
			read_socket(s);
	}
}

int server_run(const struct config *cfg, struct records *rec)
{
	struct server s;
	int lfd;

	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	s.rec = rec;
	s.fd = -1;
	s.outcome = RUNNING;
	sampler_init(&s.sampler, cfg->sample_interval_ms);
	rxmsg_init(&s.rx);

	lfd = endpoint_open(cfg, cfg->port);
	if (lfd < 0) {
		s.outcome = FAILED;
	} else if (listen(lfd, 1) != 0) {
		/* Linux allocates the cookie HMAC at listen() and reports a
		 * missing crypto module as ENOSYS, which reads like "no SCTP". */
		if (errno == ENOSYS)
			diag("listen: cookie HMAC unavailable (net.sctp.cookie_hmac_alg; "
			     "is the hmac module loaded?)");
		else
			diag_errno(errno, "listen");
		s.outcome = FAILED;
	} else {
		/* The harness starts the client only after this line, so the
		 * client's INIT never races the listen(). */
		records_flush(rec);
		printf("listening\n");
		fflush(stdout);
		s.fd = accept_one(&s, lfd);
		if (s.fd < 0)
			s.outcome = FAILED;
	}
	/* One association per run: further INITs are refused, not queued. */
	if (lfd >= 0)
		close(lfd);

	if (s.outcome == RUNNING)
		loop(&s);
	sampler_close(&s.sampler);
	if (s.fd >= 0)
		close(s.fd);
	records_end(rec, now_ns(), s.received);
	return s.outcome == FINISHED ? 0 : 1;
}
