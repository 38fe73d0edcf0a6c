#include "addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

static int parse_scope(const char *s, uint32_t *scope)
{
	char *end;
	unsigned long v;

	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno != 0 || *end != '\0' || v > UINT32_MAX)
			return -1;
		*scope = (uint32_t)v;
		return 0;
	}
	*scope = if_nametoindex(s);
	return *scope == 0 ? -1 : 0;
}

int addr_parse(const char *text, uint16_t port, struct sockaddr_storage *out)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	char *pct;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;

	memset(out, 0, sizeof(*out));
	if (strlen(text) >= sizeof(host))
		return -1;
	strcpy(host, text);

	memset(&sin, 0, sizeof(sin));
	if (inet_pton(AF_INET, host, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sin.sin_port = htons(port);
		memcpy(out, &sin, sizeof(sin));
		return 0;
	}

	memset(&sin6, 0, sizeof(sin6));
	pct = strchr(host, '%');
	if (pct != NULL) {
		*pct = '\0';
		if (parse_scope(pct + 1, &sin6.sin6_scope_id) != 0)
			return -1;
	}
	if (inet_pton(AF_INET6, host, &sin6.sin6_addr) != 1)
		return -1;
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(port);
	memcpy(out, &sin6, sizeof(sin6));
	return 0;
}

int addr_parse_list(const char *csv, uint16_t port, struct addr_list *out)
{
	const char *p = csv;

	out->n = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];

		if (len == 0 || len >= sizeof(item) || out->n == ADDR_LIST_MAX)
			return -1;
		memcpy(item, p, len);
		item[len] = '\0';
		if (addr_parse(item, port, &out->a[out->n]) != 0)
			return -1;
		out->n++;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

void addr_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, ss, sizeof(sin));
		sin.sin_port = htons(port);
		memcpy(ss, &sin, sizeof(sin));
	} else if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, ss, sizeof(sin6));
		sin6.sin6_port = htons(port);
		memcpy(ss, &sin6, sizeof(sin6));
	}
}

socklen_t addr_len(const struct sockaddr_storage *ss)
{
	switch (ss->ss_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

bool addr_any_ipv6(const struct addr_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->a[i].ss_family == AF_INET6)
			return true;
	return false;
}

/* Reduces an address to (family, raw bytes) with v4-mapped folded to
 * IPv4; returns the byte count, 0 for an unknown family. */
static size_t host_key(const struct sockaddr_storage *ss, int *family,
		       unsigned char key[16])
{
	if (ss->ss_family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, ss, sizeof(sin));
		*family = AF_INET;
		memcpy(key, &sin.sin_addr, 4);
		return 4;
	}
	if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, ss, sizeof(sin6));
		if (IN6_IS_ADDR_V4MAPPED(&sin6.sin6_addr)) {
			*family = AF_INET;
			memcpy(key, &sin6.sin6_addr.s6_addr[12], 4);
			return 4;
		}
		*family = AF_INET6;
		memcpy(key, &sin6.sin6_addr, 16);
		return 16;
	}
	return 0;
}

const char *addr_format(const struct sockaddr_storage *ss, char buf[ADDR_STR_MAX])
{
	unsigned char key[16];
	int family = AF_UNSPEC;
	size_t n = host_key(ss, &family, key);

	if (n == 0 || inet_ntop(family, key, buf, ADDR_STR_MAX) == NULL) {
		strcpy(buf, "?");
	}
	return buf;
}

bool addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	unsigned char ka[16], kb[16];
	int fa = AF_UNSPEC, fb = AF_UNSPEC;
	size_t na = host_key(a, &fa, ka);
	size_t nb = host_key(b, &fb, kb);

	return na != 0 && na == nb && fa == fb && memcmp(ka, kb, na) == 0;
}

size_t addr_pack(const struct addr_list *l, unsigned char *buf, size_t cap)
{
	size_t used = 0;

	for (size_t i = 0; i < l->n; i++) {
		size_t len = addr_len(&l->a[i]);

		if (len == 0 || used + len > cap)
			break;
		memcpy(buf + used, &l->a[i], len);
		used += len;
	}
	return used;
}

void addr_unpack(const void *packed, int count, struct addr_list *out)
{
	const unsigned char *p = packed;

	out->n = 0;
	for (int i = 0; i < count && out->n < ADDR_LIST_MAX; i++) {
		sa_family_t family;
		size_t len;

		/* The buffer's entries are only 4-byte aligned in general, so
		 * read through memcpy rather than a struct pointer. */
		memcpy(&family, p + offsetof(struct sockaddr, sa_family), sizeof(family));
		if (family == AF_INET)
			len = sizeof(struct sockaddr_in);
		else if (family == AF_INET6)
			len = sizeof(struct sockaddr_in6);
		else
			return; /* unknown layout: cannot find the next entry */
		memset(&out->a[out->n], 0, sizeof(out->a[out->n]));
		memcpy(&out->a[out->n], p, len);
		out->n++;
		p += len;
	}
}
