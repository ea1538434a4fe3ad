"""report_drag.py - a report (--format html) used with the mouse, as a person does.

  python3 report_drag.py CHROMIUM FILE FROM TO [DIM NAME]

Opens FILE in headless Chromium, presses the mouse over the activity
chart at FROM seconds, moves it and lets go at TO, then, given DIM and
NAME, clicks the row of that table ("wait event", "CPU"); prints what the
page then shows, one JSON object: the selection's from, to, samples and
series (#sel's data-*), the flame graph's samples (#flame's), and the
tables' rows as [dimension, name, share %].

It speaks the DevTools protocol over a pipe (--remote-debugging-pipe:
messages of JSON, each ended by a NUL byte, on descriptors 3 and 4), so
nothing but Python and the browser is needed.  Exit 1 with a line on
stderr when the page does not load or a step finds nothing to act on.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix='report_drag.')
        to_chrome, self.out = os.pipe()
        self.inp, from_chrome = os.pipe()

        def descriptors():
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)

        self.proc = subprocess.Popen(
            [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
             '--disable-background-networking', '--disable-component-update', '--disable-sync',
             '--remote-debugging-pipe', '--user-data-dir=' + self.profile,
             '--window-size=1280,900', 'about:blank'],
            pass_fds=(3, 4), preexec_fn=descriptors,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self.buf, self.n, self.session = b'', 0, None

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _next(self, deadline):
        while b'\0' not in self.buf:
            if time.time() > deadline:
                raise RuntimeError('the browser did not answer in time')
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise RuntimeError('the browser closed its pipe')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def wait_for(self, pred, seconds=30):
        deadline = time.time() + seconds
        while True:
            m = self._next(deadline)
            if pred(m):
                return m

    def call(self, method, params=None):
        self.n += 1
        m = {'id': self.n, 'method': method, 'params': params or {}}
        if self.session:
            m['sessionId'] = self.session
        os.write(self.out, json.dumps(m).encode() + b'\0')
        n = self.n
        r = self.wait_for(lambda m: m.get('id') == n)
        if 'error' in r:
            raise RuntimeError('%s: %s' % (method, r['error'].get('message')))
        return r['result']

    def open(self, url):
        target = self.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.session = self.call('Target.attachToTarget',
                                 {'targetId': target, 'flatten': True})['sessionId']
        self.call('Page.enable')
        self.call('Page.navigate', {'url': url})
        self.wait_for(lambda m: m.get('method') == 'Page.loadEventFired')

    def value(self, expression):
        r = self.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True})
        return r['result'].get('value')

    def mouse(self, kind, x, y):
        self.call('Input.dispatchMouseEvent', {'type': kind, 'x': x, 'y': y, 'button': 'left',
                                               'buttons': 1 if kind != 'mouseReleased' else 0,
                                               'clickCount': 1})


def main():
    chromium, path, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    pick = sys.argv[5:7]
    b = Browser(chromium)
    try:
        b.open('file://' + os.path.abspath(path))
        # where the chart's seconds are: its box, its buckets (report.html
        # draws the plot from PAD_L = 40 to W = 1000 of its 1000 units)
        box = b.value("(function () { var c = document.getElementById('chart');"
                      " var r = c.getBoundingClientRect();"
                      " return [r.left, r.top, r.width, r.height, +c.getAttribute('data-buckets'),"
                      " +c.getAttribute('data-bucket-s')]; })()")
        if not box or not box[4]:
            raise RuntimeError('no chart on the page')
        left, top, width, height, buckets, bucket = box
        unit = width / 1000.0
        span = buckets * bucket

        def x_of(t):
            return left + unit * (40 + 960 * t / span)

        y = top + height / 2
        b.mouse('mousePressed', x_of(t0), y)
        b.mouse('mouseMoved', (x_of(t0) + x_of(t1)) / 2, y)
        b.mouse('mouseMoved', x_of(t1), y)
        b.mouse('mouseReleased', x_of(t1), y)
        if len(pick) == 2:
            row = b.value("(function () { var rows = document.querySelectorAll('tr[data-dim]');"
                          " for (var i = 0; i < rows.length; i++)"
                          "  if (rows[i].getAttribute('data-dim') === %s &&"
                          "      rows[i].getAttribute('data-name') === %s) {"
                          "   rows[i].scrollIntoView({block: 'center'});"
                          "   var r = rows[i].getBoundingClientRect();"
                          "   return [r.left + r.width / 2, r.top + r.height / 2]; }"
                          " return null; })()" % (json.dumps(pick[0]), json.dumps(pick[1])))
            if not row:
                raise RuntimeError('no row %s %s in the tables' % (pick[0], pick[1]))
            b.mouse('mousePressed', row[0], row[1])
            b.mouse('mouseReleased', row[0], row[1])
        shown = b.value("(function () { var s = document.getElementById('sel'),"
                        " f = document.getElementById('flame'); return {"
                        " from: +s.getAttribute('data-from'), to: +s.getAttribute('data-to'),"
                        " samples: +s.getAttribute('data-samples'), only: s.getAttribute('data-only'),"
                        " ms: +s.getAttribute('data-ms'),"
                        " flame: +f.getAttribute('data-samples'),"
                        " rows: Array.prototype.map.call(document.querySelectorAll('tr[data-dim]'),"
                        "  function (r) { return [r.getAttribute('data-dim'), r.getAttribute('data-name'),"
                        "   +r.getAttribute('data-share')]; }) }; })()")
        print(json.dumps(shown))
    except RuntimeError as e:
        print('report_drag: %s' % e, file=sys.stderr)
        return 1
    finally:
        b.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
