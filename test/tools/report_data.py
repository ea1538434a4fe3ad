"""report_data.py - the data of a report (--format html) as its page sees it.

load(path): the "const D = {...};" object out of the file, its samples
made whole as report.html makes them: the file keeps each sample's time
as the time since the one before and its weight less the usual one
(out_html.c); here D['S'] holds, four to a sample, the time and weight
in tenths of a millisecond, the stack id and the thread index.
"""
import json


def load(path):
    text = open(path, encoding='utf-8').read()
    a = text.index('const D = ') + len('const D = ')
    d = json.loads(text[a:text.index('};\n', a) + 1])
    s, every, t = d['S'], (d['interval_ns'] + 50000) // 100000, 0
    last = {}
    for i in range(0, len(s), 4):
        h = s[i + 3]
        t += s[i]
        s[i] = t
        s[i + 1] += t - last[h] if h in last else every
        last[h] = t
    return d
