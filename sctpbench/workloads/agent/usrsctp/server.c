/* sctpbench-agent-usrsctp's server: accepts one association and records
 * every message it receives (`rx`), as the kernel agent's server does. */
#include "agent.h"

#include "common/clock.h"
#include "common/diag.h"
#include "common/waiting.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define RX_BUF_BYTES (1048576 + 64)

static uint64_t get_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

int uagent_family(const struct config *cfg)
{
	return addr_any_ipv6(&cfg->local) || addr_any_ipv6(&cfg->peer) ? AF_INET6 : AF_INET;
}

int uagent_comm_up(struct ustack_sock *s, const struct ustack_rx *rx, struct records *rec)
{
	int64_t t = now_ns();

	records_assoc(rec, t, rx->state, rx->error, rx->outstreams, rx->instreams);
	if (ustack_write_params(s, rec, t) != 0 || ustack_write_peers(s, rec, t) != 0)
		return -1;
	records_flush(rec);
	return 0;
}

void uagent_addr(const struct ustack_rx *rx, struct records *rec)
{
	records_addr(rec, now_ns(), &rx->addr, rx->state, (int)rx->error);
}

enum outcome { RUNNING, FINISHED, FAILED };

struct server {
	struct records *rec;
	struct ustack_sock *conn;
	unsigned char *buf;
	uint64_t received;
	enum outcome outcome;
};

static void on_data(struct server *s, const struct ustack_rx *rx, int64_t t_rx)
{
	bool have_header = rx->len >= PAYLOAD_HEADER_BYTES;
	uint64_t seq = have_header ? get_be64(s->buf) : 0;
	int64_t t_gen = have_header ? (int64_t)get_be64(s->buf + 8) : 0;

	records_rx(s->rec, t_rx, have_header, seq, rx->have_stream, rx->stream, rx->len,
		   t_gen, &rx->from);
	s->received++;
}

static void on_event(struct server *s, const struct ustack_rx *rx)
{
	switch (rx->ev) {
	case USTACK_EV_COMM_UP:
		if (uagent_comm_up(s->conn, rx, s->rec) != 0)
			s->outcome = FAILED;
		break;
	case USTACK_EV_ADDR:
		uagent_addr(rx, s->rec);
		break;
	case USTACK_EV_PEER_SHUTDOWN:
		records_shutdown(s->rec, now_ns());
		s->outcome = FINISHED;
		break;
	case USTACK_EV_ENDED:
		records_assoc(s->rec, now_ns(), rx->state, rx->error, 0, 0);
		s->outcome = FINISHED;
		if (rx->state[0] != 'S') { /* COMM_LOST, CANT_STR_ASSOC */
			diag("association ended: %s", rx->state);
			s->outcome = FAILED;
		}
		break;
	default:
		break;
	}
}

static void read_all(struct server *s)
{
	struct ustack_rx rx;
	int rc;

	ustack_wake_clear(s->conn);
	while (s->outcome == RUNNING &&
	       (rc = ustack_recv(s->conn, s->buf, RX_BUF_BYTES, &rx)) != 0) {
		if (rc < 0) {
			if (errno == 0) {
				s->outcome = FINISHED; /* EOF: the peer closed */
			} else {
				diag_errno(errno, "usrsctp_recvv");
				s->outcome = FAILED;
			}
			break;
		}
		if (rx.is_event)
			on_event(s, &rx);
		else
			on_data(s, &rx, now_ns());
	}
}

/* Waits on fd until it is readable or a termination signal. */
static int wait_fd(int fd, struct records *rec)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
	int64_t now = now_ns();
	int64_t deadline = records_flush_deadline(rec);

	records_flush_if_due(rec, now);
	if (waiting_poll(&pfd, 1, deadline) < 0) {
		diag_errno(errno, "ppoll");
		return -1;
	}
	return waiting_terminated() ? -1 : 0;
}

int uagent_server_run(const struct config *cfg, const struct ustack_params *p,
		      struct records *rec)
{
	struct server s = { .rec = rec, .outcome = RUNNING };
	struct ustack_sock *lsn = ustack_open(p, uagent_family(cfg), &cfg->local, cfg->port);

	s.buf = malloc(RX_BUF_BYTES);
	if (lsn == NULL || s.buf == NULL || ustack_listen(lsn) != 0) {
		s.outcome = FAILED;
	} else {
		printf("listening\n");
		fflush(stdout);
	}
	while (s.outcome == RUNNING && s.conn == NULL) {
		ustack_wake_clear(lsn);
		s.conn = ustack_accept(lsn);
		if (s.conn == NULL && errno != EWOULDBLOCK && errno != EAGAIN) {
			diag_errno(errno, "usrsctp_accept");
			s.outcome = FAILED;
		} else if (s.conn == NULL && wait_fd(ustack_wake_fd(lsn), rec) != 0) {
			s.outcome = FAILED;
		}
	}
	while (s.outcome == RUNNING) {
		read_all(&s);
		if (s.outcome == RUNNING && wait_fd(ustack_wake_fd(s.conn), rec) != 0) {
			diag("terminated by signal");
			s.outcome = FAILED;
		}
		if (records_failed(rec)) {
			diag_errno(records_error(rec), "writing %s", cfg->records_path);
			s.outcome = FAILED;
		}
	}
	records_end(rec, now_ns(), s.received);
	records_flush(rec);
	ustack_close(s.conn);
	ustack_close(lsn);
	free(s.buf);
	return s.outcome == FINISHED ? 0 : 1;
}
