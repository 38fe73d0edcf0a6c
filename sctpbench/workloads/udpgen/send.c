#include "udpgen.h"

#include "../agent/common/clock.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

/* `start T` from stdin; -1 on EOF or a malformed line. */
static int wait_start(int64_t *t0)
{
	char line[128];
	long long t;

	if (!fgets(line, sizeof(line), stdin) || sscanf(line, "start %lld", &t) != 1) {
		fprintf(stderr, "sctpbench-udpgen: expected 'start T' on stdin\n");
		return -1;
	}
	*t0 = t;
	return 0;
}

static void put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)(v & 0xff);
}

static socklen_t length(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

int udpgen_send(const struct udpgen_config *cfg, FILE *records)
{
	unsigned char buf[65507];
	struct arrival a;
	int64_t t0, end;
	uint64_t seq = 0;
	struct sockaddr_storage local = cfg->local;
	int fd = socket(local.ss_family, SOCK_DGRAM, 0);

	/* An ephemeral source port: --port is the sink's. */
	if (local.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&local)->sin6_port = 0;
	else
		((struct sockaddr_in *)&local)->sin_port = 0;
	if (fd < 0 || bind(fd, (const struct sockaddr *)&local, length(&local)) != 0) {
		perror("sctpbench-udpgen: socket/bind");
		return 1;
	}
	memset(buf, 0x5b, sizeof(buf));
	printf("ready\n");
	fflush(stdout);
	if (wait_start(&t0) != 0)
		return 1;
	end = t0 + cfg->duration_ns;
	arrival_init(&a, cfg->arrival, cfg->rate, cfg->seed, NULL, t0);
	for (int64_t t = arrival_next(&a); t < end; t = arrival_next(&a), seq++) {
		struct timespec ts = ns_to_timespec(t);
		ssize_t n;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		put_be64(buf, seq);
		put_be64(buf + 8, (uint64_t)t);
		n = sendto(fd, buf, (size_t)cfg->size, 0, (const struct sockaddr *)&cfg->peer, length(&cfg->peer));
		/* A full queue on the path drops the datagram, as on a real link: recorded, not fatal. */
		fprintf(records, "tx %lld %lld %llu %d %s\n", (long long)t, (long long)now_ns(),
			(unsigned long long)seq, cfg->size, n < 0 ? strerror(errno) : "ok");
	}
	fprintf(records, "end %llu\n", (unsigned long long)seq);
	close(fd);
	printf("done\n");
	return fflush(records) == 0 ? 0 : 1;
}
