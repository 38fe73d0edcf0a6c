#include "linefile.h"

enum line_result linefile_next(FILE *f, char *buf, size_t size)
{
	size_t len = 0;
	int ch;

	while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
		if (ch == '\0')
			return LINE_NUL;
		if (len + 1 == size)
			return LINE_TOO_LONG;
		buf[len++] = (char)ch;
	}
	buf[len] = '\0';
	return ch == EOF && len == 0 ? LINE_EOF : LINE_OK;
}

int linefile_fail(char *err, size_t errlen, const char *name, size_t line, const char *why)
{
	if (line > 0)
		snprintf(err, errlen, "%s:%zu: %s", name, line, why);
	else
		snprintf(err, errlen, "%s: %s", name, why);
	return -1;
}

bool linefile_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
