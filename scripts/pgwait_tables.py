#!/usr/bin/env python3
"""pgwait_tables.py - write src/db/pgwait_tables.c from PostgreSQL's sources.

A PostgreSQL backend reports its wait as one 32-bit word: the class in the
top byte, an event id in the low 16 bits.  The ids are positions in C enums
and arrays that every major version renumbers, so the profiler keeps one
table per major (include/db/pgwait_tables.h).  This script reads them out of
each release's own source files, straight from a git repository of
PostgreSQL (a bare mirror will do: nothing is checked out), and prints the
whole C file on stdout:

    python3 scripts/pgwait_tables.py --git-dir /path/to/postgres.git \\
        > src/db/pgwait_tables.c

What it reads, per release (paths as in the PostgreSQL tree):
  - classes: the PG_WAIT_* defines of src/include/utils/wait_event.h (from
    18 on src/include/utils/wait_classes.h), the type names of
    pgstat_get_wait_event_type() and, in pgstat_get_wait_event(), how each
    class is named (a function per class, or one literal for any id) in
    src/backend/utils/activity/wait_event.c;
  - events, up to 16: the WaitEvent* enums of utils/wait_event.h (the first
    member is PG_WAIT_<class>, so an event's id is its position) and the
    names in the switch cases of wait_event.c;
  - events, from 17 on: src/backend/utils/activity/wait_event_names.txt,
    with the order and the CamelCase names that generate-wait_event_types.pl
    gives them (sorted by name, the ABI_compatibility lines after);
  - Lock: LockTagTypeNames in src/backend/utils/adt/lockfuncs.c, checked
    against enum LockTagType in src/include/storage/lock.h (locktag.h from
    19 on);
  - LWLock: the individual locks of src/backend/storage/lmgr/lwlocknames.txt
    (up to 16) or src/include/storage/lwlocklist.h (17 on), the tranches of
    enum BuiltinTrancheIds in src/include/storage/lwlock.h named by
    BuiltinTrancheNames in src/backend/storage/lmgr/lwlock.c (or, from 19,
    by the PG_LWLOCKTRANCHE lines of lwlocklist.h); first_user_tranche is
    LWTRANCHE_FIRST_USER_DEFINED.

Which release: the newest tag REL_<major>_<minor> the repository has; a
mirror without those tags (some GitHub copies carry only the branches) gives
the newest "Stamp <major>.<minor>." commit of REL_<major>_STABLE, the commit
such a tag points to.  --ref MAJOR=REF picks another one.

A new major: add it to MAJORS below and re-run.  A layout the parsers do
not know (a file moved, a list changed form) stops the script with a message
naming the file, rather than printing a wrong table.

Standard library only.
"""
import argparse
import ast
import re
import subprocess
import sys
import textwrap

# The majors in the file, oldest first: each with None (its newest release,
# found as said above) or a git ref that pins the release to read.
MAJORS = [
    (14, None),
    (15, None),
    (16, None),
    (17, None),
    (18, None),
]

# What each major's table was checked against beyond its sources, said in
# its comment (a new major has none until someone checks it).
CHECKED = {
    14: 'the same numbers as PostgreSQL 14.13\'s headers give (the pgrx '
        'project\'s bindgen output, pgrx-pg-sys/src/include/pg14.rs)',
    15: 'Debian\'s postgresql-15 15.18 itself: every number of every class '
        'passed to its own pgstat_get_wait_event_type() and '
        'pgstat_get_wait_event() under gdb',
    16: 'the same numbers as PostgreSQL 16.4\'s headers give (pgrx\'s '
        'pg16.rs)',
    17: 'Debian\'s postgresql-17 17.12 (trixie) itself: every number passed '
        'to its own pgstat_get_wait_event_type() and pgstat_get_wait_event() '
        'under gdb',
    18: 'Debian\'s postgresql-18 18.6 (sid), not run here: every name found, '
        'with its class, in the binary\'s own pg_wait_events table, and the '
        'built-in tranche names read from the binary slot by slot',
}

OUT_FILE = 'src/db/pgwait_tables.c'
WAIT_EVENT_C = 'src/backend/utils/activity/wait_event.c'
WAIT_EVENT_H = 'src/include/utils/wait_event.h'
WAIT_CLASSES_H = 'src/include/utils/wait_classes.h'
NAMES_TXT = 'src/backend/utils/activity/wait_event_names.txt'
LOCK_H = 'src/include/storage/lock.h'
LOCKTAG_H = 'src/include/storage/locktag.h'   # LockTagType from 19 on
LOCKFUNCS_C = 'src/backend/utils/adt/lockfuncs.c'
LWLOCK_H = 'src/include/storage/lwlock.h'
LWLOCK_C = 'src/backend/storage/lmgr/lwlock.c'
LWLOCKNAMES_TXT = 'src/backend/storage/lmgr/lwlocknames.txt'
LWLOCKLIST_H = 'src/include/storage/lwlocklist.h'


class SourceError(Exception):
    """The sources do not have the shape the parsers expect."""


# --- reading the repository ----------------------------------------------

class Release:
    """One release's tree in the repository, read file by file."""

    def __init__(self, git_dir, major, commit, label, how):
        self.git_dir, self.major = git_dir, major
        self.commit, self.label, self.how = commit, label, how
        self._cache = {}

    def read(self, path, required=True):
        if path not in self._cache:
            r = subprocess.run(['git', '--git-dir', self.git_dir, 'show',
                                '%s:%s' % (self.commit, path)],
                               capture_output=True, text=True)
            self._cache[path] = r.stdout if r.returncode == 0 else None
        if self._cache[path] is None and required:
            raise SourceError('%s: no %s at %s' % (self.label, path, self.commit))
        return self._cache[path]

    def has(self, path):
        return self.read(path, required=False) is not None


def git(git_dir, *args):
    r = subprocess.run(['git', '--git-dir', git_dir] + list(args),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SourceError('git %s: %s' % (' '.join(args), r.stderr.strip()))
    return r.stdout


def find_release(git_dir, major, ref):
    """The release to read for a major: ref if given, else the newest tag,
    else the newest release stamp on the stable branch."""
    if ref:
        commit = git(git_dir, 'rev-parse', '--verify', ref + '^{commit}').strip()
        subject = git(git_dir, 'log', '-1', '--format=%s', commit).strip()
        stamp = re.fullmatch(r'Stamp (%d\.\d+)\.?' % major, subject)
        if stamp:
            return Release(git_dir, major, commit, stamp.group(1),
                           'the "%s" commit %s' % (subject, commit[:12]))
        label = ref[:12] if re.fullmatch(r'[0-9a-f]{13,40}', ref) else ref
        return Release(git_dir, major, commit, label, 'commit ' + commit[:12])
    tags = git(git_dir, 'for-each-ref', '--format=%(refname:short)',
               'refs/tags/REL_%d_*' % major).split()
    minors = [int(m.group(1)) for m in
              (re.fullmatch(r'REL_%d_(\d+)' % major, t) for t in tags) if m]
    if minors:
        tag = 'REL_%d_%d' % (major, max(minors))
        commit = git(git_dir, 'rev-parse', tag + '^{commit}').strip()
        return Release(git_dir, major, commit, '%d.%d' % (major, max(minors)),
                       'tag %s, commit %s' % (tag, commit[:12]))
    return stamp_release(git_dir, major)


def stamp_release(git_dir, major):
    branch = 'REL_%d_STABLE' % major
    refs = git(git_dir, 'for-each-ref', '--format=%(refname)',
               'refs/heads/' + branch, 'refs/remotes/*/' + branch).split()
    if not refs:
        raise SourceError('PostgreSQL %d: no tag REL_%d_* and no branch %s'
                          % (major, major, branch))
    log = git(git_dir, 'log', '--format=%H %s', refs[0])
    for line in log.splitlines():
        commit, subject = line.split(' ', 1)
        m = re.fullmatch(r'Stamp (%d\.\d+)\.?' % major, subject)
        if m:
            return Release(git_dir, major, commit, m.group(1), 'the "%s" commit %s of %s'
                           % (subject, commit[:12], branch))
    raise SourceError('PostgreSQL %d: no release stamp on %s' % (major, branch))


# --- C source helpers ----------------------------------------------------

def strip_comments(text):
    """C text without its comments (string literals kept whole), so that a
    commented-out member or name is not counted."""
    pattern = re.compile(r'"(?:\\.|[^"\\\n])*"|/\*.*?\*/|//[^\n]*', re.S)
    return pattern.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else ' ', text)


def braced(text, start, what):
    """The text between the brace at or after start and its match."""
    i = text.find('{', start)
    if i < 0:
        raise SourceError('no body for ' + what)
    depth = 0
    for j in range(i, len(text)):
        depth += {'{': 1, '}': -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j]
    raise SourceError('unbalanced braces in ' + what)


def function_body(text, name, path):
    m = re.search(r'^%s\s*\([^)]*\)\s*\{' % re.escape(name), text, re.M)
    if not m:
        raise SourceError('%s: no function %s()' % (path, name))
    return braced(text, m.end() - 1, '%s in %s' % (name, path))


def initializer(text, name, path):
    """The braced initializer of the array `name`."""
    m = re.search(r'\b%s\s*\[\s*\]\s*=\s*\{' % re.escape(name), text)
    if not m:
        raise SourceError('%s: no array %s[]' % (path, name))
    return braced(text, m.end() - 1, '%s in %s' % (name, path))


def c_value(expr, symbols, where):
    """The value of a constant C expression of numbers, known names and
    + - | <<, as enum initializers and #defines write them."""
    expr = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b', r'\1', expr.strip())

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in symbols:
            return symbols[node.id]
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: int.__add__, ast.Sub: int.__sub__,
                   ast.BitOr: int.__or__, ast.LShift: int.__lshift__}
            if type(node.op) in ops:
                return ops[type(node.op)](value(node.left), value(node.right))
        raise SourceError('%s: cannot evaluate %r' % (where, expr))
    try:
        return value(ast.parse(expr, mode='eval').body)
    except SyntaxError:
        raise SourceError('%s: cannot evaluate %r' % (where, expr))


def defines(text, prefix):
    """{name: value} of the numeric #defines whose names start with prefix."""
    found = {}
    for m in re.finditer(r'^#define\s+(%s\w*)\s+(\S[^\n]*)$' % prefix, text, re.M):
        found[m.group(1)] = c_value(strip_comments(m.group(2)), {}, m.group(1))
    return found


def enum_members(text, name, path, symbols, expand=None):
    """[(member, value)] of the enum typedef'd as name.  A line of the body
    that is a preprocessor directive goes to expand(line), which returns the
    members it stands for (lwlock.h builds an enum from lwlocklist.h)."""
    m = re.search(r'typedef\s+enum\s*\w*\s*\{((?:[^{}])*)\}\s*%s\s*;'
                  % re.escape(name), strip_comments(text))
    if not m:
        raise SourceError('%s: no enum %s' % (path, name))
    items = []
    for line in m.group(1).split('\n'):
        if line.strip().startswith('#'):
            items += expand(line.strip()) if expand else []
        else:
            items += [i.strip() for i in line.split(',') if i.strip()]
    members, nxt = [], 0
    for item in items:
        member, _, init = item.partition('=')
        member = member.strip()
        if init:
            nxt = c_value(init, dict(symbols, **dict(members)), '%s %s' % (path, member))
        members.append((member, nxt))
        nxt += 1
    return members


def string_literals(text):
    return re.findall(r'"((?:\\.|[^"\\])*)"', text)


# --- wait classes ----------------------------------------------------------

def wait_classes(rel):
    """[(class id, PG_WAIT_ macro, type as pg_stat_activity shows it,
    how pgstat_get_wait_event() names its events)]; how is ('literal', name),
    ('lwlock',), ('lock',), ('custom',) or ('function', suffix)."""
    header = WAIT_CLASSES_H if rel.has(WAIT_CLASSES_H) else WAIT_EVENT_H
    ids = defines(rel.read(header), 'PG_WAIT_')
    src = strip_comments(rel.read(WAIT_EVENT_C))
    types = dict(re.findall(r'case\s+(PG_WAIT_\w+)\s*:\s*event_type\s*=\s*"(\w+)"',
                            function_body(src, 'pgstat_get_wait_event_type', WAIT_EVENT_C)))
    naming = event_naming(function_body(src, 'pgstat_get_wait_event', WAIT_EVENT_C))
    classes = []
    for macro, value in sorted(ids.items(), key=lambda kv: kv[1]):
        if macro not in types or macro not in naming:
            raise SourceError('%s: %s is not handled in %s' % (rel.label, macro, WAIT_EVENT_C))
        classes.append((value >> 24, macro, types[macro], naming[macro]))
    return classes


def event_naming(body):
    """{PG_WAIT_ macro: how} from the switch of pgstat_get_wait_event();
    labels that fall through share the body after the last of them."""
    naming, pending = {}, []
    for part in re.split(r'\b(case\s+\w+\s*:|default\s*:)', body)[1:]:
        label = re.match(r'(case\s+(\w+)|default)\s*:', part)
        if label:
            pending.append(label.group(2))      # None for default
            continue
        if not part.strip():
            continue
        how = case_naming(part)
        naming.update({macro: how for macro in pending if macro and how})
        pending = []
    return naming


def case_naming(code):
    """How one case body names an event: a literal for every id, or the
    function it calls (each kind of class has its own)."""
    literal = re.search(r'event_name\s*=\s*"([^"]*)"', code)
    if literal:
        return ('literal', literal.group(1))
    call = re.search(r'event_name\s*=\s*(\w+)\s*\(', code)
    kinds = {'GetLWLockIdentifier': ('lwlock',),
             'GetLockNameFromTagType': ('lock',),
             'GetWaitEventCustomIdentifier': ('custom',)}
    if not call:
        return None
    if call.group(1).startswith('pgstat_get_wait_'):
        return ('function', call.group(1)[len('pgstat_get_wait_'):])
    return kinds.get(call.group(1))


# --- events named by enums and switch cases (up to 16) --------------------

def enum_events(rel, class_ids):
    """{class macro: [name by id]} from the WaitEvent* enums of wait_event.h
    and the case labels of wait_event.c."""
    header = rel.read(WAIT_EVENT_H)
    names = dict(re.findall(r'case\s+(WAIT_EVENT_\w+)\s*:\s*event_name\s*=\s*"([^"]*)"',
                            strip_comments(rel.read(WAIT_EVENT_C))))
    events = {}
    for enum in re.findall(r'\}\s*(WaitEvent\w+)\s*;', header):
        members = enum_members(header, enum, WAIT_EVENT_H, class_ids)
        first = members[0][1]
        macro = [k for k, v in class_ids.items() if v == first]
        if not macro:
            raise SourceError('%s: %s does not start at a PG_WAIT_ class' % (rel.label, enum))
        table = []
        for member, value in members:
            if value - first != len(table) or member not in names:
                raise SourceError('%s: %s %s: not numbered in order, or not named in %s'
                                  % (rel.label, enum, member, WAIT_EVENT_C))
            table.append(names[member])
        events[macro[0]] = table
    return events


# --- events listed in wait_event_names.txt (17 on) ------------------------

def camel_case(name):
    """WAL_SYNC -> WalSync: the name generate-wait_event_types.pl derives from
    an enum member (first letter of each part kept, the rest lower case)."""
    return ''.join(part[:1] + part[1:].lower() for part in name.split('_'))


def names_txt_sections(rel):
    """{section: [NAME, ...]} of wait_event_names.txt, in the enum order the
    generator gives them: sorted by upper-cased name, then the lines of the
    ABI_compatibility region (added in minor releases) in file order."""
    sections, section, abi = {}, None, False
    for line in rel.read(NAMES_TXT).splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        m = re.match(r'Section:\s*ClassName\s*-\s*(\w+)\s*$', line)
        if m:
            section, abi = m.group(1), False
            sections[section] = ([], [])
            continue
        if line.strip() == 'ABI_compatibility:':
            abi = True
            continue
        m = re.match(r'(\w+)\s+"', line)
        if not m or section is None:
            raise SourceError('%s: %s: cannot read %r' % (rel.label, NAMES_TXT, line))
        sections[section][1 if abi else 0].append(m.group(1))
    return {s: sorted(main, key=str.upper) + abi for s, (main, abi) in sections.items()}


def names_txt_events(rel, class_ids):
    """{class macro: [name by id]}: each section WaitEventX is the class
    PG_WAIT_X (upper case), its events numbered from 0.  The LWLock and Lock
    sections only document names numbered elsewhere: left out here."""
    events = {}
    for section, names in names_txt_sections(rel).items():
        if section in ('WaitEventLWLock', 'WaitEventLock'):
            continue
        macro = 'PG_WAIT_' + section[len('WaitEvent'):].upper()
        if macro not in class_ids:
            raise SourceError('%s: %s: no class %s for section %s'
                              % (rel.label, NAMES_TXT, macro, section))
        events[macro] = [camel_case(n) for n in names]
    return events


def custom_first_id(rel):
    """The first id of custom events (WAIT_EVENT_CUSTOM_INITIAL_ID): the
    built-in events of a custom class must stay below it."""
    d = defines(rel.read(WAIT_EVENT_C), 'WAIT_EVENT_CUSTOM_INITIAL_ID')
    return d.get('WAIT_EVENT_CUSTOM_INITIAL_ID', 0)


# --- Lock -------------------------------------------------------------------

def lock_names(rel):
    """LockTagTypeNames, indexed by LockTagType (the Lock event id)."""
    names = string_literals(initializer(strip_comments(rel.read(LOCKFUNCS_C)),
                                        'LockTagTypeNames', LOCKFUNCS_C))
    header = LOCKTAG_H if rel.has(LOCKTAG_H) else LOCK_H
    tags = enum_members(rel.read(header), 'LockTagType', header, {})
    if [v for _, v in tags] != list(range(len(names))):
        raise SourceError('%s: LockTagType has %d members, LockTagTypeNames %d names'
                          % (rel.label, len(tags), len(names)))
    return names


# --- LWLock -----------------------------------------------------------------

def individual_lwlocks(rel):
    """{id: name} of the individual LWLocks.  lwlocknames.txt lists each as
    NameLock and the wait event drops the "Lock"; lwlocklist.h (17 on) lists
    PG_LWLOCK(id, Name) with the name as shown."""
    locks = {}
    if rel.has(LWLOCKLIST_H):
        for lock_id, name in re.findall(r'^PG_LWLOCK\(\s*(\d+)\s*,\s*(\w+)\s*\)',
                                        strip_comments(rel.read(LWLOCKLIST_H)), re.M):
            locks[int(lock_id)] = name
    else:
        for line in rel.read(LWLOCKNAMES_TXT).splitlines():
            if not line.strip() or line.startswith('#'):
                continue
            m = re.fullmatch(r'(\w+)Lock\s+(\d+)\s*', line)
            if not m:
                raise SourceError('%s: %s: cannot read %r' % (rel.label, LWLOCKNAMES_TXT, line))
            locks[int(m.group(2))] = m.group(1)
    if not locks:
        raise SourceError('%s: no individual LWLocks found' % rel.label)
    return locks


def listed_tranches(rel):
    """[(ID, Name)] of the PG_LWLOCKTRANCHE lines of lwlocklist.h (19 on)."""
    if not rel.has(LWLOCKLIST_H):
        return []
    return re.findall(r'^PG_LWLOCKTRANCHE\(\s*(\w+)\s*,\s*(\w+)\s*\)',
                      strip_comments(rel.read(LWLOCKLIST_H)), re.M)


def tranche_enum(rel, num_individual):
    """{member: value} of enum BuiltinTrancheIds, whose members may come
    from lwlocklist.h through a #define and an #include in its body."""
    tranches = listed_tranches(rel)
    template = []

    def expand(directive):
        m = re.match(r'#define\s+PG_LWLOCKTRANCHE\(\s*(\w+)\s*,\s*\w+\s*\)\s*(.*)', directive)
        if m:
            template[:] = [m.group(1), m.group(2).rstrip(', ')]
        if 'lwlocklist.h' in directive and directive.startswith('#include'):
            if not template:
                raise SourceError('%s: %s includes lwlocklist.h without a '
                                  'PG_LWLOCKTRANCHE template' % (rel.label, LWLOCK_H))
            return [template[1].replace('##' + template[0], tid) for tid, _ in tranches]
        return []
    members = enum_members(rel.read(LWLOCK_H), 'BuiltinTrancheIds', LWLOCK_H,
                           {'NUM_INDIVIDUAL_LWLOCKS': num_individual}, expand)
    return dict(members)


def tranche_names(rel, enum, num_individual):
    """{tranche id: name} from BuiltinTrancheNames: by position after the
    individual locks (up to 16), by [LWTRANCHE_X] designators (17, 18), or
    from the PG_LWLOCKTRANCHE lines its body includes (19 on)."""
    body = initializer(strip_comments(rel.read(LWLOCK_C)), 'BuiltinTrancheNames', LWLOCK_C)
    named = re.findall(r'\[\s*(LWTRANCHE_\w+)\s*\]\s*=\s*"([^"]*)"', body)
    if re.search(r'#define\s+PG_LWLOCKTRANCHE', body):
        named += [('LWTRANCHE_' + t, n) for t, n in listed_tranches(rel)]
    unknown = [m for m, _ in named if m not in enum]
    if unknown:
        raise SourceError('%s: %s names %s, not in enum BuiltinTrancheIds'
                          % (rel.label, LWLOCK_C, ', '.join(unknown)))
    if named:
        return {enum[m]: n for m, n in named}
    # up to 16: a plain list (the individual locks' names are another array)
    plain = '\n'.join(l for l in body.split('\n') if not l.strip().startswith('#'))
    return {num_individual + i: n for i, n in enumerate(string_literals(plain))}


def lwlock_table(rel):
    """({id: name} of every built-in LWLock id, first user-defined tranche)."""
    locks = individual_lwlocks(rel)
    # generate-lwlocknames.pl: NUM_INDIVIDUAL_LWLOCKS is the last id + 1
    num_individual = max(locks) + 1
    enum = tranche_enum(rel, num_individual)
    first_user = enum.get('LWTRANCHE_FIRST_USER_DEFINED')
    if first_user is None:
        raise SourceError('%s: %s: no LWTRANCHE_FIRST_USER_DEFINED' % (rel.label, LWLOCK_H))
    names = tranche_names(rel, enum, num_individual)
    builtin = {v for k, v in enum.items()
               if k != 'LWTRANCHE_FIRST_USER_DEFINED' and not k.endswith('_INVALID')}
    if set(names) != builtin or min(builtin) != num_individual:
        raise SourceError('%s: tranche names of %s do not match enum BuiltinTrancheIds'
                          % (rel.label, LWLOCK_C))
    table = dict(locks)
    table.update(names)
    return table, first_user


def check_documented(rel, lwlocks, locks):
    """From 17 on, wait_event_names.txt documents LWLock and Lock names:
    warn (the documentation is not what numbers them) where it differs."""
    if not rel.has(NAMES_TXT):
        return
    sections = names_txt_sections(rel)
    for section, ours in (('WaitEventLWLock', lwlocks), ('WaitEventLock', locks)):
        documented = set(sections.get(section, []))
        for name in sorted(set(ours) ^ documented):
            print('warning: %s: %s %s is %s' % (
                rel.label, section, name,
                'not documented' if name in ours else 'documented but not found'),
                file=sys.stderr)


# --- one major's tables -----------------------------------------------------

def major_tables(rel):
    """{'classes': [(id, type, how, events)], 'first_user': n} where events
    is {id: name} and how is 'table', 'any' (one name for every id) or
    'custom' (extensions name ids at run time; events are the built-in ones)."""
    classes = wait_classes(rel)
    class_ids = {macro: cid << 24 for cid, macro, _, _ in classes}
    if rel.has(NAMES_TXT):
        events = names_txt_events(rel, class_ids)
    else:
        events = enum_events(rel, class_ids)
    lwlocks, first_user = lwlock_table(rel)
    locks = lock_names(rel)
    check_documented(rel, lwlocks.values(), locks)
    out = []
    for cid, macro, type_name, how in classes:
        if how[0] == 'lwlock':
            out.append((cid, type_name, 'table', lwlocks))
        elif how[0] == 'lock':
            out.append((cid, type_name, 'table', dict(enumerate(locks))))
        elif how[0] == 'literal':
            out.append((cid, type_name, 'any', {0: how[1]}))
        elif how[0] == 'custom':
            builtin = events.pop(macro, [])
            if len(builtin) > custom_first_id(rel):
                raise SourceError('%s: %s has more built-in events than ids below '
                                  'the custom ones' % (rel.label, macro))
            out.append((cid, type_name, 'custom', dict(enumerate(builtin))))
        elif macro in events:
            out.append((cid, type_name, 'table', dict(enumerate(events.pop(macro)))))
        else:
            raise SourceError('%s: no events found for %s' % (rel.label, macro))
    if events:
        raise SourceError('%s: events of no class: %s' % (rel.label, ', '.join(events)))
    return {'classes': out, 'first_user': first_user}


# --- writing the C file -----------------------------------------------------

def comment(lines_of_text, first):
    """A block comment: first line as given, the text wrapped under it."""
    body = textwrap.wrap(' '.join(lines_of_text), 74, break_on_hyphens=False)
    return '\n'.join([first] + [' * ' + l for l in body] + [' */'])


def file_header(majors):
    text = ('Generated by scripts/pgwait_tables.py from each release\'s own '
            'sources, named above each version: re-run it rather than edit '
            'this file.  A wait_event_info word is class << 24 | event id; each '
            'array is indexed by the event id, and a hole (an id the version '
            'never reports, or an LWLock slot it leaves unassigned) is NULL, so '
            'it prints as a number.  LWLock ids from the version\'s first '
            'user-defined tranche on belong to extensions, named only inside '
            'the backend that registered them: numbers.')
    first = ('/* pgwait_tables.c - PostgreSQL %d-%d wait event names by number '
             '(pgwait.h).\n *' % (majors[0], majors[-1]))
    return (comment([text], first) + '\n#include "db/pgwait_tables.h"\n\n'
            '#include <stddef.h>\n')


def major_comment(rel):
    if rel.has(NAMES_TXT):
        events = ('events: the sections of wait_event_names.txt, in the order '
                  'and with the names generate-wait_event_types.pl derives '
                  '(sorted by name, ABI_compatibility lines last; WAL_SYNC is '
                  'WalSync)')
    else:
        events = ('events: the WaitEvent enums of utils/wait_event.h, named by '
                  'the switch cases of activity/wait_event.c')
    lists = 'lwlocklist.h' if rel.has(LWLOCKLIST_H) else 'lwlocknames.txt'
    text = ('%s (%s): classes from wait_event.c; %s; Lock: '
            'LockTagTypeNames of lockfuncs.c; LWLock: individual locks of %s, '
            'tranches of enum BuiltinTrancheIds (storage/lwlock.h) named by '
            'BuiltinTrancheNames (lwlock.c)'
            % (rel.label, rel.how, events, lists))
    if rel.major in CHECKED:
        text += '.  Checked against ' + CHECKED[rel.major]
    title = '/* --- PostgreSQL %d ' % rel.major
    return comment([text], title + '-' * (73 - len(title)))


def array_name(major, type_name):
    return 'pg%d_%s' % (major, type_name.lower())


def class_arrays(major, tables, shared):
    """The arrays of one major's classes.  A class of one name (BufferPin,
    Extension from 17) is the same every major: the first major that has
    it writes it, later ones use it (shared: {(type, names): array})."""
    out, names = [], {}
    for cid, type_name, how, events in tables['classes']:
        if how == 'any' or not events:
            continue
        key = (type_name, tuple(sorted(events.items())))
        if len(events) == 1 and key in shared:
            names[cid] = shared[key]
            continue
        name = array_name(major, type_name)
        if len(events) == 1:
            shared[key] = name
        names[cid] = name
        out.append('static const char *const %s[] = {' % name)
        out += ['\t[%d] = "%s",' % (i, events[i]) for i in sorted(events)]
        out.append('};')
    return out, names


def class_rows(major, tables, names):
    rows = ['static const struct pg_wait_class pg%d_classes[] = {' % major]
    for cid, type_name, how, events in tables['classes']:
        head = '\t{ 0x%02x, "%s", ' % (cid, type_name)
        if how == 'any':
            rows.append(head + 'NULL, 0, "%s" }, /* any id: "%s" */' % (events[0], events[0]))
        elif not events:
            rows.append(head + 'NULL, 0, NULL }, /* custom events only: numbers */')
        else:
            a = names[cid]
            count = '1' if len(events) == 1 else 'sizeof(%s) / sizeof(%s[0])' % (a, a)
            note = ' /* custom events: numbers */' if how == 'custom' else ''
            rows.append(head + '%s, %s, NULL },%s' % (a, count, note))
    rows.append('};')
    return rows


def render(releases, tables):
    out = [file_header([r.major for r in releases])]
    shared = {}
    for rel in releases:
        arrays, names = class_arrays(rel.major, tables[rel.major], shared)
        out.append(major_comment(rel))
        out.append('\n'.join(arrays) + '\n')
        out.append('\n'.join(class_rows(rel.major, tables[rel.major], names)) + '\n')
    rows = ['\t{ %d, %d, pg%d_classes, sizeof(pg%d_classes) / sizeof(pg%d_classes[0]) },'
            % (r.major, tables[r.major]['first_user'], r.major, r.major, r.major)
            for r in releases]
    out.append('const struct pg_wait_table pg_wait_tables[] = {\n' + '\n'.join(rows) +
               '\n};\nconst size_t pg_wait_n_tables = '
               'sizeof(pg_wait_tables) / sizeof(pg_wait_tables[0]);\n')
    return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--git-dir', required=True, help='a PostgreSQL git repository')
    ap.add_argument('--ref', action='append', default=[], metavar='MAJOR=REF',
                    help='read MAJOR from REF instead of its newest release')
    args = ap.parse_args()
    pinned = dict(MAJORS)
    for item in args.ref:
        major, _, ref = item.partition('=')
        if not major.isdigit() or int(major) not in pinned or not ref:
            ap.error('--ref %s: expected MAJOR=REF with MAJOR in MAJORS' % item)
        pinned[int(major)] = ref
    try:
        releases = [find_release(args.git_dir, m, pinned[m]) for m, _ in MAJORS]
        tables = {r.major: major_tables(r) for r in releases}
    except SourceError as e:
        print('pgwait_tables.py: %s' % e, file=sys.stderr)
        return 1
    sys.stdout.write(render(releases, tables))
    return 0


if __name__ == '__main__':
    sys.exit(main())
