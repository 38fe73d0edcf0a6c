/* sctpbench-agent-usrsctp's client: connects, says `ready` at COMM_UP,
 * sends the message workload from `start T` on (periodic, Poisson,
 * saturate or a schedule file without lifetimes, as the kernel agent), drains until everything is
 * acknowledged, and closes gracefully.  The path commands of the kernel
 * agent (primary, addaddr, ...) are answered `err WORD unsupported`. */
#include "agent.h"

#include "common/clock.h"
#include "common/control.h"
#include "common/diag.h"
#include "sampler.h"
#include "sched.h"
#include "common/waiting.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Lets usrsctp's threads finish the SHUTDOWN after close. */
#define SHUTDOWN_GRACE_MS 3000

enum phase { CONNECTING, WAITING, SENDING, DRAINING };
enum outcome { RUNNING, FINISHED, FAILED };

struct client {
	const struct config *cfg;
	struct records *rec;
	struct ustack_sock *s;
	struct control ctl;
	struct arrival arrival;
	const struct schedule *sched; /* --arrival schedule, else NULL */
	unsigned char *payload;
	enum phase phase;
	enum outcome outcome;
	unsigned streams;
	uint64_t sent;
	int64_t next_due, gen_end, drain_end;
	bool blocked;
	struct usampler sampler;       /* `path` records */
	struct sched_runner scheduler; /* with scheduling_on */
	bool scheduling_on;            /* --scheduler other than primary */
};

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void reply(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static void begin_drain(struct client *c, int64_t now)
{
	c->phase = DRAINING;
	c->drain_end = now + c->cfg->drain_timeout_ms * NS_PER_MS;
	records_event(c->rec, now, "drain", NULL);
	if (ustack_want_dry(c->s) != 0)
		c->outcome = FAILED;
}

/* Sends every message that is due; stops at a full send buffer. */
static void generate(struct client *c)
{
	bool saturate = c->cfg->arrival == ARRIVAL_SATURATE;

	while (c->phase == SENDING && !c->blocked) {
		int64_t t_gen = now_ns(), t_sent;
		unsigned stream = (unsigned)(c->sent % c->streams);
		const struct sockaddr_storage *to = NULL;
		uint64_t size = c->cfg->size;
		bool unordered = c->cfg->unordered;
		ssize_t n;

		if ((saturate ? t_gen : c->next_due) >= c->gen_end) {
			begin_drain(c, t_gen);
			return;
		}
		if (c->next_due > t_gen)
			return;
		if (c->sched != NULL) {
			/* arrival_next() ends the run after the file's last message. */
			const struct schedule_msg *m = &c->sched->m[c->sent];

			size = m->size;
			stream = m->stream;
			unordered = m->unordered;
		}
		put_be64(c->payload, c->sent);
		put_be64(c->payload + 8, (uint64_t)t_gen);
		if (c->scheduling_on) /* chosen anew on a retry after EWOULDBLOCK */
			to = usched_choose(&c->scheduler, c->s, t_gen, stream, unordered, size);
		n = ustack_send(c->s, c->payload, size, stream, unordered, to);
		if (n < 0) {
			if (errno == EWOULDBLOCK || errno == EAGAIN) {
				c->blocked = true;
				return;
			}
			diag_errno(errno, "usrsctp_sendv(seq %" PRIu64 ")", c->sent);
			c->outcome = FAILED;
			return;
		}
		t_sent = now_ns();
		if (c->scheduling_on)
			sched_runner_sent(&c->scheduler, c->rec, c->sent, stream, unordered, size);
		records_tx(c->rec, t_gen, c->sent, stream, size, t_sent,
			   saturate ? RECORDS_NO_TIME : c->next_due);
		c->sent++;
		c->next_due = arrival_next(&c->arrival);
	}
}

static void on_start(struct client *c, int64_t t0)
{
	char text[24];

	if (c->phase != WAITING) {
		reply("err start already started\n");
		return;
	}
	snprintf(text, sizeof(text), "%" PRId64, t0);
	records_event(c->rec, now_ns(), "start", text);
	arrival_init(&c->arrival, c->cfg->arrival, c->cfg->rate, c->cfg->seed, c->sched, t0);
	c->next_due = arrival_next(&c->arrival);
	c->gen_end = t0 + c->cfg->duration_ms * NS_PER_MS;
	c->phase = SENDING;
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
		case CONTROL_STOP:
			if (c->phase == WAITING) {
				c->outcome = FINISHED;
			} else if (c->phase == SENDING) {
				begin_drain(c, now_ns());
			}
			break;
		case CONTROL_INVALID:
			reply("err %s %s\n", cmd.word[0] ? cmd.word : "command", cmd.why);
			break;
		default:
			reply("err %s unsupported on usrsctp\n", cmd.word[0] ? cmd.word : "command");
			break;
		}
	}
	if (c->ctl.eof && c->phase == WAITING && c->outcome == RUNNING) {
		diag("stdin closed before start");
		c->outcome = FAILED;
	}
}

static void on_event(struct client *c, const struct ustack_rx *rx)
{
	switch (rx->ev) {
	case USTACK_EV_COMM_UP:
		c->streams = c->cfg->send_streams != 0 && c->sched == NULL ? c->cfg->send_streams : rx->outstreams;
		if (c->sched != NULL && c->sched->n > 0 && c->sched->max_stream >= rx->outstreams) {
			diag("%s:%zu: stream %u but the association has %u outbound streams",
			     c->cfg->schedule_path, c->sched->max_stream_line, (unsigned)c->sched->max_stream,
			     rx->outstreams);
			c->outcome = FAILED;
			return;
		}
		if (c->streams == 0 || c->streams > rx->outstreams) {
			diag("--send-streams %u: the association has %u", c->streams, rx->outstreams);
			c->outcome = FAILED;
			return;
		}
		if (uagent_comm_up(c->s, rx, c->rec) != 0) {
			c->outcome = FAILED;
			return;
		}
		c->phase = WAITING;
		usampler_start(&c->sampler, now_ns());
		reply("ready\n");
		break;
	case USTACK_EV_ADDR:
		uagent_addr(rx, c->rec);
		break;
	case USTACK_EV_DRY:
		if (c->phase == DRAINING) {
			records_event(c->rec, now_ns(), "drained", NULL);
			c->outcome = FINISHED;
		}
		break;
	case USTACK_EV_ENDED:
	case USTACK_EV_PEER_SHUTDOWN:
		records_assoc(c->rec, now_ns(), rx->state != NULL ? rx->state : "SHUTDOWN",
			      rx->error, 0, 0);
		diag("association ended before the run did");
		c->outcome = FAILED;
		break;
	default:
		break;
	}
}

static void read_socket(struct client *c)
{
	unsigned char buf[512];
	struct ustack_rx rx;
	int rc;

	ustack_wake_clear(c->s);
	while (c->outcome == RUNNING && (rc = ustack_recv(c->s, buf, sizeof(buf), &rx)) != 0) {
		if (rc < 0) {
			diag_errno(errno, "usrsctp_recvv");
			c->outcome = FAILED;
			return;
		}
		if (rx.is_event)
			on_event(c, &rx);
	}
	/* Any wake-up may mean send space: try again. */
	c->blocked = false;
}

static int64_t next_deadline(const struct client *c)
{
	int64_t d = records_flush_deadline(c->rec);

	if (usampler_deadline(&c->sampler) < d)
		d = usampler_deadline(&c->sampler);
	if (c->phase == SENDING && !c->blocked && c->next_due < d)
		d = c->next_due;
	if (c->phase == SENDING && c->gen_end < d)
		d = c->gen_end;
	if (c->phase == DRAINING && c->drain_end < d)
		d = c->drain_end;
	return d;
}

static void loop(struct client *c)
{
	while (c->outcome == RUNNING) {
		struct pollfd pfd[2];
		nfds_t n = 1;
		int64_t now = now_ns();

		if (waiting_terminated()) {
			diag("terminated by signal");
			c->outcome = FAILED;
			break;
		}
		generate(c);
		if (c->phase != CONNECTING)
			usampler_poll(&c->sampler, c->s, c->rec, now);
		if (c->phase == DRAINING && now >= c->drain_end) {
			records_event(c->rec, now, "drain_timeout", NULL);
			c->outcome = FINISHED;
		}
		records_flush_if_due(c->rec, now);
		if (c->outcome != RUNNING)
			break;
		pfd[0] = (struct pollfd){ .fd = ustack_wake_fd(c->s), .events = POLLIN };
		if (c->phase != CONNECTING && !c->ctl.eof) {
			pfd[1] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
			n = 2;
		}
		if (waiting_poll(pfd, n, next_deadline(c)) < 0) {
			diag_errno(errno, "ppoll");
			c->outcome = FAILED;
			break;
		}
		if (pfd[0].revents & POLLIN)
			read_socket(c);
		if (n == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) && c->outcome == RUNNING)
			read_stdin(c);
	}
}

int uagent_client_run(const struct config *cfg, const struct ustack_params *p,
		      struct records *rec)
{
	struct client c;
	uint64_t payload_size;

	(void)p; /* usched_prepare has checked the scheduler against it */
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.rec = rec;
	c.phase = CONNECTING;
	c.outcome = RUNNING;
	control_init(&c.ctl, STDIN_FILENO);
	usampler_init(&c.sampler, cfg->sample_interval_ms);
	c.sched = cfg->arrival == ARRIVAL_SCHEDULE ? &cfg->schedule : NULL;
	payload_size = c.sched != NULL ? c.sched->max_size : cfg->size;
	c.payload = calloc(1, payload_size < PAYLOAD_HEADER_BYTES ? PAYLOAD_HEADER_BYTES : payload_size);
	if (cfg->policy_given) {
		diag("the usrsctp agent runs without --policy");
		c.outcome = FAILED;
	}
	if (c.sched != NULL && c.sched->any_lifetime) {
		/* PR-SCTP is not set up on this stack: a lifetime would be ignored. */
		diag("%s: message lifetimes (PR-SCTP) are not supported on usrsctp", cfg->schedule_path);
		c.outcome = FAILED;
	}
	if (c.outcome == RUNNING && cfg->scheduler.kind != SCHED_PRIMARY) {
		if (sched_runner_init(&c.scheduler, &cfg->scheduler, &cfg->peer) != 0) {
			diag_errno(errno, "allocating the scheduler's stream table");
			c.outcome = FAILED;
		} else {
			c.scheduling_on = true;
		}
	}
	if (c.outcome == RUNNING) {
		c.s = ustack_open(p, uagent_family(cfg), &cfg->local, 0);
		if (c.payload == NULL || c.s == NULL || ustack_connect(c.s, &cfg->peer) != 0)
			c.outcome = FAILED;
	}
	if (c.outcome == RUNNING)
		loop(&c);
	if (c.outcome == FINISHED)
		usampler_round(c.s, rec); /* the paths as the run left them */
	records_end(rec, now_ns(), c.sent);
	records_flush(rec);
	ustack_close(c.s); /* starts the graceful SHUTDOWN */
	free(c.payload);
	if (c.scheduling_on)
		sched_runner_free(&c.scheduler);
	if (c.outcome != FINISHED)
		return 1;
	ustack_finish(SHUTDOWN_GRACE_MS);
	reply("done\n");
	return 0;
}
