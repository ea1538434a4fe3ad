/* slow_server.c - an HTTP server on loopback that takes its time: each
 * request is answered "404 Not Found" after argv[2] seconds.  As
 * DEBUGINFOD_URLS it makes the profiler's naming (libdw asking debuginfod
 * for a binary without debug info) last that long, so that a test can
 * signal the profiler while it names.  The port it listens on is written
 * to the file argv[1]. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned delay_s;

static void *answer(void *arg)
{
	int fd = (int)(long)arg;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf)); /* the request (its head is enough) */
	(void)n;
	sleep(delay_s);
	static const char reply[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
	n = write(fd, reply, sizeof(reply) - 1);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	delay_s = (unsigned)atoi(argv[2]);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 16) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) != 0)
		return 1;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", ntohs(a.sin_port));
	fclose(f);
	for (;;) {
		int c = accept(s, NULL, NULL);
		pthread_t t;
		if (c >= 0 && pthread_create(&t, NULL, answer, (void *)(long)c) == 0)
			pthread_detach(t);
	}
}
