/* The `meta` records of the run that do not depend on the stack, written
 * by sctpbench-agent and sctpbench-agent-usrsctp alike, so the two agents'
 * records describe a workload in the same words (RECORDS.md). */
#include "meta_workload.h"

#include "arrival.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/utsname.h>

void meta_workload(const struct config *cfg, struct records *r)
{
	struct utsname u;

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
}
