#include "sigtrace.h"

#include "linefile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIELDS 3

/* [-]DIGITS within +-SIGTRACE_OFFSET_MAX_NS; no '+', no blanks. */
static bool parse_offset(const char *s, size_t len, int64_t *out)
{
	bool neg = len > 0 && s[0] == '-';
	int64_t v = 0;

	if (neg) {
		s++;
		len--;
	}
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > SIGTRACE_OFFSET_MAX_NS)
			return false;
	}
	*out = neg ? -v : v;
	return true;
}

static bool parse_dbm(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno != 0 || *end != '\0' || !isfinite(v) || v < SIGTRACE_DBM_MIN || v > SIGTRACE_DBM_MAX)
		return false;
	*out = v;
	return true;
}

/* 1 and the fields for a point, 0 for a blank or comment line, -1 with
 * *why for a bad line. */
static int parse_line(const char *line, int64_t *offset, struct sockaddr_storage *addr, double *dbm,
		      const char **why)
{
	const char *tok[FIELDS];
	size_t len[FIELDS];
	const char *p = line;
	char text[ADDR_STR_MAX + 16];
	size_t n = 0;

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
			*why = "more than 3 fields (OFFSET_NS ADDR DBM)";
			return -1;
		}
		tok[n] = start;
		len[n] = (size_t)(p - start);
		n++;
	}
	if (n == 0)
		return 0;
	if (n < FIELDS) {
		*why = "fewer than 3 fields (OFFSET_NS ADDR DBM)";
		return -1;
	}
	if (!parse_offset(tok[0], len[0], offset)) {
		*why = "bad OFFSET_NS (a decimal number of ns, optionally negative, within one week)";
		return -1;
	}
	if (len[1] >= sizeof(text)) {
		*why = "bad ADDR (a numeric IPv4 or IPv6 address)";
		return -1;
	}
	memcpy(text, tok[1], len[1]);
	text[len[1]] = '\0';
	if (addr_parse(text, 0, addr) != 0) {
		*why = "bad ADDR (a numeric IPv4 or IPv6 address)";
		return -1;
	}
	if (!parse_dbm(tok[2], len[2], dbm)) {
		*why = "bad DBM (a decimal number from -200 to 50)";
		return -1;
	}
	return 1;
}

static struct sigtrace_series *series_of(struct sigtrace *t, const struct sockaddr_storage *addr)
{
	for (size_t i = 0; i < t->n_series; i++)
		if (addr_same_host(&t->s[i].addr, addr))
			return &t->s[i];
	if (t->n_series == ADDR_LIST_MAX)
		return NULL;
	t->s[t->n_series].addr = *addr;
	return &t->s[t->n_series++];
}

static int append(struct sigtrace_series *s, int64_t offset, double dbm)
{
	if (s->n == s->cap) {
		size_t cap = s->cap == 0 ? 64 : s->cap * 2;
		int64_t *o = realloc(s->offset_ns, cap * sizeof(*o));

		if (o == NULL)
			return -1;
		s->offset_ns = o;
		double *d = realloc(s->dbm, cap * sizeof(*d));
		if (d == NULL)
			return -1;
		s->dbm = d;
		s->cap = cap;
	}
	s->offset_ns[s->n] = offset;
	s->dbm[s->n] = dbm;
	s->n++;
	return 0;
}

static int read_lines(struct sigtrace *t, FILE *f, const char *name, char *err, size_t errlen)
{
	char buf[SIGTRACE_LINE_MAX + 1];
	size_t line = 0;
	int64_t last = INT64_MIN;
	enum line_result lr;

	while ((lr = linefile_next(f, buf, sizeof(buf))) != LINE_EOF) {
		struct sockaddr_storage addr;
		struct sigtrace_series *s;
		int64_t offset;
		double dbm;
		const char *why;
		int rc;

		line++;
		if (lr == LINE_TOO_LONG)
			return linefile_fail(err, errlen, name, line, "line longer than 1024 characters");
		if (lr == LINE_NUL)
			return linefile_fail(err, errlen, name, line, "NUL byte in line");
		rc = parse_line(buf, &offset, &addr, &dbm, &why);
		if (rc < 0)
			return linefile_fail(err, errlen, name, line, why);
		if (rc == 0)
			continue;
		if (offset < last)
			return linefile_fail(err, errlen, name, line,
					     "OFFSET_NS below the previous point's (times must not decrease)");
		last = offset;
		if (t->points == SIGTRACE_POINTS_MAX)
			return linefile_fail(err, errlen, name, line, "more than 1000000 points");
		s = series_of(t, &addr);
		if (s == NULL)
			return linefile_fail(err, errlen, name, line, "more than 16 addresses");
		if (append(s, offset, dbm) != 0)
			return linefile_fail(err, errlen, name, line, "out of memory");
		t->points++;
	}
	if (ferror(f))
		return linefile_fail(err, errlen, name, 0, strerror(errno != 0 ? errno : EIO));
	return 0;
}

int sigtrace_read(struct sigtrace *t, FILE *f, const char *name, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	errno = 0;
	if (read_lines(t, f, name, err, errlen) == 0)
		return 0;
	sigtrace_free(t);
	return -1;
}

int sigtrace_load(struct sigtrace *t, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int rc;

	memset(t, 0, sizeof(*t));
	if (f == NULL)
		return linefile_fail(err, errlen, path, 0, strerror(errno));
	rc = sigtrace_read(t, f, path, err, errlen);
	fclose(f);
	return rc;
}

void sigtrace_free(struct sigtrace *t)
{
	for (size_t i = 0; i < t->n_series; i++) {
		free(t->s[i].offset_ns);
		free(t->s[i].dbm);
	}
	memset(t, 0, sizeof(*t));
}

bool sigtrace_at(const struct sigtrace *t, const struct sockaddr_storage *addr, int64_t offset_ns,
		 double *dbm)
{
	for (size_t i = 0; i < t->n_series; i++) {
		const struct sigtrace_series *s = &t->s[i];
		size_t lo = 0, hi = s->n;

		if (!addr_same_host(&s->addr, addr))
			continue;
		/* the first point after offset_ns; the one before it is in force */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->offset_ns[mid] <= offset_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			return false;
		*dbm = s->dbm[lo - 1];
		return true;
	}
	return false;
}
