/* pyroscope_label.h - a --label k=v as the options keep it, and the
 * limits of its parts (the rules are in pyroscope.h, which checks them).
 * Apart so that options.h, which holds the labels, needs nothing of the
 * push itself. */
#ifndef PTRACE_PROFILER_PYROSCOPE_LABEL_H
#define PTRACE_PROFILER_PYROSCOPE_LABEL_H

#define PYROSCOPE_KEY_MAX 64
#define PYROSCOPE_VALUE_MAX 128
#define PYROSCOPE_LABELS_MAX 16

struct pyroscope_label {
	char key[PYROSCOPE_KEY_MAX + 1];
	char value[PYROSCOPE_VALUE_MAX + 1];
};

#endif
