/* sctpbench-agent: the SCTP endpoint the testbed runs in each network
 * namespace.  Parses the command line, describes the run in `meta`
 * records, and hands over to the client or server role. */
#include "common/cli.h"
#include "client.h"
#include "common/config.h"
#include "common/diag.h"
#include "common/meta_workload.h"
#include "common/records.h"
#include "server.h"
#include "common/waiting.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef AGENT_REVISION
#define AGENT_REVISION "unknown"
#endif

/* Options left to the kernel are recorded as "-": the `param` records
 * then show what the kernel chose. */
static void write_meta(const struct config *cfg, struct records *r)
{
	const struct sock_opts *o = &cfg->opts;

	records_meta(r, "role", cfg->role == ROLE_CLIENT ? "client" : "server");
	records_meta(r, "revision", AGENT_REVISION);
	records_meta_i64(r, "pid", (int64_t)getpid());
	meta_workload(cfg, r);
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
