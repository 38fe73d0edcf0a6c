/* Control commands from the harness on stdin, one per line:
 *   start T | primary ADDR | stop
 *   addaddr ADDR | deladdr ADDR | peerprimary ADDR  (RFC 5061 ASCONF, linux/dar.h)
 *
 * Read without blocking the event loop: the caller polls the descriptor
 * and calls control_fill() once per readiness, so stdin itself is never
 * switched to O_NONBLOCK (that flag would leak into the harness's end of
 * a shared terminal or file description).
 */
#ifndef SCTPBENCH_CONTROL_H
#define SCTPBENCH_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONTROL_LINE_MAX 512

enum control_kind {
	CONTROL_START,
	CONTROL_PRIMARY,
	CONTROL_STOP,
	CONTROL_ADDADDR,     /* sctp_bindx(SCTP_BINDX_ADD_ADDR): ASCONF ADD-IP */
	CONTROL_DELADDR,     /* sctp_bindx(SCTP_BINDX_REM_ADDR): ASCONF DELETE-IP */
	CONTROL_PEERPRIMARY, /* SCTP_SET_PEER_PRIMARY_ADDR: ASCONF SET-PRIMARY */
	CONTROL_INVALID,
};

struct control_cmd {
	enum control_kind kind;
	int64_t start_ns;            /* CONTROL_START */
	char arg[CONTROL_LINE_MAX + 1];  /* CONTROL_PRIMARY and the DAR commands: the address text */
	char word[CONTROL_LINE_MAX + 1]; /* CONTROL_INVALID: first word, or "" */
	const char *why;             /* CONTROL_INVALID: reason */
};

struct control {
	int fd;
	char buf[CONTROL_LINE_MAX];
	size_t len;
	bool overlong; /* discarding the rest of a line that did not fit */
	bool eof;
};

void control_init(struct control *c, int fd);
/* One read(); returns -1 (errno set) on a read error, else 0. */
int control_fill(struct control *c);
/* Pops the next complete line as a command; false when none is left. */
bool control_next(struct control *c, struct control_cmd *cmd);

#endif
