/* sleeper_child.h - a child for the tests of switch watches
 * (test_switch_regs.c, test_switch_copy.c): it sleeps in epoll_wait on a
 * pipe, with the count of its wake-ups in r12, and each byte we write
 * wakes it once.  Include after cmocka.h and tracee/procfs.h. */
#ifndef PTRACE_PROFILER_TEST_SLEEPER_CHILD_H
#define PTRACE_PROFILER_TEST_SLEEPER_CHILD_H

/* The child: waits for a byte, reads it, counts it in r12, and again. */
static __attribute__((noreturn)) void sleeper(int rfd)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };
	epoll_ctl(ep, EPOLL_CTL_ADD, rfd, &ev);
	register long count __asm__("r12") = 0;
	for (;;) {
		register long r10 __asm__("r10") = 10000; /* ms */
		long ret;
		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "0"((long)SYS_epoll_wait), "D"((long)ep), "S"(&ev), "d"(1L),
				   "r"(r10), "r"(count)
				 : "rcx", "r11", "memory");
		char c;
		if (ret == 1 && read(rfd, &c, 1) == 1)
			count++;
	}
}

struct child {
	pid_t pid;
	int wfd;
};

static struct child start_sleeper(void)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[1]);
		sleeper(fds[0]);
	}
	close(fds[0]);
	return (struct child){ pid, fds[1] };
}

static void end_child(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	close(c->wfd);
}

/* Blocked in epoll_wait: where, as /proc shows it.  Waits up to 2 s. */
static struct blocked_syscall asleep(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	struct blocked_syscall w = { .nr = -1 };
	for (int i = 0; i < 2000; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0 && parse_proc_syscall(buf, (size_t)n, &w) == 0 && w.nr == SYS_epoll_wait)
			return w;
		usleep(1000);
	}
	fail_msg("child %d never slept in epoll_wait", (int)pid);
	return w;
}

/* Wakes the child once and waits for it to sleep again. */
static struct blocked_syscall wake(struct child *c)
{
	assert_int_equal(write(c->wfd, "x", 1), 1);
	/* its read of the byte empties the pipe: then it is on its way back */
	for (int i = 0; i < 20000; i++) {
		int queued = 0;
		if (ioctl(c->wfd, FIONREAD, &queued) == 0 && queued == 0)
			break;
		usleep(100);
	}
	return asleep(c->pid);
}


/* The registers a stop reads. */
static struct user_regs_struct stop_regs(pid_t pid)
{
	struct user_regs_struct r;
	int status;
	assert_int_equal(ptrace(PTRACE_SEIZE, pid, 0, 0), 0);
	assert_int_equal(ptrace(PTRACE_INTERRUPT, pid, 0, 0), 0);
	assert_int_equal(waitpid(pid, &status, __WALL), pid);
	assert_int_equal(ptrace(PTRACE_GETREGS, pid, 0, &r), 0);
	assert_int_equal(ptrace(PTRACE_DETACH, pid, 0, 0), 0);
	return r;
}

#endif
