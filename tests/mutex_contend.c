// SPDX-License-Identifier: MIT
/*
 * mutex_contend.c - a workload for ebpf_test.sh: THREADS threads take one
 * pthread mutex in turn with pthread_mutex_lock and hold it ~50 us, so
 * that every lock is contended, until killed.  Prints "ready" once the
 * threads run.  Not a test by itself.
 *
 * USAGE: mutex_contend [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t contended_mutex = PTHREAD_MUTEX_INITIALIZER;

static void hold_for(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
	       ns);
}

static void *contend_thread(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&contended_mutex);
		hold_for(50000);
		pthread_mutex_unlock(&contended_mutex);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4, i;
	pthread_t tid;

	for (i = 0; i < threads; i++)
		if (pthread_create(&tid, NULL, contend_thread, NULL)) {
			perror("mutex_contend: pthread_create");
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	pthread_exit(NULL);
}
