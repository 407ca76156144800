// SPDX-License-Identifier: MIT
/*
 * stop.c - a signal to untorn-fscheck stops its child too (stop.h).  The
 * handler only notes the signal and passes it on: the child (a script)
 * stops its own children and cleans up, and the program waits for it
 * before it ends by the same signal.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include "stop.h"

static volatile sig_atomic_t caught;
static volatile sig_atomic_t pass_to;

static void on_stop(int sig)
{
	int saved = errno;

	caught = sig;
	if (pass_to > 0)
		kill(pass_to, sig);
	errno = saved;
}

int ut_stop_watch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART: a wait returns EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

void ut_stop_pass_to(pid_t child)
{
	pass_to = child;
	if (child > 0 && caught)
		kill(child, caught);
}

int ut_stop_signal(void)
{
	return caught;
}

int ut_stop_waitpid(pid_t child, int *status)
{
	while (waitpid(child, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

void ut_stop_end(void)
{
	int sig = caught;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}
