#include "schedule.h"

#include "linefile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FIELDS 5

/* A token of only decimal digits, at most `max`; no sign, no blanks. */
static bool parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

int schedule_parse_line(const char *line, struct schedule_msg *out, const char **why)
{
	const char *tok[FIELDS + 1];
	size_t len[FIELDS + 1];
	const char *p = line;
	size_t n = 0;
	uint64_t v;

	/* Everything from '#' on is a comment; no field can contain one. */
	while (*p != '\0' && *p != '#') {
		const char *start;

		if (linefile_blank(*p)) {
			p++;
			continue;
		}
		start = p;
		while (*p != '\0' && *p != '#' && !linefile_blank(*p))
			p++;
		if (n == FIELDS) {
			*why = "more than 5 fields (OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS)";
			return -1;
		}
		tok[n] = start;
		len[n] = (size_t)(p - start);
		n++;
	}
	if (n == 0)
		return 0;
	if (n < FIELDS) {
		*why = "fewer than 5 fields (OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS)";
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (!parse_uint(tok[0], len[0], (uint64_t)SCHEDULE_OFFSET_MAX_NS, &v)) {
		*why = "bad OFFSET_NS (a decimal number of ns, 0 to one week)";
		return -1;
	}
	out->offset_ns = (int64_t)v;
	if (!parse_uint(tok[1], len[1], SCHEDULE_SIZE_MAX, &v) || v < SCHEDULE_SIZE_MIN) {
		*why = "bad SIZE (16 to 1048576 bytes; 16 is the payload header)";
		return -1;
	}
	out->size = (uint32_t)v;
	if (!parse_uint(tok[2], len[2], 65535, &v)) {
		*why = "bad STREAM (0-65535)";
		return -1;
	}
	out->stream = (uint16_t)v;
	if (len[3] == 1 && tok[3][0] == '-') {
		out->unordered = false;
	} else if (len[3] == 1 && tok[3][0] == 'u') {
		out->unordered = true;
	} else {
		*why = "bad FLAGS ('-' or 'u' for unordered)";
		return -1;
	}
	if (!parse_uint(tok[4], len[4], SCHEDULE_LIFETIME_MAX_MS, &v)) {
		*why = "bad LIFETIME_MS (0 = reliable, else 1 ms to one week)";
		return -1;
	}
	out->lifetime_ms = (uint32_t)v;
	return 1;
}

static int append(struct schedule *s, const struct schedule_msg *m)
{
	if (s->n == s->cap) {
		size_t cap = s->cap == 0 ? 1024 : s->cap * 2;
		struct schedule_msg *grown;

		if (cap > SCHEDULE_MESSAGES_MAX)
			cap = SCHEDULE_MESSAGES_MAX;
		grown = realloc(s->m, cap * sizeof(*grown));
		if (grown == NULL)
			return -1;
		s->m = grown;
		s->cap = cap;
	}
	s->m[s->n++] = *m;
	return 0;
}

static int read_lines(struct schedule *s, FILE *f, const char *name, char *err, size_t errlen)
{
	char buf[SCHEDULE_LINE_MAX + 1];
	size_t line = 0;
	enum line_result lr;

	while ((lr = linefile_next(f, buf, sizeof(buf))) != LINE_EOF) {
		struct schedule_msg m;
		const char *why;
		int rc;

		line++;
		if (line > SCHEDULE_LINES_MAX)
			return linefile_fail(err, errlen, name, 0, "more than 10000000 lines");
		if (lr == LINE_TOO_LONG)
			return linefile_fail(err, errlen, name, line, "line longer than 1024 characters");
		if (lr == LINE_NUL)
			return linefile_fail(err, errlen, name, line, "NUL byte in line");
		rc = schedule_parse_line(buf, &m, &why);
		if (rc < 0)
			return linefile_fail(err, errlen, name, line, why);
		if (rc == 0)
			continue;
		if (s->n > 0 && m.offset_ns < s->m[s->n - 1].offset_ns)
			return linefile_fail(err, errlen, name, line,
					     "OFFSET_NS below the previous message's (offsets must not decrease)");
		if (s->n == SCHEDULE_MESSAGES_MAX)
			return linefile_fail(err, errlen, name, line, "more than 2000000 messages");
		if (append(s, &m) != 0)
			return linefile_fail(err, errlen, name, line, "out of memory");
		if (m.size > s->max_size)
			s->max_size = m.size;
		if (s->n == 1 || m.stream > s->max_stream) {
			s->max_stream = m.stream;
			s->max_stream_line = line;
		}
		if (m.lifetime_ms > 0)
			s->any_lifetime = true;
	}
	if (ferror(f))
		return linefile_fail(err, errlen, name, 0, strerror(errno != 0 ? errno : EIO));
	return 0;
}

int schedule_read(struct schedule *s, FILE *f, const char *name, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	errno = 0;
	if (read_lines(s, f, name, err, errlen) == 0)
		return 0;
	schedule_free(s);
	return -1;
}

int schedule_load(struct schedule *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int rc;

	memset(s, 0, sizeof(*s));
	if (f == NULL)
		return linefile_fail(err, errlen, path, 0, strerror(errno));
	rc = schedule_read(s, f, path, err, errlen);
	fclose(f);
	return rc;
}

void schedule_free(struct schedule *s)
{
	free(s->m);
	memset(s, 0, sizeof(*s));
}
