#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vdiag(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", AGENT_NAME);
	vfprintf(stderr, fmt, ap);
	if (err != 0)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(0, fmt, ap);
	va_end(ap);
}

void diag_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(err, fmt, ap);
	va_end(ap);
}
