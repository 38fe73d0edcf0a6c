/* sctpbench-agent: the SCTP endpoint the testbed runs in each network
 * namespace.  Parses the command line, describes the run in `meta`
 * records, and hands over to the client or server role. */
#include "cli.h"
#include "client.h"
#include "config.h"
#include "diag.h"
#include "records.h"
#include "server.h"
#include "waiting.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef AGENT_REVISION
#define AGENT_REVISION "unknown"
#endif

/* Options left to the kernel are recorded as "-": the `param` records
 * then show what the kernel chose. */
static void write_meta(const struct config *cfg, struct records *r)
{
	struct utsname u;
	const struct sock_opts *o = &cfg->opts;

	records_meta(r, "role", cfg->role == ROLE_CLIENT ? "client" : "server");
	records_meta(r, "revision", AGENT_REVISION);
	records_meta_i64(r, "pid", (int64_t)getpid());
	if (uname(&u) == 0)
		records_meta(r, "kernel", u.release);
	records_meta(r, "local", cfg->local_text);
	if (cfg->role == ROLE_CLIENT)
		records_meta(r, "peer", cfg->peer_text);
	records_meta_i64(r, "port", cfg->port);
	if (cfg->role == ROLE_CLIENT && cfg->arrival == ARRIVAL_SCHEDULE) {
		/* The file decides sizes, times, streams and flags: the options
		 * it overrides are "-", and the file is named instead. */
		records_meta(r, "size", "-");
		records_meta(r, "rate", "-");
		records_meta(r, "arrival", arrival_kind_name(cfg->arrival));
		records_meta(r, "seed", "-");
		records_meta_i64(r, "duration_ms", cfg->duration_ms);
		records_meta(r, "unordered", "-");
		records_meta(r, "send_streams", "-");
		records_meta_i64(r, "drain_timeout_ms", cfg->drain_timeout_ms);
		records_meta(r, "schedule", cfg->schedule_path);
		records_meta_i64(r, "schedule_messages", (int64_t)cfg->schedule.n);
	} else if (cfg->role == ROLE_CLIENT) {
		records_meta_i64(r, "size", (int64_t)cfg->size);
		/* Saturate may run without --rate: "-" as for kernel defaults. */
		records_meta(r, "rate", cfg->rate_text != NULL ? cfg->rate_text : "-");
		records_meta(r, "arrival", arrival_kind_name(cfg->arrival));
		{
			char seed[24];

			snprintf(seed, sizeof(seed), "%" PRIu64, cfg->seed);
			records_meta(r, "seed", seed);
		}
		records_meta_i64(r, "duration_ms", cfg->duration_ms);
		records_meta_i64(r, "unordered", cfg->unordered ? 1 : 0);
		records_meta_i64(r, "send_streams", cfg->send_streams);
		records_meta_i64(r, "drain_timeout_ms", cfg->drain_timeout_ms);
	}
	records_meta_i64(r, "sample_interval_ms", cfg->sample_interval_ms);
	if (cfg->policy_given)
		records_meta(r, "policy", cfg->policy.text);
	if (cfg->scheduler_given)
		records_meta(r, "scheduler", cfg->scheduler.text);
	if (cfg->signal_path != NULL) {
		records_meta(r, "signal", cfg->signal_path);
		records_meta_i64(r, "signal_points", (int64_t)cfg->signal.points);
	}
	records_meta_opt(r, "nodelay", o->has_nodelay, o->nodelay);
	records_meta_opt(r, "sack_delay_ms", o->has_sack_delay, o->sack_delay_ms);
	records_meta_opt(r, "sack_freq", o->has_sack_freq, o->sack_freq);
	records_meta_opt(r, "streams", o->has_streams, o->streams);
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct records rec;
	int rc;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("sctpbench-agent %s\n", AGENT_REVISION);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		cli_usage(stdout);
		return 0;
	}
	rc = cli_parse(argc, argv, &cfg);
	if (rc != 0)
		return rc;

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
	write_meta(&cfg, &rec);

	rc = cfg.role == ROLE_CLIENT ? client_run(&cfg, &rec) : server_run(&cfg, &rec);

	if (records_close(&rec) != 0) {
		diag_errno(errno, "writing records file %s", cfg.records_path);
		rc = 1;
	}
	cli_free(&cfg);
	return rc;
}
