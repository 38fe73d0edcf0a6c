#include "udpgen.h"

#include "../agent/common/clock.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

/* A datagram the sink drops for want of buffer would be counted as lost on the path: 4 MiB
 * holds seconds of a background flow while the sink waits for a CPU.  FORCE passes
 * rmem_max where we may (root); otherwise the kernel caps SO_RCVBUF at it. */
static void large_receive_buffer(int fd)
{
	int bytes = 4 << 20;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

static uint64_t get_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

int udpgen_sink(const struct udpgen_config *cfg, FILE *records)
{
	unsigned char buf[65536];
	uint64_t count = 0;
	socklen_t len = cfg->local.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int fd = socket(cfg->local.ss_family, SOCK_DGRAM, 0);
	struct pollfd fds[2];

	if (fd < 0 || bind(fd, (const struct sockaddr *)&cfg->local, len) != 0) {
		perror("sctpbench-udpgen: socket/bind");
		return 1;
	}
	large_receive_buffer(fd);
	printf("ready\n");
	fflush(stdout);
	fds[0] = (struct pollfd){.fd = fd, .events = POLLIN};
	fds[1] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
	/* Until stdin says stop or closes: the harness ends the sink after the run. */
	while (poll(fds, 2, -1) >= 0 && !(fds[1].revents & (POLLIN | POLLHUP))) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n >= UDPGEN_HEADER) {
			fprintf(records, "rx %lld %llu %lld %zd\n", (long long)now_ns(),
				(unsigned long long)get_be64(buf), (long long)get_be64(buf + 8), n);
			count++;
		}
	}
	fprintf(records, "end %llu\n", (unsigned long long)count);
	close(fd);
	return fflush(records) == 0 ? 0 : 1;
}
