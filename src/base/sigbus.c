/* sigbus.c - a page of a file cut short under our mappings, replaced by
 * zeros (sigbus.h). */
#define _GNU_SOURCE
#include "base/sigbus.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

static _Atomic uint64_t zero_pages;
static uintptr_t page_size;

/* What the handler needs of one row of /proc/self/maps. */
struct maps_row {
	uintptr_t start, end;
	int prot;
	uint64_t inode;
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 0;
}

/* The row of /proc/self/maps that holds addr, read a character at a time
 * with async-signal-safe calls only ("START-END PERMS OFFSET DEV INODE
 * PATH").  false if there is none or /proc cannot say. */
static bool mapping_of(uintptr_t addr, struct maps_row *out)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[1024];
	enum { START, END, PERMS, OFFSET, DEV, INODE, REST } field = START;
	struct maps_row row = { 0, 0, 0, 0 };
	int perm = 0;
	bool found = false;
	while (!found) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && !found; i++) {
			char c = buf[i];
			if (c == '\n') {
				if (field >= INODE && addr >= row.start && addr < row.end) {
					*out = row;
					found = true;
				}
				field = START;
				row = (struct maps_row){ 0, 0, 0, 0 };
				perm = 0;
				continue;
			}
			switch (field) {
			case START:
				if (c == '-')
					field = END;
				else
					row.start = row.start * 16 + (uintptr_t)hex_digit(c);
				break;
			case END:
				if (c == ' ')
					field = PERMS;
				else
					row.end = row.end * 16 + (uintptr_t)hex_digit(c);
				break;
			case PERMS:
				if (c == ' ')
					field = OFFSET;
				else if (perm++ < 3 && c != '-')
					row.prot |= c == 'r' ? PROT_READ : c == 'w' ? PROT_WRITE : PROT_EXEC;
				break;
			case OFFSET:
				if (c == ' ')
					field = DEV;
				break;
			case DEV:
				if (c == ' ')
					field = INODE;
				break;
			case INODE:
				if (c >= '0' && c <= '9')
					row.inode = row.inode * 10 + (uint64_t)(c - '0');
				else
					field = REST;
				break;
			case REST:
				break;
			}
		}
	}
	close(fd);
	return found;
}

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	(void)context;
	int saved_errno = errno;
	uintptr_t addr = (uintptr_t)si->si_addr;
	struct maps_row row;
	if (si->si_code == BUS_ADRERR && mapping_of(addr, &row) && row.inode != 0) {
		void *page = (void *)(addr & ~(page_size - 1));
		if (mmap(page, page_size, row.prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    page) {
			atomic_fetch_add_explicit(&zero_pages, 1, memory_order_relaxed);
			errno = saved_errno;
			return; /* the access runs again, on zeros */
		}
	}
	/* Not ours to answer: as if there were no handler.  A fault happens
	 * again when its instruction runs again, now to the default action;
	 * a SIGBUS that was sent (kill, tgkill) or a machine check reported
	 * ahead of use would not, so it is raised again (blocked until we
	 * return). */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0 || si->si_code == BUS_MCEERR_AO)
		raise(sig);
	errno = saved_errno;
}

int sigbus_install(void)
{
	long size = sysconf(_SC_PAGESIZE);
	page_size = size > 0 ? (uintptr_t)size : 4096;
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL);
}

uint64_t sigbus_zero_pages(void)
{
	return atomic_load_explicit(&zero_pages, memory_order_relaxed);
}
