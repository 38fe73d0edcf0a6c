/* sctpbench-agent-usrsctp: the agent's second stack.  The same command
 * line, control protocol and records as sctpbench-agent (RECORDS.md), on
 * usrsctp (FreeBSD's SCTP in user space) over UDP encapsulation, plus the
 * stack's own options (stack.h).  Runs the message workload. */
#include "common/cli.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/diag.h"
#include "common/meta_workload.h"
#include "common/records.h"
#include "agent.h"
#include "sched.h"
#include "stack.h"
#include "common/waiting.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef AGENT_REVISION
#define AGENT_REVISION "unknown"
#endif

static void write_meta(const struct config *cfg, const struct ustack_params *p, struct records *r)
{
	records_meta(r, "role", cfg->role == ROLE_CLIENT ? "client" : "server");
	records_meta(r, "revision", AGENT_REVISION);
	records_meta(r, "stack", "usrsctp");
	records_meta_i64(r, "pid", (int64_t)getpid());
	meta_workload(cfg, r);
	if (cfg->role == ROLE_CLIENT && cfg->scheduler_given)
		records_meta(r, "scheduler", cfg->scheduler.text);
	/* The client samples its paths (sampler.h); the server does not. */
	records_meta_i64(r, "sample_interval_ms", cfg->role == ROLE_CLIENT ? cfg->sample_interval_ms : 0);
	records_meta_i64(r, "udp_port", p->udp_port);
	records_meta_i64(r, "remote_udp_port", p->remote_udp_port);
	records_meta_opt(r, "rto_min_ms", p->has_rto_min, p->rto_min_ms);
	records_meta_opt(r, "rto_max_ms", p->has_rto_max, p->rto_max_ms);
	records_meta_opt(r, "rto_initial_ms", p->has_rto_initial, p->rto_initial_ms);
	records_meta_opt(r, "path_max_retrans", p->has_path_max_retrans, p->path_max_retrans);
	records_meta_opt(r, "hb_interval_ms", p->has_hb_interval, p->hb_interval_ms);
	records_meta_opt(r, "max_burst", p->has_max_burst, p->max_burst);
	records_meta_opt(r, "cmt", p->has_cmt, p->cmt);
	records_meta_opt(r, "stream_scheduler", p->has_ss, p->ss);
	records_meta_opt(r, "nodelay", p->has_nodelay, p->nodelay);
	records_meta_opt(r, "sack_delay_ms", p->has_sack_delay, p->sack_delay_ms);
	records_meta_opt(r, "sack_freq", p->has_sack_freq, p->sack_freq);
	records_meta_opt(r, "streams", p->has_streams, p->streams);
}

/* The shared command line's socket options, for the usrsctp socket. */
static void copy_common(const struct sock_opts *o, struct ustack_params *p)
{
	p->has_nodelay = o->has_nodelay;
	p->nodelay = (uint32_t)o->nodelay;
	p->has_sack_delay = o->has_sack_delay;
	p->sack_delay_ms = o->sack_delay_ms;
	p->has_sack_freq = o->has_sack_freq;
	p->sack_freq = o->sack_freq;
	p->has_streams = o->has_streams;
	p->streams = o->streams;
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct ustack_params p;
	struct records rec;
	int rc;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("sctpbench-agent-usrsctp %s\n", AGENT_REVISION);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		cli_usage(stdout);
		ustack_usage();
		return 0;
	}
	rc = ustack_params_take(&argc, argv, &p);
	if (rc != 0)
		return rc;
	rc = cli_parse(argc, argv, &cfg);
	if (rc != 0)
		return rc;
	copy_common(&cfg.opts, &p);
	if (cfg.role == ROLE_CLIENT && usched_prepare(&cfg.scheduler, &p) != 0) {
		cli_free(&cfg);
		return 2;
	}

	if (waiting_init() != 0) {
		diag_errno(errno, "installing signal handling");
		cli_free(&cfg);
		return 1;
	}
	if (records_open(&rec, cfg.records_path) != 0) {
		diag_errno(errno, "opening records file %s", cfg.records_path);
		cli_free(&cfg);
		return 1;
	}
	write_meta(&cfg, &p, &rec);
	if (ustack_start(&p) != 0) {
		records_end(&rec, now_ns(), 0);
		rc = 1;
	} else {
		rc = cfg.role == ROLE_CLIENT ? uagent_client_run(&cfg, &p, &rec)
				     : uagent_server_run(&cfg, &p, &rec);
	}
	if (records_close(&rec) != 0) {
		diag_errno(errno, "writing records file %s", cfg.records_path);
		rc = 1;
	}
	cli_free(&cfg);
	return rc;
}
