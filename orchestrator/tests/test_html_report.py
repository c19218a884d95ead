"""report.html as a user opens it: a tiny real run writes it; headless Chromium (Debian's
chromium) renders it with every figure drawn, no console error and no network request, seen
through the DevTools protocol over a pipe (no port, no extra library); the screenshot stays in
the test's tmp dir. `ipclab report RUN --figures DIR` writes the PNG and SVG figures."""
import base64
import fcntl
import json
import os
import random
import shutil
import subprocess
import time

import pytest

from test_e2e import ipclab, leftovers

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FIGURES_DRAWN = ("Array.from(document.querySelectorAll('.fig'))"
                 ".filter(d => d.querySelector('.main-svg')).length")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    seed = random.randrange(2, 2**63)
    out = tmp_path_factory.mktemp("html") / "run"
    done = ipclab("run", "--mechanism", "tcp,uds", "--client", "cpp,python", "--server", "cpp",
                  "--request-size", "16,1KiB", "--response-size", "16", "--iterations", "200",
                  "--rounds", "2", "--pattern", "rr,stream", "--message-size", "1KiB",
                  "--messages", "2000", "--seed", str(seed), "--out", str(out), "--html")
    assert done.returncode == 0, done.stdout + done.stderr
    assert leftovers(seed) == []
    assert f"report: {out / 'report.html'}" in done.stdout.replace("\n", "")
    return out


class Chromium:
    """Headless Chromium driven by the DevTools protocol on fds 3 and 4 (--remote-debugging-pipe):
    JSON messages ended by a NUL byte."""

    def __init__(self, profile):
        to_browser, self._commands = os.pipe()
        self._events, from_browser = os.pipe()

        def pipes_at_3_and_4():  # in the child, before exec
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "--window-size=1300,2400",
             # any name a page might look up resolves to nothing: a request could not leave
             "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"],
            preexec_fn=pipes_at_3_and_4, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next_id, self.events = b"", 0, []

    def send(self, method, session=None, timeout=30, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self._read()
            if reply.get("id") == self._next_id:
                assert "error" not in reply, reply
                return reply["result"]
            self.events.append(reply)
        raise TimeoutError(method)

    def _read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._events, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except (EOFError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # by its PID: the browser we started
            self.proc.wait()
        os.close(self._commands)
        os.close(self._events)


def problems(events, page_url):
    """Console errors, uncaught exceptions, and any request other than the page itself and the
    data:/blob: URLs a page makes in memory."""
    found = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')} "
                         f"{params['exceptionDetails'].get('exception', {}).get('description')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if url != page_url and not url.startswith(("data:", "blob:")):
                found.append(f"request: {url}")
    return found


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup-system "
                                              "installs Debian's chromium)")
def test_report_html_renders_every_figure_offline_without_errors(tiny_run, tmp_path):
    page = tiny_run / "report.html"
    text = page.read_text()
    assert page.stat().st_size < 10 * 2**20
    assert text.count("<script>") == 2    # plotly.js once, then the page's own script
    expected = text.count("class='fig'")
    assert expected >= 8                   # latency, distributions, heat maps, streams, warm-up
    browser = Chromium(tmp_path / "profile")
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.send(f"{domain}.enable", session)
        url = page.as_uri()
        browser.send("Page.navigate", session, url=url)
        deadline, drawn = time.monotonic() + 60, 0
        while time.monotonic() < deadline and drawn < expected:
            drawn = browser.send("Runtime.evaluate", session, expression=FIGURES_DRAWN,
                                 returnByValue=True)["result"].get("value") or 0
            time.sleep(0.2)
        shot = browser.send("Page.captureScreenshot", session, format="png")["data"]
        (tmp_path / "report.png").write_bytes(base64.b64decode(shot))
        events = list(browser.events)
    finally:
        browser.close()
    assert drawn == expected, f"{drawn} of {expected} figures drawn"
    assert problems(events, url) == [], problems(events, url)
    assert any(e.get("method") == "Network.requestWillBeSent" for e in events)  # we did listen
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_report_writes_figures_as_png_and_svg(tiny_run, tmp_path):
    figures = tmp_path / "figures"
    done = ipclab("report", str(tiny_run), "--figures", str(figures))
    assert done.returncode == 0, done.stdout + done.stderr
    names = sorted(p.name for p in figures.iterdir())
    for stem in ("latency-tcp", "distribution-uds", "heatmap-tcp", "stream-throughput",
                 "stream-cpu", "warmup-python"):
        assert f"{stem}.png" in names and f"{stem}.svg" in names, names
    assert all((figures / n).stat().st_size > 1000 for n in names)
    assert (figures / "latency-tcp.svg").read_text().lstrip().startswith("<?xml")

def test_report_rewrites_the_page_and_refuses_an_unwritable_figures_directory(tiny_run, tmp_path):
    page = tiny_run / "report.html"
    page.unlink()
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    done = ipclab("report", str(tiny_run), "--html", "--figures", str(blocked / "figures"))
    assert page.stat().st_size > 1_000_000   # --html first: the page is back
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--figures" in done.stderr and "a-file" in done.stderr


def test_the_environment_section_says_why_a_preflight_probe_was_skipped():
    from ipclab.output import run_info
    document = {"environment": {"hostname": "h"},
                "preflight": [{"placement": "same-core", "skipped": "ipclab-floor is missing"}]}
    assert dict(run_info.environment(document))["preflight same-core"] == \
        "skipped: ipclab-floor is missing"
