#!/usr/bin/env python3
"""comment_names.py - comments that name what no longer exists.

A comment in src/ or include/ that names a function, a field, a constant
or a parameter by a lower-case identifier written with an underscore
(count_now, n_kernel, ...) must name one the code still has: a rename
that forgot a comment leaves a name nobody can find (continuous.h spoke of
a grace_ns that continuous.c never had).  Identifiers are looked for in
the code of src/, include/ and test/ (comments and strings left out), in
the Makefile and the scripts; names that belong to others (the kernel's
functions, PostgreSQL's and libdw's) are listed below, each group with
its owner.  Short names without an underscore (p, st, frames) are ordinary
words as often as parameters: they are not checked.

Prints "FILE:LINE: NAME" for each one found and exits 1; 0 when none.
12-docs runs it.
"""
import glob
import os
import re
import sys

# Names the comments borrow from other code, by owner.
FOREIGN = {
    # the Linux kernel: functions in kernel stacks, fields, sysctls
    'exit_to_user_mode_loop', 'cond_resched', 'generic_perform_write', 'do_syscall_64',
    'asm_sysvec', 'asm_common_interrupt', 'asm_exc_page_fault', 'perf_event_paranoid',
    'exclude_kernel', 'sched_attr', 'rt_sigreturn', 'fs_base',
    # PostgreSQL: settings, views, functions, fields
    'pg_stat_statements', 'pgstat_report_activity', 'track_activities',
    'track_activity_query_size', 'bgw_name', 'search_path', 'wait_event_info',
    'cluster_name', 'update_process_title', 'init_ps_display',
    'pgstat_get_wait_event_type', 'pgstat_get_wait_event',
    # libdw / the ELF and DWARF formats
    'main_bias', 'eh_frame_ptr_enc', 'fde_count_enc', 'table_enc', 'eh_frame_ptr',
    # pprof's profile.proto fields
    'string_table', 'duration_nanos', 'default_sample_type', 'has_functions',
    # this repository's folders
    'oracle_scripts',
}

IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
# a lower-case identifier with an underscore inside (the house's functions,
# fields, parameters), not part of a path or a file name; macros are left
# out (the system's, CAP_SYS_NICE, NAME_MAX, outnumber ours there)
NAMED = re.compile(r'(?<![\w./-])([a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9])(?![\w/-]|\.[a-z])')


def split(text):
    """The code with comments and literals blanked (lines kept), and each
    comment as (first line, text)."""
    code, comments = [], []
    i, n, line = 0, len(text), 1
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text[i] in '"\'':
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            code.append(' ')
            i = j + 1
            continue
        else:
            if text[i] == '\n':
                line += 1
            code.append(text[i])
            i += 1
            continue
        comments.append((line, text[i:j]))
        breaks = text.count('\n', i, j)
        code.append('\n' * breaks)
        line += breaks
        i = j
    return ''.join(code), comments


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    checked = sorted(glob.glob('src/**/*.[ch]', recursive=True) +
                     glob.glob('include/**/*.h', recursive=True))
    known = set(FOREIGN)
    for f in checked + sorted(glob.glob('test/**/*.[ch]', recursive=True)):
        with open(f, errors='replace') as fh:
            known.update(IDENT.findall(split(fh.read())[0]))
    for f in ['Makefile'] + glob.glob('scripts/*') + glob.glob('test/**/*.sh', recursive=True):
        with open(f, errors='replace') as fh:
            known.update(IDENT.findall(fh.read()))
    found = 0
    for f in checked:
        with open(f, errors='replace') as fh:
            for line, text in split(fh.read())[1]:
                for m in NAMED.finditer(text):
                    if m.group(1) not in known:
                        print('%s:%d: %s' % (f, line + text.count('\n', 0, m.start()), m.group(1)))
                        found += 1
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
