#include "control.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void control_init(struct control *c, int fd)
{
	c->fd = fd;
	c->len = 0;
	c->overlong = false;
	c->eof = false;
}

int control_fill(struct control *c)
{
	ssize_t n;

	if (c->eof)
		return 0;
	if (c->len == sizeof(c->buf)) {
		/* A full buffer without a newline is a line too long to be a
		 * command: drop it, remember to drop up to its newline, and
		 * report it once as invalid. */
		c->len = 0;
		c->overlong = true;
	}
	do {
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0)
		c->eof = true;
	c->len += (size_t)n;
	return 0;
}

static void invalid(struct control_cmd *cmd, const char *word, const char *why)
{
	cmd->kind = CONTROL_INVALID;
	strcpy(cmd->word, word);
	cmd->why = why;
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*out = (int64_t)v;
	return true;
}

static void parse_line(char *line, struct control_cmd *cmd)
{
	static const char *sep = " \t\r";
	char *save = NULL;
	char *word = strtok_r(line, sep, &save);
	char *arg = word ? strtok_r(NULL, sep, &save) : NULL;
	char *extra = arg ? strtok_r(NULL, sep, &save) : NULL;

	memset(cmd, 0, sizeof(*cmd));
	if (word == NULL) {
		invalid(cmd, "", "empty command");
	} else if (strcmp(word, "start") == 0) {
		if (arg == NULL || extra != NULL || !parse_i64(arg, &cmd->start_ns))
			invalid(cmd, word, "usage: start T_NS");
		else
			cmd->kind = CONTROL_START;
	} else if (strcmp(word, "primary") == 0) {
		if (arg == NULL || extra != NULL) {
			invalid(cmd, word, "usage: primary ADDR");
		} else {
			cmd->kind = CONTROL_PRIMARY;
			strcpy(cmd->arg, arg);
		}
	} else if (strcmp(word, "addaddr") == 0 || strcmp(word, "deladdr") == 0 ||
		   strcmp(word, "peerprimary") == 0) {
		if (arg == NULL || extra != NULL) {
			invalid(cmd, word, word[0] == 'a' ? "usage: addaddr ADDR" :
				word[0] == 'd' ? "usage: deladdr ADDR" : "usage: peerprimary ADDR");
		} else {
			cmd->kind = word[0] == 'a' ? CONTROL_ADDADDR :
				    word[0] == 'd' ? CONTROL_DELADDR : CONTROL_PEERPRIMARY;
			strcpy(cmd->arg, arg);
		}
	} else if (strcmp(word, "stop") == 0) {
		if (arg != NULL)
			invalid(cmd, word, "usage: stop");
		else
			cmd->kind = CONTROL_STOP;
	} else {
		invalid(cmd, word, "unknown command");
	}
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r")] == '\0';
}

bool control_next(struct control *c, struct control_cmd *cmd)
{
	for (;;) {
		char line[CONTROL_LINE_MAX + 1];
		char *nl = memchr(c->buf, '\n', c->len);
		size_t take, line_len;

		if (nl != NULL) {
			line_len = (size_t)(nl - c->buf);
			take = line_len + 1;
		} else if (c->eof && (c->len > 0 || c->overlong)) {
			/* Last line without a newline still counts (and an
			 * overlong one is still reported). */
			line_len = c->len;
			take = c->len;
		} else {
			return false;
		}
		memcpy(line, c->buf, line_len);
		line[line_len] = '\0';
		memmove(c->buf, c->buf + take, c->len - take);
		c->len -= take;

		if (c->overlong) {
			c->overlong = false;
			memset(cmd, 0, sizeof(*cmd));
			invalid(cmd, "", "line too long");
			return true;
		}
		if (blank(line))
			continue;
		parse_line(line, cmd);
		return true;
	}
}
