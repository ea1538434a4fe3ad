/* activity_reads.h - every PostgreSQL process's wait event at every tick,
 * read without a stop, for the report's chart (activity.h).
 *
 * With --pg-wait-events and the report (--format html), each tick reads
 * each server process's wait word (below: most of them in one call) and
 * counts it in the series under the process's root frame and its state
 * frame.  A round's tick reads first, then the round runs; between the
 * rounds that --max-overhead spaces, the reads keep the asked interval.
 * Their time counts in the bound: they may take up to READS_BUDGET_PART
 * of it, spaced further when they would take more (every READS_RESCALE
 * read ticks), and the rounds get what is left (sampler.c's
 * keep_own_cost).  The postmaster and the logger are not read: they have
 * no PGPROC, and their word says no wait while they sleep.
 *
 * Each process's word is first read its own way (pg_word_read: its
 * pointer and the word, a call each); once two processes agree where a
 * PGPROC keeps its pid, the words of an instance are read through one of
 * its processes in one call, each with its PGPROC's pid (pgprocs.h), and
 * a process whose pid is not there any more is read its own way again.
 */
#ifndef PTRACE_PROFILER_SAMPLE_ACTIVITY_READS_H
#define PTRACE_PROFILER_SAMPLE_ACTIVITY_READS_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "sample/records.h"

/* Reads between rounds only for an instance of this many processes
 * read or more: one PostgreSQL stand-in (fake_pg) at -d 1ms --max-overhead
 * 1% got 219 rounds a second alone, and 22 rounds and 90 reads beside
 * them (a read tick cost 130 us of our CPU, a round 64: a wake-up here
 * is most of either). */
#define READS_MIN_PROCS 3

/* The part of --max-overhead's budget the reads may take. */
#define READS_BUDGET_PART 0.6

/* Their interval is set again after this many read ticks between rounds,
 * from what those cost: the rounds' check of our CPU comes after a round,
 * and spaced rounds left the reads at the asked rate for a third of a
 * second at the start (310 ticks of 72 us: 6.7 % of a CPU). */
#define READS_RESCALE 16

/* Words read through one process in one call (pgprocs.h) at most, a
 * tick; the others each their own way. */
#define READS_THROUGH_MAX 256

/* A process's word read its own way (its pointer too) at least once in
 * this many reads: a process on its way out stops writing to its PGPROC
 * before it gives the slot up, and this bounds how long its last word
 * there is taken for its state. */
#define READS_OWN_EVERY 64

/* A word this close to its pointer is a variable of the binary's, not a
 * PGPROC's (learn_pid_offset). */
#define READS_IMAGE_MAX (1ULL << 30)

/* Does this run read them (the report, with --pg-wait-events, not
 * --period)? */
bool activity_reads_wanted(const struct options *o);

/* One read tick at now: every server process's word counted. */
void activity_read_tick(struct sampler *s, uint64_t now);

/* Between the round just ended and next (when the next round is due):
 * the read ticks due before it, each waited for as the rounds are
 * (the traps of stops still pending are collected meanwhile). */
void activity_reads_between(struct sampler *s, uint64_t next, volatile int *quit);

#endif
