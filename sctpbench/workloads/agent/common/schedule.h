/* A message schedule file: `--arrival schedule --schedule FILE`.
 *
 * The Python side compiles video frame traces, signaling mixes and the
 * like into one file, and the agent follows it exactly: message i goes out
 * at T + its offset, with its own size, stream, ordering and lifetime.
 * The whole file is read and checked before the association is set up,
 * so a bad line is a usage error naming FILE:LINE, never a run that stops
 * half way.  The format is specified in RECORDS.md.
 */
#ifndef SCTPBENCH_SCHEDULE_H
#define SCTPBENCH_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Limits: a line longer than SCHEDULE_LINE_MAX characters, a file of more
 * than SCHEDULE_LINES_MAX lines or SCHEDULE_MESSAGES_MAX messages is
 * refused.  The messages stay in memory (24 bytes each, 48 MB at the
 * limit), and the guest has 256 MB. */
#define SCHEDULE_LINE_MAX 1024
#define SCHEDULE_LINES_MAX 10000000
#define SCHEDULE_MESSAGES_MAX 2000000
/* The same bounds as the command line's: one week of offset or lifetime. */
#define SCHEDULE_OFFSET_MAX_NS (INT64_C(1000000000) * 3600 * 24 * 7)
#define SCHEDULE_LIFETIME_MAX_MS (UINT32_C(1000) * 3600 * 24 * 7)
#define SCHEDULE_SIZE_MIN 16 /* the payload header */
#define SCHEDULE_SIZE_MAX (1024 * 1024)

struct schedule_msg {
	int64_t offset_ns;    /* from the start time T */
	uint32_t size;        /* bytes, SCHEDULE_SIZE_MIN..SCHEDULE_SIZE_MAX */
	uint32_t lifetime_ms; /* 0 = reliable, else PR-SCTP timed reliability */
	uint16_t stream;
	bool unordered;
};

struct schedule {
	struct schedule_msg *m;
	size_t n, cap;
	uint32_t max_size;      /* 0 when there are no messages */
	uint16_t max_stream;
	size_t max_stream_line; /* the first line with max_stream */
	bool any_lifetime;      /* some message has lifetime_ms > 0 */
};

/* One line, without its newline.  Returns 1 and fills *out for a message,
 * 0 for a blank or comment line, -1 with *why set for a bad line.  The
 * order of offsets is schedule_read's business. */
int schedule_parse_line(const char *line, struct schedule_msg *out, const char **why);

/* Reads and checks a whole file; `name` is what error messages call it.
 * Returns 0, or -1 with "NAME:LINE: reason" (or "NAME: reason") in err. */
int schedule_read(struct schedule *s, FILE *f, const char *name, char *err, size_t errlen);
int schedule_load(struct schedule *s, const char *path, char *err, size_t errlen);
void schedule_free(struct schedule *s);

#endif
